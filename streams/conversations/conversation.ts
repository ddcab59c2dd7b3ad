import { z } from 'zod';
import type { RecordedEvent } from '../../src/platform/eventstore/types';
import type { Aggregate } from '../../src/platform/command-handling/aggregate';
import { NotFound } from '../../src/platform/domain-errors';
import { DECISIONS } from '../../src/platform/published/decisions';
import { ExtractedFileFields, upcastExtractedFile } from './extracted-file';

/**
 * A conversation: its messages and attachments are events of its own stream,
 * so a turn's history, the extracted attachment text and every status change replay from
 * the log. Original upload bytes are never evented; only the extracted text (at most about
 * 8,000 tokens) is.
 */
export const conversationStream = (tenantId: string, conversationId: string) =>
  `conversations.conversation-${tenantId}-${conversationId}`;
export const CONVERSATION_STREAM_PREFIX = 'conversations.conversation-';

export const CONVERSATION_TYPES = ['filing_prep', 'field_event', 'test', 'replay'] as const;
export type ConversationType = (typeof CONVERSATION_TYPES)[number];
/** The statuses the API names; `deleted` is reached only through DELETE. */
export const SETTABLE_STATUSES = ['created', 'active', 'awaiting_hitl'] as const;
export type ConversationStatus = (typeof SETTABLE_STATUSES)[number] | 'deleted';
export const MESSAGE_ROLES = ['user', 'assistant', 'tool', 'system'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];
/** Caller-supplied ids: short, printable, safe inside a stream name. */
export const CONVERSATION_ID = z
  .string()
  .max(128)
  .regex(/^[A-Za-z0-9._:-]{1,128}$/, 'must be 1 to 128 characters of A-Z, a-z, 0-9, ".", "_", ":" or "-"');
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
const MessageAppended = z.preprocess(
  upcastMessage,
  z.object({
    messageId: z.string(),
    sequenceNumber: z.number().int(),
    role: z.enum(MESSAGE_ROLES),
    content: z.string(),
    userId: z.string().nullable(),
    toolName: z.string().nullable(),
    metadata: json.nullable(),
  }),
);

/** Messages recorded before payloads were camelCase carry snake_case keys. */
function upcastMessage(data: unknown): unknown {
  if (!data || typeof data !== 'object' || !('sequence_number' in data)) return data;
  const { sequence_number, user_id, tool_name, ...rest } = data as Record<string, unknown>;
  return { ...rest, sequenceNumber: sequence_number, userId: user_id, toolName: tool_name };
}
const AttachmentAdded = z.preprocess(
  upcastExtractedFile,
  z.object({ attachmentId: z.string(), ...ExtractedFileFields }),
);
const AttachmentRemoved = z.object({ attachmentId: z.string() });
/** A turn of this conversation paused on an approval: the conversation waits on it. */
const ApprovalAwaited = z.object({ approvalId: z.string(), executionId: z.string(), checkpointType: z.string() });
export const ReviewerDecision = z.object({
  decision: z.enum(DECISIONS),
  reviewerId: z.string(),
  comments: z.string().nullable(),
  modifications: json.nullable(),
  decidedAt: z.string(),
});
/** The reviewer's decision on an awaited approval reached the conversation (routed by a reactor, or read by the resuming turn first). */
const ApprovalDecisionDelivered = z.object({
  approvalId: z.string(),
  checkpointType: z.string(),
  ...ReviewerDecision.shape,
});
/** A turn resumed from the decision: no later turn resumes from it again. */
const ApprovalDecisionConsumed = z.object({ approvalId: z.string(), executionId: z.string() });
/**
 * The turn that consumed the decision ended in error before acting on it (a model error, its
 * deadline, its process gone): the decision is awaited again, for the next turn to resume from.
 */
const ApprovalDecisionReleased = z.object({
  approvalId: z.string(),
  executionId: z.string(),
  checkpointType: z.string(),
  ...ReviewerDecision.shape,
});

