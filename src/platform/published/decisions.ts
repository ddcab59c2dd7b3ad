/**
 * A reviewer's decision on an approval, as every context that records one in its own stream
 * spells it (approvals, a checklist's review, a conversation's pending action).
 */
export const DECISIONS = ['approved', 'rejected', 'modified'] as const;
export type Decision = (typeof DECISIONS)[number];
