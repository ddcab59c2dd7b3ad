import type { Reactor } from '../../src/platform/reactors/reactor';
import { reactionContext } from '../../src/platform/reactors/reactor';
import { type ApprovalState, approvalState } from '../../streams/approvals/approval';
import { deliverApprovalDecision, type DeliverApprovalDecision } from './deliver-approval-decision';

/**
 * Given a decided approval opened from a conversation, then its decision is delivered to that
 * conversation (none for an approval of no conversation, e.g. a checklist's, or still pending).
 */
export function decisionDelivery(
  approval: ApprovalState,
): { conversationId: string; command: DeliverApprovalDecision } | null {
  if (approval.status === 'none' || approval.status === 'pending' || !approval.conversationId) return null;
  return {
    conversationId: approval.conversationId,
    command: {
      type: 'DeliverApprovalDecision',
      approvalId: approval.approvalId,
      checkpointType: approval.checkpointType,
      decision: approval.decision,
    },
  };
}

/**
 * Approval decided → the conversation whose turn paused on it holds the decision, whatever
 * turns ran in between; its next turn's `resume_guard` resumes from it. The decision does not
 * start a model turn by itself: a person continues (docs/approvals.md §"A decision reaches its turn").
 */
export const routeDecisionReactor: Reactor = {
  name: 'conversations.route-decision',
  handles: ['ApprovalDecided'],
  async react(recorded, deps) {
    const delivery = decisionDelivery(await approvalState(deps.store, recorded.stream));
    if (!delivery) return;
    await deliverApprovalDecision(
      deps,
      reactionContext(recorded, 'route-decision', delivery.command.decision.reviewerId),
      delivery.conversationId,
      delivery.command,
    );
  },
};
