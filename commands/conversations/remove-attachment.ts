import type { PlatformDeps } from '../../src/context-module';
import { NotFound } from '../../src/domain/errors';
import { ConversationEvent, ConversationState, conversationStream } from '../../streams/conversations/conversation';
import { accessibleConversation, conversationDecider } from './conversation-decider';

export interface RemoveAttachment {
  type: 'RemoveAttachment';
  callerId: string | null;
  attachmentId: string;
}

export function decideRemoveAttachment(command: RemoveAttachment, state: ConversationState): ConversationEvent[] {
  const conversation = accessibleConversation(state, command.callerId);
  if (!conversation.attachments.has(command.attachmentId)) throw new NotFound('Attachment not found');
  return [{ type: 'AttachmentRemoved', data: { attachmentId: command.attachmentId } }];
}

export async function removeAttachment(deps: Pick<PlatformDeps, 'handle'>, tenantId: string, conversationId: string, command: RemoveAttachment): Promise<void> {
  await deps.handle(conversationDecider, conversationStream(tenantId, conversationId), command, { tenantId, actorId: command.callerId ?? 'internal' });
}
