import type { PlatformDeps } from '../../src/context-module';
import { extractedFileData, UploadedFile } from '../../streams/conversations/extracted-file';
import { ConversationEvent, ConversationState, conversationStream } from '../../streams/conversations/conversation';
import { accessibleConversation, conversationDecider } from './conversation-decider';

/** Records an uploaded attachment; the text arrives already extracted, the bytes never do. */
export interface AddAttachment extends UploadedFile {
  type: 'AddAttachment';
  callerId: string | null;
  attachmentId: string;
}
export function decideAddAttachment(command: AddAttachment, state: ConversationState): ConversationEvent[] {
  const conversation = accessibleConversation(state, command.callerId);
  if (conversation.attachments.has(command.attachmentId)) return [];
  return [{ type: 'AttachmentAdded', data: { attachmentId: command.attachmentId, ...extractedFileData(command) } }];
}

export async function addAttachment(deps: Pick<PlatformDeps, 'handle'>, tenantId: string, conversationId: string, command: AddAttachment): Promise<void> {
  await deps.handle(conversationDecider, conversationStream(tenantId, conversationId), command, { tenantId, actorId: command.callerId ?? 'internal' });
}
