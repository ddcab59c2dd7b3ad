import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import { derivedUuid } from '../../src/platform/command-handling/idempotency';
import type { PlatformDeps } from '../../src/platform/context-module';
import {
  approvalStanding,
  conversationAggregate,
  type ConversationEvent,
  type ConversationState,
  conversationStream,
  type ReviewerDecision,
} from '../../streams/conversations/conversation';

/** A reviewer's decision reaches the conversation whose turn paused on the approval. */
export interface DeliverApprovalDecision {
  type: 'DeliverApprovalDecision';
  approvalId: string;
  checkpointType: string;
  decision: ReviewerDecision;
}

/** What the conversation's readers see at once; the model turn waits for the user (docs/approvals.md §resume). */
export function decisionNotice(approvalId: string, checkpointType: string, decision: ReviewerDecision): string {
  const verb = { approved: 'approved', rejected: 'rejected', modified: 'approved with modifications' }[
    decision.decision
  ];
  return (
    `Approval ${approvalId} (${checkpointType}) ${verb} by ${decision.reviewerId}.` +
    (decision.comments ? ` Comments: ${decision.comments}.` : '') +
    (decision.decision === 'rejected' ? ' Say how to continue.' : " Say 'go ahead' to continue.")
  );
}

/**
 * Delivered once: the decision and a system message announcing it. A decision the conversation
 * already holds, or one a turn already resumed from, appends nothing; a deleted conversation
 * receives nothing.
 */
export function decideDeliverApprovalDecision(
  command: DeliverApprovalDecision,
  state: ConversationState,
): ConversationEvent[] {
  if (state.status !== 'open') return [];
  const standing = approvalStanding(state, command.approvalId);
  if (standing.kind === 'settled' || (standing.kind === 'awaited' && standing.awaited.decision !== null)) return [];
  const { approvalId, checkpointType, decision } = command;
  return [
    { type: 'ApprovalDecisionDelivered', data: { approvalId, checkpointType, ...decision } },
    {
      type: 'MessageAppended',
      data: {
        messageId: derivedUuid('conversations.decision-notice', approvalId),
        sequenceNumber: state.messageCount + 1,
        role: 'system',
        content: decisionNotice(approvalId, checkpointType, decision),
        userId: state.ownerId,
        toolName: null,
        metadata: {
          approval_id: approvalId,
          checkpoint_type: checkpointType,
          decision: decision.decision,
          reviewer_id: decision.reviewerId,
        },
      },
    },
  ];
}

export const deliverApprovalDecisionDecider: Decider<DeliverApprovalDecision, ConversationState, ConversationEvent> = {
  ...conversationAggregate,
  decide: decideDeliverApprovalDecision,
};

export async function deliverApprovalDecision(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  conversationId: string,
  command: DeliverApprovalDecision,
): Promise<void> {
  await deps.handle(
    deliverApprovalDecisionDecider,
    conversationStream(context.tenantId, conversationId),
    command,
    context,
  );
}
