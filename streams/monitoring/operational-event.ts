import { z } from 'zod';
import { type Aggregate, eventReader, type EventsOf } from '../../src/platform/command-handling/aggregate';
import { COMPLIANCE_ANOMALY_FLAGGED, ComplianceAnomalyFlaggedData } from '../../src/platform/published/anomaly-flagged';

/**
 * One logged operational event: its stream is its history. PATCH appends
 * `OperationalEventUpdated` with the changed values, so `?history=true` is this stream read
 * back. When the event's type names a compliance domain, the log write also appends
 * `ComplianceAnomalyFlagged` here, for the compliance dashboard's anomaly bucket.
 */

export const FieldValues = z.record(z.union([z.string(), z.number(), z.boolean()]));
export type FieldValues = z.infer<typeof FieldValues>;

const Change = z.object({ field: z.string(), from: z.unknown(), to: z.unknown() });
export type EventChange = z.infer<typeof Change>;

export const OperationalEventSchemas = {
  OperationalEventLogged: z.object({
    eventId: z.string(),
    eventTypeId: z.string(),
    entityId: z.string(),
    entityType: z.string(),
    occurredAt: z.string(),
    fields: FieldValues,
    by: z.string(),
    at: z.string(),
  }),
  OperationalEventUpdated: z.object({
    eventId: z.string(),
    eventTypeId: z.string(),
    version: z.number().int(),
    entityId: z.string(),
    entityType: z.string(),
    occurredAt: z.string(),
    fields: FieldValues,
    /** What this update changed (`fields.<name>`, `occurred_at`, `entity_id`, `entity_type`). */
    changes: z.array(Change),
    by: z.string(),
    at: z.string(),
  }),
  [COMPLIANCE_ANOMALY_FLAGGED]: ComplianceAnomalyFlaggedData,
};

export type OperationalEventEvent = EventsOf<typeof OperationalEventSchemas>;
export const readOperationalEvent = eventReader('operational event', OperationalEventSchemas);

export type OperationalEventState =
  | { status: 'none' }
  | {
      status: 'logged';
      eventId: string;
      eventTypeId: string;
      entityId: string;
      entityType: string;
      occurredAt: string;
      fields: FieldValues;
      version: number;
      anomalyFlagged: boolean;
      loggedBy: string;
      loggedAt: string;
      updatedBy: string;
      updatedAt: string;
    };

export function evolveOperationalEvent(
  state: OperationalEventState,
  event: OperationalEventEvent,
): OperationalEventState {
  switch (event.type) {
    case 'OperationalEventLogged': {
      const { eventId, eventTypeId, entityId, entityType, occurredAt, fields, by, at } = event.data;
      return {
        status: 'logged',
        eventId,
        eventTypeId,
        entityId,
        entityType,
        occurredAt,
        fields,
        version: 1,
        anomalyFlagged: false,
        loggedBy: by,
        loggedAt: at,
        updatedBy: by,
        updatedAt: at,
      };
    }
    case 'OperationalEventUpdated': {
      if (state.status !== 'logged') return state;
      const { entityId, entityType, occurredAt, fields, version, by, at } = event.data;
      return { ...state, entityId, entityType, occurredAt, fields, version, updatedBy: by, updatedAt: at };
    }
    case COMPLIANCE_ANOMALY_FLAGGED:
      return state.status === 'logged' ? { ...state, anomalyFlagged: true } : state;
  }
}

export const operationalEventAggregate: Aggregate<OperationalEventState, OperationalEventEvent> = {
  stream: (tenantId, id) => `monitoring.event-${tenantId}-${id}`,
  eventTypes: Object.keys(OperationalEventSchemas) as OperationalEventEvent['type'][],
  initialState: { status: 'none' },
  evolve: evolveOperationalEvent,
  read: readOperationalEvent,
  // An often-corrected event folds from its latest snapshot, not from revision 0.
  snapshot: { every: 50, version: 2, toJSON: (state) => state, fromJSON: (json) => json as OperationalEventState },
};

export type LoggedEvent = Extract<OperationalEventState, { status: 'logged' }>;
