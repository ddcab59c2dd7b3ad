import { z } from 'zod';
import type { Aggregate, EventsOf } from '../../src/platform/command-handling/aggregate';
import { eventReader } from '../../src/platform/command-handling/aggregate';

/**
 * One agent turn: a short stream of its own,
 * `agents.turn-<tenant>-<executionId>`, so the SSE reader replays and follows exactly one
 * turn and resumes by revision. The conversation keeps only a bounded reference to it (the
 * `execution_id` in the metadata of the messages the turn appended).
 *
 * Order within a turn: TurnStarted, then NodeCompleted per pipeline node (ToolCalled /
 * ToolReturned / SkillLoaded inside the tool node, before its NodeCompleted), then
 * UsageRecorded and exactly one terminal event: TurnCompleted, TurnPaused or TurnFailed.
 */
export const PIPELINE_NODES = [
  'system_prompt_node',
  'memory_node',
  'resume_guard',
  'initial_llm_call',
  'tool_node',
  'approval_node',
  'output_format',
] as const;
export type PipelineNode = (typeof PIPELINE_NODES)[number];

export const TURN_STATUSES = ['completed', 'awaiting_hitl', 'error'] as const;
export type TurnStatus = (typeof TURN_STATUSES)[number];

const ToolCallShape = z.object({ id: z.string(), name: z.string(), args: z.record(z.unknown()) });
export type TurnToolCall = z.infer<typeof ToolCallShape>;

const NodeMessage = z.object({ role: z.string(), content: z.string(), toolCalls: z.array(ToolCallShape) });
export type NodeMessage = z.infer<typeof NodeMessage>;

const ReferencedEntity = z.object({ entityId: z.string(), name: z.string(), entityType: z.string() });
export type ReferencedEntity = z.infer<typeof ReferencedEntity>;

/** What the turn produced, as the `done` frame and the execution result show it. */
const TurnOutcome = z.object({
  status: z.enum(TURN_STATUSES),
  tokensUsed: z.number().int().nullable(),
  costUsd: z.number().nullable(),
  skillsInjected: z.array(z.string()),
  thinkingMode: z.string().nullable(),
  referencedEntities: z.array(ReferencedEntity),
  hitlApprovalId: z.string().nullable(),
  hitlCheckpointType: z.string().nullable(),
  error: z.string().nullable(),
});
export type TurnOutcome = z.infer<typeof TurnOutcome>;

/**
 * The daily reservation a turn's end settles (its user and the day it reserved on), carried by
 * the end so the settlement needs no read of the turn's start. Null: the turn reserved
 * nothing; absent: an end recorded before the field, whose settlement reads `TurnStarted`.
 */
const SettledReservation = z.object({ userId: z.string(), day: z.string() }).nullable().optional();

export const TurnEventSchemas = {
  TurnStarted: z.object({
    executionId: z.string(),
    conversationId: z.string(),
    userId: z.string(),
    agentId: z.string(),
    agentType: z.string(),
    model: z.string(),
    fallbackModel: z.string().nullable(),
    thinkingMode: z.string(),
    maxTokens: z.number().int().nullable(),
    maxCostUsd: z.number().nullable(),
    userMessageId: z.string(),
    attachmentIds: z.array(z.string()),
    /** The UTC day whose usage streams hold the turn's budget reservation (absent on turns before reservations). */
    budgetDay: z.string().nullable().optional(),
    startedAt: z.string(),
  }),
  NodeCompleted: z.object({
    node: z.enum(PIPELINE_NODES),
    status: z.string(),
    tokensUsed: z.number().int().nullable(),
    message: NodeMessage.nullable(),
    skillsLoaded: z.array(z.string()).nullable(),
    /** Node-specific facts (the resume guard's reconciled decision, the model that answered…). */
    detail: z.record(z.unknown()).nullable(),
  }),
  ToolCalled: z.object({ toolCallId: z.string(), toolName: z.string(), args: z.record(z.unknown()) }),
  ToolReturned: z.object({
    toolCallId: z.string(),
    toolName: z.string(),
    ok: z.boolean(),
    content: z.string(),
    error: z.string().nullable(),
  }),
  SkillLoaded: z.object({ skillKey: z.string(), name: z.string() }),
  UsageRecorded: z.object({
    userId: z.string(),
    /** UTC day the usage counts against (daily caps). */
    day: z.string(),
    model: z.string(),
    inputTokens: z.number().int().nullable(),
    outputTokens: z.number().int().nullable(),
    /** Null when no provider reported usage: unknown stays unknown, never 0. */
    tokensUsed: z.number().int().nullable(),
    costUsd: z.number().nullable(),
  }),
  TurnPaused: z.object({
    approvalId: z.string(),
    checkpointType: z.string(),
    outcome: TurnOutcome,
    finishedAt: z.string(),
    reservation: SettledReservation,
  }),
  TurnCompleted: z.object({ outcome: TurnOutcome, finishedAt: z.string(), reservation: SettledReservation }),
  TurnFailed: z.object({
    error: z.string(),
    outcome: TurnOutcome,
    finishedAt: z.string(),
    reservation: SettledReservation,
  }),
};

export type TurnEvent = EventsOf<typeof TurnEventSchemas>;
export type TurnEventType = TurnEvent['type'];
export const readTurnEvent = eventReader('agent turn', TurnEventSchemas);
export const TERMINAL_TURN_EVENTS: readonly TurnEventType[] = ['TurnCompleted', 'TurnPaused', 'TurnFailed'];
export type ProgressEvent = Extract<
  TurnEvent,
  { type: 'NodeCompleted' | 'ToolCalled' | 'ToolReturned' | 'SkillLoaded' }
>;

interface TurnFields {
  executionId: string;
  conversationId: string;
  userId: string;
  /** The day whose usage streams hold the turn's reservation (null: none). */
  budgetDay: string | null;
  nodesCompleted: number;
  lastNode: PipelineNode | null;
}

export type TurnState =
  | { status: 'none' }
  | ({ status: 'running' } & TurnFields)
  | ({ status: 'completed' | 'error' } & TurnFields)
  | ({ status: 'awaiting_hitl'; approvalId: string; checkpointType: string } & TurnFields);

export function evolveTurn(state: TurnState, event: TurnEvent): TurnState {
  if (event.type === 'TurnStarted') {
    const d = event.data;
    return {
      status: 'running',
      executionId: d.executionId,
      conversationId: d.conversationId,
      userId: d.userId,
      budgetDay: d.budgetDay ?? null,
      nodesCompleted: 0,
      lastNode: null,
    };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'NodeCompleted':
      return { ...state, nodesCompleted: state.nodesCompleted + 1, lastNode: event.data.node };
    case 'ToolCalled':
    case 'ToolReturned':
    case 'SkillLoaded':
    case 'UsageRecorded':
      return state;
    case 'TurnCompleted':
      return { ...state, status: 'completed' };
    case 'TurnFailed':
      return { ...state, status: 'error' };
    case 'TurnPaused':
      return {
        ...state,
        status: 'awaiting_hitl',
        approvalId: event.data.approvalId,
        checkpointType: event.data.checkpointType,
      };
  }
}

export const turnAggregate: Aggregate<TurnState, TurnEvent> = {
  stream: (tenantId, executionId) => `agents.turn-${tenantId}-${executionId}`,
  eventTypes: Object.keys(TurnEventSchemas) as TurnEventType[],
  initialState: { status: 'none' },
  evolve: evolveTurn,
  read: readTurnEvent,
};
