import { type Decider, inSequence } from '../../src/platform/command-handling/decider';
import type { Decision } from '../../src/platform/command-handling/command-handler';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { PlatformDeps } from '../../src/platform/context-module';
import { ValidationFailed } from '../../src/platform/domain-errors';
import { parse } from '../../src/platform/http/validation';
import {
  sequenceOf,
  accessibleConversation,
  conversationAggregate,
  type ConversationEvent,
  type ConversationState,
  conversationStream,
  MAX_ATTACHMENTS_PER_MESSAGE,
  MESSAGE_ROLES,
  type MessageRole,
} from '../../streams/conversations/conversation';
import { boundedRecord } from '../../src/platform/http/bounded';

/**
 * Appends one message to a conversation's stream. There is no public route for it; agent
 * turns call `appendMessage` for the user's text, assistant replies
 * and tool rows. Field names follow the wire (snake case) so an execute body maps 1:1.
 */
export const AppendMessageInput = z.object({
  message_id: z.string().min(1).max(128).optional(),
  role: z.enum(MESSAGE_ROLES),
  // NUL cannot be stored in Postgres text or jsonb.
  content: z
    .string()
    .max(2_000_000)
    .transform((text) => text.replaceAll('\u0000', '')),
  tool_name: z.string().min(1).max(200).nullable().optional(),
  metadata: boundedRecord(z.unknown()).nullable().optional(),
  attachment_ids: z
    .array(z.string().min(1).max(128))
    .max(MAX_ATTACHMENTS_PER_MESSAGE, `at most ${MAX_ATTACHMENTS_PER_MESSAGE} attachments per message`)
    .optional(),
});
export type AppendMessageInput = z.input<typeof AppendMessageInput>;

export interface AppendMessage {
  type: 'AppendMessage';
  callerId: string | null;
  messageId: string;
  role: MessageRole;
  content: string;
  toolName: string | null;
  metadata: Record<string, unknown> | null;
  attachmentIds: string[];
}

/**
 * Attachment ids must belong to this conversation (and so to its tenant, whose id is in
 * the stream name). A foreign, removed or unknown id fails the whole append with 422 on
 * `attachment_ids[i]` instead of being skipped, as does a fourth id. The stored user
 * message keeps only `{attachments: [{id, filename}]}` next to the typed text.
 */
export function decideAppendMessage(command: AppendMessage, state: ConversationState): ConversationEvent[] {
  const conversation = accessibleConversation(state, command.callerId);
  if (sequenceOf(state, command.messageId) !== undefined) return [];
  const ids = [...new Set(command.attachmentIds)];
  if (ids.length > MAX_ATTACHMENTS_PER_MESSAGE) {
    throw new ValidationFailed([
      {
        loc: ['body', 'attachment_ids'],
        msg: `at most ${MAX_ATTACHMENTS_PER_MESSAGE} attachments per message`,
        type: 'too_many_attachments',
      },
    ]);
  }
  const unknown = ids.flatMap((id, index) =>
    id in conversation.attachments
      ? []
      : [
          {
            loc: ['body', 'attachment_ids', index],
            msg: `attachment ${id} does not belong to this conversation`,
            type: 'unknown_attachment',
          },
        ],
  );
  if (unknown.length > 0) throw new ValidationFailed(unknown);
  const metadata =
    ids.length > 0
      ? { ...(command.metadata ?? {}), attachments: ids.map((id) => ({ id, filename: conversation.attachments[id] })) }
      : command.metadata;
  return [
    {
      type: 'MessageAppended',
      data: {
        messageId: command.messageId,
        sequenceNumber: conversation.messageCount + 1,
        role: command.role,
        content: command.content,
        userId: conversation.ownerId ?? command.callerId,
        toolName: command.toolName,
        metadata,
      },
    },
  ];
}

export interface AppendedMessage {
  id: string;
  conversation_id: string;
  sequence_number: number;
}

const decider: Decider<AppendMessage, ConversationState, ConversationEvent> = {
  ...conversationAggregate,
  decide: decideAppendMessage,
};

/** The command for one message, its input checked (422 on the `body` fields). */
export function appendMessageCommand(callerId: string | null, input: AppendMessageInput): AppendMessage {
  const body = parse(AppendMessageInput, input, 'body');
  return {
    type: 'AppendMessage',
    callerId,
    messageId: body.message_id ?? randomUUID(),
    role: body.role,
    content: body.content,
    toolName: body.tool_name ?? null,
    metadata: body.metadata ?? null,
    attachmentIds: body.attachment_ids ?? [],
  };
}

const messagesDecider = inSequence(decider);

/** Several messages in order, as one of several commands handled together (a turn's rows with its progress or its end). */
export function appendMessagesDecision(
  tenantId: string,
  conversationId: string,
  messages: readonly AppendMessage[],
): Decision<readonly AppendMessage[], ConversationState, ConversationEvent> {
  return { decider: messagesDecider, stream: conversationStream(tenantId, conversationId), command: messages };
}

export async function appendMessage(
  deps: Pick<PlatformDeps, 'handle'>,
  target: { tenantId: string; conversationId: string; callerId: string | null },
  input: AppendMessageInput,
): Promise<AppendedMessage> {
  const command = appendMessageCommand(target.callerId, input);
  const { state } = await deps.handle(decider, conversationStream(target.tenantId, target.conversationId), command, {
    tenantId: target.tenantId,
    actorId: target.callerId ?? 'internal',
  });
  const sequence = sequenceOf(state, command.messageId) ?? 0;
  return { id: command.messageId, conversation_id: target.conversationId, sequence_number: sequence };
}
