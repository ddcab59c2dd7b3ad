import type { Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import { NotFound } from '../../src/platform/domain-errors';
import {
  accessibleConversation,
  conversationAggregate,
  type ConversationEvent,
  type ConversationState,
  conversationStream,
} from '../../streams/conversations/conversation';

export interface RemoveAttachment {
  type: 'RemoveAttachment';
  callerId: string | null;
  attachmentId: string;
}

export function decideRemoveAttachment(command: RemoveAttachment, state: ConversationState): ConversationEvent[] {
  const conversation = accessibleConversation(state, command.callerId);
  if (!(command.attachmentId in conversation.attachments)) throw new NotFound('Attachment not found');
  return [{ type: 'AttachmentRemoved', data: { attachmentId: command.attachmentId } }];
}

const decider: Decider<RemoveAttachment, ConversationState, ConversationEvent> = {
  ...conversationAggregate,
  decide: decideRemoveAttachment,
};

export async function removeAttachment(
  deps: Pick<PlatformDeps, 'handle'>,
  tenantId: string,
  conversationId: string,
  command: RemoveAttachment,
): Promise<void> {
  await deps.handle(decider, conversationStream(tenantId, conversationId), command, {
    tenantId,
    actorId: command.callerId ?? 'internal',
  });
}
