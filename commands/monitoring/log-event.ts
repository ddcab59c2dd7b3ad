import { z } from 'zod';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict, ValidationFailed } from '../../src/platform/domain-errors';
import { COMPLIANCE_ANOMALY_FLAGGED } from '../../src/platform/published/anomaly-flagged';
import {
  DUPLICATE_KEY_LOOKBACK,
  duplicateKeyStream,
  type DuplicationRule,
  duplicationRulesAggregate,
  type DuplicationRulesState,
  readDuplicateKeyEvent,
} from '../../streams/monitoring/duplication-rules';
import {
  eventTypeAggregate,
  type EventTypeEvent,
  type EventTypeState,
  isLive,
  type LiveEventType,
} from '../../streams/monitoring/event-type';
import {
  type FieldValues,
  type LoggedEvent,
  operationalEventAggregate,
  type OperationalEventEvent,
  type OperationalEventState,
} from '../../streams/monitoring/operational-event';
import {
  appendAtomically,
  foldStream,
  type PlannedWrite,
  readWholeStreams,
} from '../../src/platform/command-handling/multi-stream-command';
import { validateEventFields } from './event-validation';
import { boundedRecord } from '../../src/platform/http/bounded';
import { claimFreshStream } from '../../src/platform/http/request-scope';

/**
 * POST /events: validate against the type (active only), its conditional and published
 * guard rules; suppress a duplicate (duplication rules); otherwise append the event, and
 * — in the same atomic write — the type's first-reference mark (so DELETE of the type is
 * refused from then on) and, for a type that names a compliance domain, the
 * `ComplianceAnomalyFlagged` the compliance dashboard's anomaly bucket reads. The type and the
 * rules come from what this process remembers of them when it can, and the append checks
 * they are still there (a check, not a read: one round trip fewer per event logged).
 */

export const OCCURRED_AT = z
  .string()
  .max(40)
  .datetime({ offset: true, message: 'must be an ISO 8601 date-time with a time zone' });

export const LogEventBody = z
  .object({
    event_type_id: z.string().min(1).max(128),
    entity_id: z.string().trim().min(1).max(200),
    entity_type: z.string().trim().min(1).max(64),
    occurred_at: OCCURRED_AT,
    fields: boundedRecord(z.unknown()).default({}),
  })
  .strict();
export type LogEventBody = z.infer<typeof LogEventBody>;

export interface LogEvent {
  type: 'LogEvent';
  eventId: string;
  eventTypeId: string;
  entityId: string;
  entityType: string;
  occurredAt: string;
  fields: Record<string, unknown>;
  actorId: string;
}

/** The type that accepts this event, or the 422/409 that says why not. */
export function acceptingType(type: EventTypeState): LiveEventType {
  if (!isLive(type))
    throw new ValidationFailed([
      { loc: ['body', 'event_type_id'], msg: 'unknown event type', type: 'unknown_event_type' },
    ]);
  if (type.status !== 'active')
    throw new Conflict(`Event type "${type.name}" is ${type.status}; only active event types accept events`);
  return type;
}

const kindOf = (type: LiveEventType) =>
  type.anomalyKind ??
  (type.name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '') ||
    'operational_event');

export function decideLogEvent(
  command: LogEvent,
  typeState: EventTypeState,
  state: OperationalEventState,
  now: Date,
): { events: OperationalEventEvent[]; values: FieldValues; hidden: string[] } {
  if (state.status !== 'none') throw new Conflict('Event already exists');
  const type = acceptingType(typeState);
  const { values, hidden } = validateEventFields(type, command.fields, now);
  const { eventId, entityId, entityType, occurredAt } = command;
  const events: OperationalEventEvent[] = [
    {
      type: 'OperationalEventLogged',
      data: {
        eventId,
        eventTypeId: type.id,
        entityId,
        entityType,
        occurredAt,
        fields: values,
        by: command.actorId,
        at: now.toISOString(),
      },
    },
  ];
  if (type.complianceDomain) {
    const summary = Object.entries(values)
      .slice(0, 6)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ');
    events.push({
      type: COMPLIANCE_ANOMALY_FLAGGED,
      data: {
        entityId,
        entityLabel: entityType,
        domain: type.complianceDomain,
        kind: kindOf(type),
        detail: `${type.name} logged for ${entityType} ${entityId}${summary ? `: ${summary}` : ''}`.slice(0, 1000),
        observedAt: occurredAt,
        source: 'operational_event',
      },
    });
  }
  return { events, values, hidden };
}

/** A key's value under a rule: the type plus the chosen keys (`entity_id`, `entity_type` or field names). */
export function duplicateKey(
  rule: DuplicationRule,
  command: Pick<LogEvent, 'eventTypeId' | 'entityId' | 'entityType'>,
  values: FieldValues,
): string {
  const pick = (name: string) =>
    name === 'entity_id' ? command.entityId : name === 'entity_type' ? command.entityType : (values[name] ?? null);
  return JSON.stringify([command.eventTypeId, ...rule.matchFields.map((name) => [name, pick(name)])]);
}

export function applicableRules(rules: DuplicationRulesState, eventTypeId: string): DuplicationRule[] {
  return rules.rules.filter((r) => r.enabled && (r.eventTypeId === null || r.eventTypeId === eventTypeId));
}

/** Accepted events this one duplicates: those whose `occurred_at` lies within the window of this one's, newest first. */
export function duplicatesOf(
  accepted: { eventId: string; occurredAt: string }[],
  occurredAt: string,
  windowSeconds: number,
): { eventId: string; occurredAt: string }[] {
  const t = Date.parse(occurredAt);
  return accepted.filter((a) => Math.abs(Date.parse(a.occurredAt) - t) <= windowSeconds * 1000);
}

