import { z } from 'zod';
import type { RecordedEvent } from '../../src/eventstore/types';
import { ExtractedFileFields } from './extracted-file';

/**
 * A conversation (spec 2 §2): its messages and attachments are events of its own stream,
 * so a turn's history, the extracted attachment text and every status change replay from
 * the log. Original upload bytes are never evented; only the extracted text (at most about
 * 8,000 tokens) is.
 */
export const conversationStream = (tenantId: string, conversationId: string) => `conversations.conversation-${tenantId}-${conversationId}`;
export const CONVERSATION_STREAM_PREFIX = 'conversations.conversation-';

export const CONVERSATION_TYPES = ['filing_prep', 'field_event', 'test', 'replay'] as const;
export type ConversationType = (typeof CONVERSATION_TYPES)[number];
/** The statuses spec 2 names; `deleted` is reached only through DELETE. */
export const SETTABLE_STATUSES = ['created', 'active', 'awaiting_hitl'] as const;
export type ConversationStatus = (typeof SETTABLE_STATUSES)[number] | 'deleted';
export const MESSAGE_ROLES = ['user', 'assistant', 'tool', 'system'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];
/** Caller-supplied ids: short, printable, safe inside a stream name. */
export const CONVERSATION_ID = z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, 'must be 1 to 128 characters of A-Z, a-z, 0-9, ".", "_", ":" or "-"');
export const DEFAULT_TITLE = 'New conversation';
export const MAX_ATTACHMENTS_PER_MESSAGE = 3;

const json = z.record(z.unknown());

const ConversationCreated = z.object({
  conversationId: z.string(),
  userId: z.string().nullable(),
  agentId: z.string(),
  title: z.string().nullable(),
  conversationType: z.enum(CONVERSATION_TYPES).nullable(),
  projectId: z.string().nullable(),
  metadata: json.nullable(),
});
const ConversationRetitled = z.object({ title: z.string() });
const ConversationStatusChanged = z.object({ from: z.string(), to: z.enum(SETTABLE_STATUSES) });
const ConversationDeleted = z.object({ deletedAt: z.string() });
const MessageAppended = z.object({
  messageId: z.string(),
  sequence_number: z.number().int(),
  role: z.enum(MESSAGE_ROLES),
  content: z.string(),
  user_id: z.string().nullable(),
  tool_name: z.string().nullable(),
  metadata: json.nullable(),
});
const AttachmentAdded = z.object({ attachmentId: z.string(), ...ExtractedFileFields });
const AttachmentRemoved = z.object({ attachmentId: z.string() });

export type ConversationEvent =
  | { type: 'ConversationCreated'; data: z.infer<typeof ConversationCreated> }
  | { type: 'ConversationRetitled'; data: z.infer<typeof ConversationRetitled> }
  | { type: 'ConversationStatusChanged'; data: z.infer<typeof ConversationStatusChanged> }
  | { type: 'ConversationDeleted'; data: z.infer<typeof ConversationDeleted> }
  | { type: 'MessageAppended'; data: z.infer<typeof MessageAppended> }
  | { type: 'AttachmentAdded'; data: z.infer<typeof AttachmentAdded> }
  | { type: 'AttachmentRemoved'; data: z.infer<typeof AttachmentRemoved> };

export type MessageAppendedData = z.infer<typeof MessageAppended>;
export type AttachmentAddedData = z.infer<typeof AttachmentAdded>;

const schemas: Record<ConversationEvent['type'], z.ZodTypeAny> = {
  ConversationCreated,
  ConversationRetitled,
  ConversationStatusChanged,
  ConversationDeleted,
  MessageAppended,
  AttachmentAdded,
  AttachmentRemoved,
};
export const CONVERSATION_EVENT_TYPES = Object.keys(schemas) as ConversationEvent['type'][];

export function readConversationEvent(event: Pick<RecordedEvent, 'type' | 'data'>): ConversationEvent {
  const schema = schemas[event.type as ConversationEvent['type']];
  if (!schema) throw new Error(`not a conversation event: ${event.type}`);
  return { type: event.type, data: schema.parse(event.data) } as ConversationEvent;
}

interface Live {
  ownerId: string | null;
  conversationStatus: Exclude<ConversationStatus, 'deleted'>;
  title: string | null;
  messageCount: number;
  /** message id → sequence number, so a retried append can answer with the stored row. */
  messageIds: ReadonlyMap<string, number>;
  /** Attachments present now, id → filename. */
  attachments: ReadonlyMap<string, string>;
}

export type ConversationState = { status: 'none' } | ({ status: 'open' } & Live) | ({ status: 'deleted' } & Live);

export const initialConversationState: ConversationState = { status: 'none' };

export function evolveConversation(state: ConversationState, event: ConversationEvent): ConversationState {
  if (event.type === 'ConversationCreated') {
    return { status: 'open', ownerId: event.data.userId, conversationStatus: 'created', title: event.data.title, messageCount: 0, messageIds: new Map(), attachments: new Map() };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'ConversationRetitled':
      return { ...state, title: event.data.title };
    case 'ConversationStatusChanged':
      return { ...state, conversationStatus: event.data.to };
    case 'ConversationDeleted':
      return { ...state, status: 'deleted' };
    case 'MessageAppended':
      return {
        ...state,
        // The first message makes a pre-registered conversation active.
        conversationStatus: state.conversationStatus === 'created' ? 'active' : state.conversationStatus,
        messageCount: event.data.sequence_number,
        messageIds: new Map([...state.messageIds, [event.data.messageId, event.data.sequence_number]]),
      };
    case 'AttachmentAdded':
      return { ...state, attachments: new Map([...state.attachments, [event.data.attachmentId, event.data.filename]]) };
    case 'AttachmentRemoved': {
      const attachments = new Map(state.attachments);
      attachments.delete(event.data.attachmentId);
      return { ...state, attachments };
    }
  }
}

/** Owner guard (spec 2 §4): with a caller known, only the owner, or anyone on an unowned row. */
export function mayAccess(state: { ownerId: string | null }, callerId: string | null): boolean {
  return callerId === null || state.ownerId === null || state.ownerId === callerId;
}
