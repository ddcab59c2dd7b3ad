import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import type { ApprovalDecisionRecord } from '../../streams/approvals/approval';
import { checklistAggregate, type ChecklistEvent, type ChecklistState } from '../../streams/checklists/checklist';

export interface RecordReview {
  type: 'RecordReview';
  approvalId: string;
  decision: ApprovalDecisionRecord;
}

/**
 * An approval's decision reaches the checklist that asked for it. Only the approval the
 * checklist is waiting on counts: a decision on an older or unrelated approval (or one that
 * arrives after the checklist was rejected) changes nothing.
 */
export function decideRecordReview(command: RecordReview, state: ChecklistState): ChecklistEvent[] {
  if (state.status === 'none' || state.pendingApprovalId !== command.approvalId) return [];
  const { decision, reviewerId, comments, decidedAt } = command.decision;
  return [
    {
      type: 'ChecklistReviewed',
      data: { approvalId: command.approvalId, decision, reviewerId, comments, reviewedAt: decidedAt },
    },
  ];
}

export const recordReviewDecider: Decider<RecordReview, ChecklistState, ChecklistEvent> = {
  ...checklistAggregate,
  decide: decideRecordReview,
};

export async function recordReview(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  checklistId: string,
  command: RecordReview,
) {
  await deps.handle(recordReviewDecider, checklistAggregate.stream(context.tenantId, checklistId), command, context);
}