export type LogEventOutcome =
  | { status: 'logged'; state: LoggedEvent; hidden: string[]; replayed: boolean }
  | { status: 'suppressed'; duplicateOf: string; duplicateOccurredAt: string; rule: DuplicationRule };

export async function logEvent(
  deps: PlatformDeps,
  context: CommandContext,
  command: LogEvent,
): Promise<LogEventOutcome> {
  const { tenantId } = context;
  const { store } = deps;
  const typeStream = eventTypeAggregate.stream(tenantId, command.eventTypeId);
  const eventStream = operationalEventAggregate.stream(tenantId, command.eventId);
  // Named after an id this request drew at random: nothing to read (a retried request with an
  // Idempotency-Key derives the id instead, and reads to find what the first one stored).
  const fresh = claimFreshStream(eventStream);
  const rulesStream = duplicationRulesAggregate.stream(tenantId, 'all');
  let attempts = 0;
  const { outcome } = await appendAtomically<LogEventOutcome>(deps, context, async (now) => {
    // The type and the rules as this process last knew them (the append checks that they have
    // not moved since); read when it does not know them, or after the append found them moved.
    let fromMemory = attempts++ === 0;
    for (;;) {
      const decision = await decideFrom(fromMemory, now);
      // A refusal or a write of nothing decided from memory is not trusted: decide again from a read.
      if (decision === 'refused from memory' || (decision.recalled && decision.writes.length === 0)) {
        fromMemory = false;
        continue;
      }
      return decision;
    }
  });
  return outcome;

  async function decideFrom(fromMemory: boolean, now: Date) {
    const typeKnown = fromMemory ? deps.handle.recall(eventTypeAggregate, typeStream) : null;
    const rulesKnown = fromMemory ? deps.handle.recall(duplicationRulesAggregate, rulesStream) : null;
    // The streams the decision must read, in one read.
    const unread = [
      ...(typeKnown ? [] : [typeStream]),
      ...(rulesKnown ? [] : [rulesStream]),
      ...(fresh ? [] : [eventStream]),
    ];
    const read = unread.length > 0 ? await readWholeStreams(store, unread) : [];
    const eventsOf = (stream: string) => read[unread.indexOf(stream)] ?? [];
    const type = typeKnown ?? foldStream(eventTypeAggregate, eventsOf(typeStream));
    const rules = rulesKnown ?? foldStream(duplicationRulesAggregate, eventsOf(rulesStream));
    if (!typeKnown) deps.handle.remember(eventTypeAggregate, typeStream, type.state, type.revision);
    if (!rulesKnown) deps.handle.remember(duplicationRulesAggregate, rulesStream, rules.state, rules.revision);
    const recalled = Boolean(typeKnown || rulesKnown);
    const checks = [
      { stream: typeStream, revision: type.revision },
      { stream: rulesStream, revision: rules.revision },
    ];
    const existing = foldStream(operationalEventAggregate, eventsOf(eventStream));
    if (existing.state.status === 'logged') {
      // A retried request (same Idempotency-Key): answer from what the first one stored.
      return {
        writes: [],
        checks,
        recalled,
        outcome: { status: 'logged', state: existing.state, hidden: [], replayed: true } as LogEventOutcome,
      };
    }
    let decided: ReturnType<typeof decideLogEvent>;
    try {
      decided = decideLogEvent(command, type.state, existing.state, now);
    } catch (error) {
      if (recalled) return 'refused from memory' as const;
      throw error;
    }
    const writes: PlannedWrite[] = [];

    for (const rule of applicableRules(rules.state, command.eventTypeId)) {
      const stream = duplicateKeyStream(tenantId, rule, duplicateKey(rule, command, decided.values));
      const recent = await store.readStream(stream, { direction: 'backwards', limit: DUPLICATE_KEY_LOOKBACK });
      const accepted = recent.map((e) => readDuplicateKeyEvent(e).data);
      for (const duplicate of duplicatesOf(accepted, command.occurredAt, rule.windowSeconds)) {
        // Where multi-stream writes are not atomic (EventStoreDB) a key can outlive a failed
        // event write: only a key whose event exists suppresses.
        const original = await store.readStream(operationalEventAggregate.stream(tenantId, duplicate.eventId), {
          limit: 1,
        });
        if (original.length > 0)
          return {
            writes: [],
            checks,
            recalled,
            outcome: {
              status: 'suppressed',
              duplicateOf: duplicate.eventId,
              duplicateOccurredAt: duplicate.occurredAt,
              rule,
            } as LogEventOutcome,
          };
      }
      writes.push({
        stream,
        revision: recent.length > 0 ? recent[0].revision : null,
        events: [
          {
            type: 'DuplicateKeyAccepted',
            data: { ruleId: rule.id, eventId: command.eventId, occurredAt: command.occurredAt },
          },
        ],
      });
    }
    if (isLive(type.state) && !type.state.referenced) {
      const mark: EventTypeEvent = {
        type: 'EventTypeReferenced',
        data: { eventTypeId: command.eventTypeId, eventId: command.eventId, at: now.toISOString() },
      };
      writes.push({ stream: typeStream, revision: type.revision, events: [mark] });
    }
    writes.push({ stream: eventStream, revision: null, events: decided.events });
    const state = decided.events.reduce(operationalEventAggregate.evolve, existing.state) as LoggedEvent;
    return {
      writes,
      checks,
      recalled,
      outcome: { status: 'logged', state, hidden: decided.hidden, replayed: false } as LogEventOutcome,
    };
  }
}
