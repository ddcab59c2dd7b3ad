import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import {
  approvalStanding,
  conversationAggregate,
  type ConversationEvent,
  type ConversationState,
  conversationStream,
} from '../../streams/conversations/conversation';

/** A turn paused on an approval: the conversation records that it waits on it. */
export interface AwaitApproval {
  type: 'AwaitApproval';
  approvalId: string;
  executionId: string;
  checkpointType: string;
}

/** Recorded once per approval; a deleted or missing conversation has nothing left to resume. */
export function decideAwaitApproval(command: AwaitApproval, state: ConversationState): ConversationEvent[] {
  if (state.status !== 'open' || approvalStanding(state, command.approvalId).kind !== 'unknown') return [];
  const { approvalId, executionId, checkpointType } = command;
  return [{ type: 'ApprovalAwaited', data: { approvalId, executionId, checkpointType } }];
}

const decider: Decider<AwaitApproval, ConversationState, ConversationEvent> = {
  ...conversationAggregate,
  decide: decideAwaitApproval,
};

export async function awaitApproval(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  conversationId: string,
  command: AwaitApproval,
): Promise<void> {
  await deps.handle(decider, conversationStream(context.tenantId, conversationId), command, context);
}