export type ConversationEvent =
  | { type: 'ConversationCreated'; data: z.infer<typeof ConversationCreated> }
  | { type: 'ConversationRetitled'; data: z.infer<typeof ConversationRetitled> }
  | { type: 'ConversationStatusChanged'; data: z.infer<typeof ConversationStatusChanged> }
  | { type: 'ConversationDeleted'; data: z.infer<typeof ConversationDeleted> }
  | { type: 'MessageAppended'; data: z.infer<typeof MessageAppended> }
  | { type: 'AttachmentAdded'; data: z.infer<typeof AttachmentAdded> }
  | { type: 'AttachmentRemoved'; data: z.infer<typeof AttachmentRemoved> }
  | { type: 'ApprovalAwaited'; data: z.infer<typeof ApprovalAwaited> }
  | { type: 'ApprovalDecisionDelivered'; data: z.infer<typeof ApprovalDecisionDelivered> }
  | { type: 'ApprovalDecisionConsumed'; data: z.infer<typeof ApprovalDecisionConsumed> }
  | { type: 'ApprovalDecisionReleased'; data: z.infer<typeof ApprovalDecisionReleased> };

export type ReviewerDecision = z.infer<typeof ReviewerDecision>;

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
  ApprovalAwaited,
  ApprovalDecisionDelivered,
  ApprovalDecisionConsumed,
  ApprovalDecisionReleased,
};
export const CONVERSATION_EVENT_TYPES = Object.keys(schemas) as ConversationEvent['type'][];

export function readConversationEvent(event: Pick<RecordedEvent, 'type' | 'data'>): ConversationEvent {
  const schema = schemas[event.type as ConversationEvent['type']];
  if (!schema) throw new Error(`not a conversation event: ${event.type}`);
  return { type: event.type, data: schema.parse(event.data) } as ConversationEvent;
}

/** Message ids the decision state remembers, so a retried append answers with its stored row. */
export const REMEMBERED_MESSAGE_IDS = 50;

/**
 * Decision state: bounded whatever the conversation's length. Message contents live in the
 * read model (and the events); the state keeps the owner, status, the message counter, the
 * latest message ids and the attachments present now (each one an upload, at most 10 MB).
 */
interface Live {
  ownerId: string | null;
  conversationStatus: Exclude<ConversationStatus, 'deleted'>;
  title: string | null;
  messageCount: number;
  /** The latest message ids with their sequence numbers, oldest first. */
  recentMessages: ReadonlyArray<readonly [id: string, sequence: number]>;
  /** Attachments present now, id → filename. */
  attachments: Readonly<Record<string, string>>;
  /**
   * Approvals its paused turns wait on, oldest first, until a turn resumes from the decision
   * (then they move to `settledApprovals`). `decision` is null while none has reached it.
   */
  awaitedApprovals: ReadonlyArray<AwaitedApproval>;
  /** The latest approvals a turn resumed from, so a late or replayed delivery cannot revive one. */
  settledApprovals: readonly string[];
  /** The latest turns' execution ids, from their messages' `execution_id`, newest last (the resume guard's previous turn). */
  recentExecutions: readonly string[];
}

/** Turns the state remembers: the current one and the one before are what a turn asks for. */
export const REMEMBERED_EXECUTIONS = 5;

export interface AwaitedApproval {
  approvalId: string;
  executionId: string;
  checkpointType: string;
  decision: ReviewerDecision | null;
}

/** Settled approval ids the state remembers (a delivery arrives within seconds of its decision). */
export const REMEMBERED_SETTLED_APPROVALS = 50;

export type ConversationState = { status: 'none' } | ({ status: 'open' } & Live) | ({ status: 'deleted' } & Live);

export const initialConversationState: ConversationState = { status: 'none' };

