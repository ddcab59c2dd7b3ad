import type { Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import { NotFound } from '../../src/platform/domain-errors';
import {
  conversationAggregate,
  type ConversationEvent,
  type ConversationState,
  conversationStream,
  mayAccess,
} from '../../streams/conversations/conversation';

export interface DeleteConversation {
  type: 'DeleteConversation';
  callerId: string | null;
}

/** Soft delete: the data stays in the log; deleting again is a no-op for the owner. */
export function decideDeleteConversation(
  command: DeleteConversation,
  state: ConversationState,
  now: Date,
): ConversationEvent[] {
  if (state.status === 'none' || !mayAccess(state, command.callerId)) throw new NotFound('Conversation not found');
  if (state.status === 'deleted') return [];
  return [{ type: 'ConversationDeleted', data: { deletedAt: now.toISOString() } }];
}

const decider: Decider<DeleteConversation, ConversationState, ConversationEvent> = {
  ...conversationAggregate,
  decide: decideDeleteConversation,
};

export async function deleteConversation(
  deps: Pick<PlatformDeps, 'handle'>,
  tenantId: string,
  conversationId: string,
  command: DeleteConversation,
): Promise<void> {
  await deps.handle(decider, conversationStream(tenantId, conversationId), command, {
    tenantId,
    actorId: command.callerId ?? 'internal',
  });
}
