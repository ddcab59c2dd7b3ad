import type { PlatformDeps } from '../../src/context-module';
import type { ExtractedText } from '../../src/infra/extraction';
import { ConversationEvent, ConversationState, conversationStream } from '../../streams/conversations/conversation';
import { accessibleConversation, conversationDecider } from './conversation-decider';

/** Records an uploaded attachment; the text arrives already extracted, the bytes never do. */
export interface AddAttachment {
  type: 'AddAttachment';
  callerId: string | null;
  attachmentId: string;
  filename: string;
  sizeBytes: number;
  extracted: Pick<ExtractedText, 'contentType' | 'text' | 'tokenEstimate' | 'truncated'>;
}
export function decideAddAttachment(command: AddAttachment, state: ConversationState): ConversationEvent[] {
  const conversation = accessibleConversation(state, command.callerId);
  if (conversation.attachments.has(command.attachmentId)) return [];
  const { extracted } = command;
  return [
    {
      type: 'AttachmentAdded',
      data: {
        attachmentId: command.attachmentId,
        filename: command.filename,
        content_type: extracted.contentType,
        size_bytes: command.sizeBytes,
        token_estimate: extracted.tokenEstimate,
        truncated: extracted.truncated,
        text: extracted.text,
      },
    },
  ];
}

export async function addAttachment(deps: Pick<PlatformDeps, 'handle'>, tenantId: string, conversationId: string, command: AddAttachment): Promise<void> {
  await deps.handle(conversationDecider, conversationStream(tenantId, conversationId), command, { tenantId, actorId: command.callerId ?? 'internal' });
}