export function evolveConversation(state: ConversationState, event: ConversationEvent): ConversationState {
  if (event.type === 'ConversationCreated') {
    return {
      status: 'open',
      ownerId: event.data.userId,
      conversationStatus: 'created',
      title: event.data.title,
      messageCount: 0,
      recentMessages: [],
      attachments: {},
      awaitedApprovals: [],
      settledApprovals: [],
      recentExecutions: [],
    };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'ConversationRetitled':
      return { ...state, title: event.data.title };
    case 'ConversationStatusChanged':
      return { ...state, conversationStatus: event.data.to };
    case 'ConversationDeleted':
      return { ...state, status: 'deleted' };
    case 'MessageAppended': {
      const execution = event.data.metadata?.execution_id;
      return {
        ...state,
        recentExecutions:
          typeof execution !== 'string' || state.recentExecutions[state.recentExecutions.length - 1] === execution
            ? state.recentExecutions
            : [
                ...state.recentExecutions.filter((id) => id !== execution).slice(-(REMEMBERED_EXECUTIONS - 1)),
                execution,
              ],
        // The first message makes a pre-registered conversation active.
        conversationStatus: state.conversationStatus === 'created' ? 'active' : state.conversationStatus,
        messageCount: event.data.sequenceNumber,
        recentMessages: [
          ...state.recentMessages.slice(-(REMEMBERED_MESSAGE_IDS - 1)),
          [event.data.messageId, event.data.sequenceNumber] as const,
        ],
      };
    }
    case 'AttachmentAdded':
      return { ...state, attachments: { ...state.attachments, [event.data.attachmentId]: event.data.filename } };
    case 'AttachmentRemoved': {
      const { [event.data.attachmentId]: _removed, ...attachments } = state.attachments;
      return { ...state, attachments };
    }
    case 'ApprovalAwaited': {
      const { approvalId, executionId, checkpointType } = event.data;
      return {
        ...state,
        awaitedApprovals: [...state.awaitedApprovals, { approvalId, executionId, checkpointType, decision: null }],
      };
    }
    case 'ApprovalDecisionDelivered': {
      const { approvalId, checkpointType, ...decision } = event.data;
      const known = state.awaitedApprovals.some((a) => a.approvalId === approvalId);
      // A decision may arrive for an approval whose awaiting was never recorded.
      const awaited = known
        ? state.awaitedApprovals
        : [...state.awaitedApprovals, { approvalId, executionId: '', checkpointType, decision: null }];
      return { ...state, awaitedApprovals: awaited.map((a) => (a.approvalId === approvalId ? { ...a, decision } : a)) };
    }
    case 'ApprovalDecisionConsumed':
      return {
        ...state,
        awaitedApprovals: state.awaitedApprovals.filter((a) => a.approvalId !== event.data.approvalId),
        settledApprovals: [...state.settledApprovals.slice(-(REMEMBERED_SETTLED_APPROVALS - 1)), event.data.approvalId],
      };
    case 'ApprovalDecisionReleased': {
      const { approvalId, executionId, checkpointType, ...decision } = event.data;
      if (!state.settledApprovals.includes(approvalId)) return state;
      // Waited on longest of all: first again.
      return {
        ...state,
        awaitedApprovals: [{ approvalId, executionId, checkpointType, decision }, ...state.awaitedApprovals],
        settledApprovals: state.settledApprovals.filter((id) => id !== approvalId),
      };
    }
  }
}

/** Where an approval stands for this conversation: not known, awaited (decided or not), or already resumed from. */
export function approvalStanding(
  state: ConversationState,
  approvalId: string,
): { kind: 'unknown' } | { kind: 'awaited'; awaited: AwaitedApproval } | { kind: 'settled' } {
  if (state.status === 'none') return { kind: 'unknown' };
  if (state.settledApprovals.includes(approvalId)) return { kind: 'settled' };
  const awaited = state.awaitedApprovals.find((a) => a.approvalId === approvalId);
  return awaited ? { kind: 'awaited', awaited } : { kind: 'unknown' };
}

/** The sequence number a remembered message id got, if it is among the latest ones. */
export function sequenceOf(state: ConversationState, messageId: string): number | undefined {
  if (state.status === 'none') return undefined;
  return state.recentMessages.find(([id]) => id === messageId)?.[1];
}

export const conversationAggregate: Aggregate<ConversationState, ConversationEvent> = {
  stream: (tenantId, conversationId) => conversationStream(tenantId, conversationId),
  eventTypes: CONVERSATION_EVENT_TYPES,
  initialState: initialConversationState,
  evolve: evolveConversation,
  read: readConversationEvent,
  // Agent turns append several messages per turn: long conversations fold from a snapshot.
  // Version 2: the state gained the awaited and settled approvals; version 3, the recent turns. Older snapshots are refolded.
  snapshot: { every: 100, version: 3, toJSON: (state) => state, fromJSON: (json) => json as ConversationState },
};

/** Owner guard: with a caller known, only the owner, or anyone on an unowned row. */
export function mayAccess(state: { ownerId: string | null }, callerId: string | null): boolean {
  return callerId === null || state.ownerId === null || state.ownerId === callerId;
}

/**
 * The live conversation the caller may touch. Someone else's conversation answers exactly
 * like a missing one (404), so ids cannot be probed.
 */
export function accessibleConversation(
  state: ConversationState,
  callerId: string | null,
): Extract<ConversationState, { status: 'open' }> {
  if (state.status !== 'open' || !mayAccess(state, callerId)) throw new NotFound('Conversation not found');
  return state;
}
