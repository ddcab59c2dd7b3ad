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
 * A turn that consumed an approval's decision ended in error (a model error, its deadline, its
 * process gone): it gives the decision back, so the reviewer's decision is not lost and the
 * next turn resumes from it (docs/agents.md, "Resuming from a decision").
 */
export interface ReleaseApprovalDecision {
  type: 'ReleaseApprovalDecision';
  approvalId: string;
  checkpointType: string;
  executionId: string;
  decision: ReviewerDecision;
}

/** Only a decision consumed and not yet given back is released; anything else appends nothing. */
export function decideReleaseApprovalDecision(
  command: ReleaseApprovalDecision,
  state: ConversationState,
): ConversationEvent[] {
  if (state.status !== 'open' || approvalStanding(state, command.approvalId).kind !== 'settled') return [];
  const { approvalId, checkpointType, executionId, decision } = command;
  return [{ type: 'ApprovalDecisionReleased', data: { approvalId, checkpointType, executionId, ...decision } }];
}

const decider: Decider<ReleaseApprovalDecision, ConversationState, ConversationEvent> = {
  ...conversationAggregate,
  decide: decideReleaseApprovalDecision,
};

export async function releaseApprovalDecision(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  conversationId: string,
  command: ReleaseApprovalDecision,
): Promise<void> {
  await deps.handle(decider, conversationStream(context.tenantId, conversationId), command, context);
}
