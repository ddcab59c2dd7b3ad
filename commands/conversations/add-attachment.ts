import type { Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import { extractedFileData, type UploadedFile } from '../../streams/conversations/extracted-file';
import {
  accessibleConversation,
  conversationAggregate,
  type ConversationEvent,
  type ConversationState,
  conversationStream,
} from '../../streams/conversations/conversation';

/** Records an uploaded attachment; the text arrives already extracted, the bytes never do. */
export interface AddAttachment extends UploadedFile {
  type: 'AddAttachment';
  callerId: string | null;
  attachmentId: string;
}
export function decideAddAttachment(command: AddAttachment, state: ConversationState): ConversationEvent[] {
  const conversation = accessibleConversation(state, command.callerId);
  if (command.attachmentId in conversation.attachments) return [];
  return [{ type: 'AttachmentAdded', data: { attachmentId: command.attachmentId, ...extractedFileData(command) } }];
}

const decider: Decider<AddAttachment, ConversationState, ConversationEvent> = {
  ...conversationAggregate,
  decide: decideAddAttachment,
};

export async function addAttachment(
  deps: Pick<PlatformDeps, 'handle'>,
  tenantId: string,
  conversationId: string,
  command: AddAttachment,
): Promise<void> {
  await deps.handle(decider, conversationStream(tenantId, conversationId), command, {
    tenantId,
    actorId: command.callerId ?? 'internal',
  });
}
