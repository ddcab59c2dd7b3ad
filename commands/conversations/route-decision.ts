import type { Reactor } from '../../src/platform/reactors/reactor';
import { tenantOf } from '../../src/platform/reactors/reactor';
import { type ApprovalState, approvalState } from '../../streams/approvals/approval';
import { conversationStream } from '../../streams/conversations/conversation';
import { type DeliverApprovalDecision, deliverApprovalDecisionDecider } from './deliver-approval-decision';

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
export const routeDecisionReactor: Reactor<ApprovalState> = {
  name: 'conversations.route-decision',
  handles: ['ApprovalDecided'],
  facts: (recorded, read) => approvalState(read.store, recorded.stream),
  react(recorded, approval) {
    const delivery = decisionDelivery(approval);
    if (!delivery) return [];
    return [
      {
        step: 'route-decision',
        actorId: delivery.command.decision.reviewerId,
        writes: [
          {
            decider: deliverApprovalDecisionDecider,
            stream: conversationStream(tenantOf(recorded), delivery.conversationId),
            command: delivery.command,
          },
        ],
      },
    ];
  },
};
