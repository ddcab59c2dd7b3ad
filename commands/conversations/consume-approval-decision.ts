import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import {
  approvalStanding,
  conversationAggregate,
  type ConversationEvent,
  type ConversationState,
  conversationStream,
  type ReviewerDecision,
} from '../../streams/conversations/conversation';

/**
 * A turn resumes from a decided approval. The decision is read from the approval's own
 * stream by the turn, so a turn that runs before the routing reactor still resumes; the
 * delivery is then recorded here and the reactor's later one appends nothing.
 */
export interface ConsumeApprovalDecision {
  type: 'ConsumeApprovalDecision';
  approvalId: string;
  checkpointType: string;
  executionId: string;
  decision: ReviewerDecision;
}

/** Exactly once: a second turn (or a concurrent one that lost the revision race) consumes nothing. */
export function decideConsumeApprovalDecision(
  command: ConsumeApprovalDecision,
  state: ConversationState,
): ConversationEvent[] {
  if (state.status !== 'open') return [];
  const standing = approvalStanding(state, command.approvalId);
  if (standing.kind === 'settled') return [];
  const { approvalId, checkpointType, executionId, decision } = command;
  const delivered = standing.kind === 'awaited' && standing.awaited.decision !== null;
  return [
    ...(delivered
      ? []
      : [{ type: 'ApprovalDecisionDelivered' as const, data: { approvalId, checkpointType, ...decision } }]),
    { type: 'ApprovalDecisionConsumed', data: { approvalId, executionId } },
  ];
}

const decider: Decider<ConsumeApprovalDecision, ConversationState, ConversationEvent> = {
  ...conversationAggregate,
  decide: decideConsumeApprovalDecision,
};

/** True when this turn is the one that resumes from the decision. */
export async function consumeApprovalDecision(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  conversationId: string,
  command: ConsumeApprovalDecision,
): Promise<boolean> {
  const { events, replayed } = await deps.handle(
    decider,
    conversationStream(context.tenantId, conversationId),
    command,
    context,
  );
  return replayed === true || events.some((e) => e.type === 'ApprovalDecisionConsumed');
}
