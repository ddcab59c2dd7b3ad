import { z } from 'zod';
import type { Aggregate, EventsOf } from '../../src/platform/command-handling/aggregate';
import { eventReader } from '../../src/platform/command-handling/aggregate';
import type { EventStore } from '../../src/platform/eventstore/types';
import { DECISIONS, type Decision } from '../../src/platform/published/decisions';

/**
 * A human-in-the-loop approval: requested by an agent turn or a
 * checklist submission, decided once by a reviewer. The decision is an event in this
 * stream, signed and chained like every event, so "decisions are recorded in an
 * append-only audit trail and cannot be changed or removed" holds by construction.
 *
 * Escalation keeps the approval `pending` (the spec's four statuses stay the only ones) and
 * takes it away from its named reviewer: from then on any reviewer or admin of the tenant
 * may decide it, and the queue shows it flagged `escalated` with the reason and level.
 */
export { DECISIONS } from '../../src/platform/published/decisions';
export type { Decision } from '../../src/platform/published/decisions';
export const APPROVAL_STATUSES = ['pending', ...DECISIONS] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

export const ApprovalEventSchemas = {
  ApprovalRequested: z.object({
    approvalId: z.string(),
    conversationId: z.string().nullable(),
    agentType: z.string(),
    checkpointType: z.string(),
    payload: z.record(z.unknown()),
    reviewerStrategy: z.string().nullable(),
    reviewerId: z.string().nullable(),
    requestedBy: z.string(),
    requestedAt: z.string(),
  }),
  ApprovalEscalated: z.object({
    approvalId: z.string(),
    reason: z.string(),
    escalatedBy: z.string(),
    /** The named reviewer the approval was taken from (null when it had none). */
    fromReviewerId: z.string().nullable(),
    level: z.number().int().min(1),
    escalatedAt: z.string(),
  }),
  ApprovalDecided: z.object({
    approvalId: z.string(),
    decision: z.enum(DECISIONS),
    reviewerId: z.string(),
    comments: z.string().nullable(),
    modifications: z.record(z.unknown()).nullable(),
    /** Why the reviewer approved although validations failed; absent on decisions before it was asked. */
    justification: z.string().nullable().optional(),
    /** The failed validations (their keys) this approval went over. */
    overriddenValidations: z.array(z.string()).optional(),
    decidedAt: z.string(),
  }),
  /** Four eyes: the one who opened the approval tried to decide it. Recorded, and nothing changes. */
  ApprovalDecisionRefused: z.object({
    approvalId: z.string(),
    attemptedBy: z.string(),
    decision: z.enum(DECISIONS),
    reason: z.string(),
    refusedAt: z.string(),
  }),
};

export type ApprovalEvent = EventsOf<typeof ApprovalEventSchemas>;
export const readApprovalEvent = eventReader('approval', ApprovalEventSchemas);

export interface ApprovalDecisionRecord {
  decision: Decision;
  reviewerId: string;
  comments: string | null;
  modifications: Record<string, unknown> | null;
  justification?: string | null;
  overriddenValidations?: string[];
  decidedAt: string;
}

interface ApprovalFields {
  approvalId: string;
  conversationId: string | null;
  agentType: string;
  checkpointType: string;
  /** The named reviewer; null once escalated or when none was named. */
  reviewerId: string | null;
  requestedBy: string;
  requestedAt: string;
  /** What the approval is about when it is a checklist submission (payload `checklist_id`). */
  checklistId: string | null;
  /** Keys of the filing's validations that failed: approving over them needs a justification. */
  failedValidations: string[];
  escalationLevel: number;
}

/** The keys of a filing payload's failed validations (`kind: "filing"`, `validations[].status`). */
export function failedValidationsOf(payload: Record<string, unknown>): string[] {
  if (payload.kind !== 'filing' || !Array.isArray(payload.validations)) return [];
  return payload.validations
    .filter(
      (v): v is { key?: unknown; label?: unknown; status: string } =>
        !!v && typeof v === 'object' && (v as { status?: unknown }).status === 'fail',
    )
    .map((v, i) => (typeof v.key === 'string' ? v.key : typeof v.label === 'string' ? v.label : `validation ${i + 1}`));
}

export type ApprovalState =
  | { status: 'none' }
  | ({ status: 'pending' } & ApprovalFields)
  | ({ status: Decision; decision: ApprovalDecisionRecord } & ApprovalFields);

export function evolveApproval(state: ApprovalState, event: ApprovalEvent): ApprovalState {
  switch (event.type) {
    case 'ApprovalRequested': {
      const d = event.data;
      const checklistId = typeof d.payload.checklist_id === 'string' ? d.payload.checklist_id : null;
      return {
        status: 'pending',
        approvalId: d.approvalId,
        conversationId: d.conversationId,
        agentType: d.agentType,
        checkpointType: d.checkpointType,
        reviewerId: d.reviewerId,
        requestedBy: d.requestedBy,
        requestedAt: d.requestedAt,
        checklistId,
        failedValidations: failedValidationsOf(d.payload),
        escalationLevel: 0,
      };
    }
    case 'ApprovalEscalated':
      return state.status === 'pending' ? { ...state, reviewerId: null, escalationLevel: event.data.level } : state;
    case 'ApprovalDecided': {
      if (state.status !== 'pending') return state;
      const { decision, reviewerId, comments, modifications, justification, overriddenValidations, decidedAt } =
        event.data;
      const record = {
        decision,
        reviewerId,
        comments,
        modifications,
        justification: justification ?? null,
        overriddenValidations: overriddenValidations ?? [],
        decidedAt,
      };
      return { ...state, status: decision, decision: record };
    }
    case 'ApprovalDecisionRefused':
      return state;
  }
}

export const approvalAggregate: Aggregate<ApprovalState, ApprovalEvent> = {
  stream: (tenantId, id) => `approvals.approval-${tenantId}-${id}`,
  eventTypes: Object.keys(ApprovalEventSchemas) as ApprovalEvent['type'][],
  initialState: { status: 'none' },
  evolve: evolveApproval,
  read: readApprovalEvent,
};

/** An approval's state as written (a reaction's or a turn's fact, never a lagging read model). */
export async function approvalState(store: EventStore, stream: string): Promise<ApprovalState> {
  return (await store.readStream(stream))
    .map(approvalAggregate.read)
    .reduce(approvalAggregate.evolve, approvalAggregate.initialState);
}
