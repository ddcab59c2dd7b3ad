import type { RecordedEvent } from '../../src/platform/eventstore/types';
import type { Reactor } from '../../src/platform/reactors/reactor';
import { tenantOf } from '../../src/platform/reactors/reactor';
import { approvalAggregate, type ApprovalState, approvalState } from '../../streams/approvals/approval';
import { checklistAggregate, readChecklistEvent } from '../../streams/checklists/checklist';
import { type DecideApproval, decideApprovalDecider } from '../approvals/decide-approval';
import { type RecordReview, recordReviewDecider } from './record-review';

/**
 * Given a decided approval, then the review its checklist records (none for an approval
 * that is not about a checklist). The checklist's own decider ignores a decision on an
 * approval it no longer waits on.
 */
export function reviewForDecision(approval: ApprovalState): { checklistId: string; command: RecordReview } | null {
  if (approval.status === 'none' || approval.status === 'pending' || !approval.checklistId) return null;
  return {
    checklistId: approval.checklistId,
    command: { type: 'RecordReview', approvalId: approval.approvalId, decision: approval.decision },
  };
}

/** Approval decided → the checklist waiting on it records the review (approved, rejected, modified). */
export const recordReviewReactor: Reactor<ApprovalState> = {
  name: 'checklists.record-review',
  handles: ['ApprovalDecided'],
  facts: (recorded, read) => approvalState(read.store, recorded.stream),
  react(recorded, approval) {
    const review = reviewForDecision(approval);
    if (!review) return [];
    return [
      {
        step: 'record-review',
        actorId: review.command.decision.reviewerId,
        writes: [
          {
            decider: recordReviewDecider,
            stream: checklistAggregate.stream(tenantOf(recorded), review.checklistId),
            command: review.command,
          },
        ],
      },
    ];
  },
};

/**
 * Given a checklist rejected outright while an approval was pending, then that approval is
 * closed as rejected with the same reason, by the same person.
 */
export function closingDecision(recorded: RecordedEvent): { approvalId: string; command: DecideApproval } | null {
  const event = readChecklistEvent(recorded);
  if (event.type !== 'ChecklistRejected' || !event.data.approvalId) return null;
  const { approvalId, rejectedBy, reason } = event.data;
  return {
    approvalId,
    command: {
      type: 'DecideApproval',
      decision: 'rejected',
      reviewerId: rejectedBy,
      reviewerIsAdmin: false,
      comments: reason,
      modifications: null,
    },
  };
}

/**
 * Checklist rejected → its pending approval is closed. An approval decided meanwhile, or
 * named to another reviewer, keeps its own record (the refusal is the expected outcome, not
 * a failure to retry).
 */
export const closeRejectedApprovalReactor: Reactor = {
  name: 'checklists.close-rejected-approval',
  handles: ['ChecklistRejected'],
  react(recorded) {
    const closing = closingDecision(recorded);
    if (!closing) return [];
    return [
      {
        step: 'close-approval',
        writes: [
          {
            decider: decideApprovalDecider,
            stream: approvalAggregate.stream(tenantOf(recorded), closing.approvalId),
            command: closing.command,
          },
        ],
        expected: ['conflict', 'forbidden'],
      },
    ];
  },
};
