import { z } from 'zod';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict, NotFound } from '../../src/platform/domain-errors';
import { eventTypeAggregate, type EventTypeState, isLive } from '../../streams/monitoring/event-type';
import {
  type EventChange,
  type FieldValues,
  operationalEventAggregate,
  type OperationalEventEvent,
  type OperationalEventState,
} from '../../streams/monitoring/operational-event';
import { loadAggregate } from '../../src/platform/command-handling/multi-stream-command';
import { validateEventFields } from './event-validation';
import { OCCURRED_AT } from './log-event';
import { boundedRecord } from '../../src/platform/http/bounded';

/**
 * PATCH /events/{id}: a correction. `fields` merges into the stored values (null removes
 * one); the result is validated again against the type's current fields, conditional and
 * published guard rules. Each change is an `OperationalEventUpdated` carrying the changed
 * values, so the stream is the event's history. The type of an event never changes;
 * events of a retired type are frozen.
 */

export const UpdateEventBody = z
  .object({
    occurred_at: OCCURRED_AT.optional(),
    entity_id: z.string().trim().min(1).max(200).optional(),
    entity_type: z.string().trim().min(1).max(64).optional(),
    fields: boundedRecord(z.unknown()).optional(),
  })
  .strict();
export type UpdateEventBody = z.infer<typeof UpdateEventBody>;

export interface UpdateEvent {
  type: 'UpdateEvent';
  body: UpdateEventBody;
  /** The event type's definition, read from its stream (the write side) just before. */
  eventType: EventTypeState;
  actorId: string;
}

function fieldChanges(before: FieldValues, after: FieldValues): EventChange[] {
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return names
    .filter((n) => before[n] !== after[n])
    .map((n) => ({ field: `fields.${n}`, from: before[n] ?? null, to: after[n] ?? null }));
}

export function decideUpdateEvent(
  command: UpdateEvent,
  state: OperationalEventState,
  now: Date,
): OperationalEventEvent[] {
  if (state.status !== 'logged') throw new NotFound('Event not found');
  const type = command.eventType;
  if (!isLive(type)) throw new Conflict('The event type of this event no longer exists');
  if (type.status === 'retired')
    throw new Conflict(`Event type "${type.name}" is retired; its events cannot be changed`);
  const { body } = command;
  const known = new Set(type.fields.map((f) => f.name));
  // Values of fields the type has since removed are not carried into the corrected event.
  const merged: Record<string, unknown> = Object.fromEntries(
    Object.entries(state.fields).filter(([k]) => known.has(k)),
  );
  for (const [k, v] of Object.entries(body.fields ?? {})) {
    if (v === null) delete merged[k];
    else merged[k] = v;
  }
  const { values } = validateEventFields(type, merged, now);
  const next = {
    occurredAt: body.occurred_at ?? state.occurredAt,
    entityId: body.entity_id ?? state.entityId,
    entityType: body.entity_type ?? state.entityType,
  };
  const changes: EventChange[] = [];
  if (Date.parse(next.occurredAt) !== Date.parse(state.occurredAt))
    changes.push({ field: 'occurred_at', from: state.occurredAt, to: next.occurredAt });
  if (next.entityId !== state.entityId) changes.push({ field: 'entity_id', from: state.entityId, to: next.entityId });
  if (next.entityType !== state.entityType)
    changes.push({ field: 'entity_type', from: state.entityType, to: next.entityType });
  changes.push(...fieldChanges(state.fields, values));
  if (changes.length === 0) return [];
  return [
    {
      type: 'OperationalEventUpdated',
      data: {
        eventId: state.eventId,
        eventTypeId: state.eventTypeId,
        version: state.version + 1,
        ...next,
        fields: values,
        changes,
        by: command.actorId,
        at: now.toISOString(),
      },
    },
  ];
}

export const updateEventDecider: Decider<UpdateEvent, OperationalEventState, OperationalEventEvent> = {
  ...operationalEventAggregate,
  decide: decideUpdateEvent,
};

export async function updateEvent(deps: PlatformDeps, context: CommandContext, eventId: string, body: UpdateEventBody) {
  const stream = operationalEventAggregate.stream(context.tenantId, eventId);
  const head = await deps.store.readStream(stream, { direction: 'forwards', limit: 1 });
  if (head.length === 0) throw new NotFound('Event not found');
  const first = operationalEventAggregate.read(head[0]);
  if (first.type !== 'OperationalEventLogged') throw new NotFound('Event not found');
  const eventType = (
    await loadAggregate(
      deps.store,
      eventTypeAggregate,
      eventTypeAggregate.stream(context.tenantId, first.data.eventTypeId),
    )
  ).state;
  return deps.handle(
    updateEventDecider,
    stream,
    { type: 'UpdateEvent', body, eventType, actorId: context.actorId },
    context,
  );
}
