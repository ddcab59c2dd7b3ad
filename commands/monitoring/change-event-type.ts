import { z } from 'zod';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict, NotFound } from '../../src/platform/domain-errors';
import {
  EVENT_TYPE_STATUSES,
  eventTypeAggregate,
  type EventTypeEvent,
  type EventTypeState,
  isLive,
  type LiveEventType,
  TRANSITIONS,
} from '../../streams/monitoring/event-type';
import { COMPLIANCE_DOMAIN, eventTypeNameKey } from './create-event-type';

/** PATCH /event-types/{id}, POST /event-types/{id}/transition, DELETE /event-types/{id}. */

export const UpdateEventTypeBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    description: z.string().trim().max(2000).nullable().optional(),
    category: z.string().trim().min(1).max(100).nullable().optional(),
    compliance_domain: COMPLIANCE_DOMAIN.nullable().optional(),
    anomaly_kind: COMPLIANCE_DOMAIN.nullable().optional(),
  })
  .strict();
export type UpdateEventTypeBody = z.infer<typeof UpdateEventTypeBody>;

export const TransitionBody = z.object({ status: z.enum(EVENT_TYPE_STATUSES) }).strict();

export type ChangeEventType =
  | { type: 'UpdateEventType'; body: UpdateEventTypeBody; actorId: string }
  | { type: 'TransitionEventType'; to: (typeof EVENT_TYPE_STATUSES)[number]; actorId: string }
  | { type: 'DeleteEventType'; actorId: string };

/** The live type, or 404 (a deleted type is gone; another tenant's id never reaches its stream). */
export function liveType(state: EventTypeState): LiveEventType {
  if (!isLive(state)) throw new NotFound('Event type not found');
  return state;
}

/** Definitions of a retired type are frozen. */
export function editableType(state: EventTypeState): LiveEventType {
  const type = liveType(state);
  if (type.status === 'retired') throw new Conflict('A retired event type cannot be changed');
  return type;
}

export function decideChangeEventType(command: ChangeEventType, state: EventTypeState, now: Date): EventTypeEvent[] {
  const at = now.toISOString();
  const by = command.actorId;
  switch (command.type) {
    case 'UpdateEventType': {
      const type = editableType(state);
      const b = command.body;
      const next = {
        name: b.name ?? type.name,
        description: b.description === undefined ? type.description : b.description,
        category: b.category === undefined ? type.category : b.category,
        complianceDomain: b.compliance_domain === undefined ? type.complianceDomain : b.compliance_domain,
        anomalyKind: b.anomaly_kind === undefined ? type.anomalyKind : b.anomaly_kind,
      };
      const same =
        next.name === type.name &&
        next.description === type.description &&
        next.category === type.category &&
        next.complianceDomain === type.complianceDomain &&
        next.anomalyKind === type.anomalyKind;
      return same ? [] : [{ type: 'EventTypeUpdated', data: { eventTypeId: type.id, ...next, by, at } }];
    }
    case 'TransitionEventType': {
      const type = liveType(state);
      if (type.status === command.to) return [];
      if (!TRANSITIONS[type.status].includes(command.to)) {
        const allowed = TRANSITIONS[type.status];
        throw new Conflict(
          `An event type cannot go from ${type.status} to ${command.to}${allowed.length ? ` (allowed: ${allowed.join(', ')})` : ''}`,
          {
            status: type.status,
            allowed_transitions: allowed,
          },
        );
      }
      return [
        { type: 'EventTypeTransitioned', data: { eventTypeId: type.id, from: type.status, to: command.to, by, at } },
      ];
    }
    case 'DeleteEventType': {
      const type = liveType(state);
      if (type.referenced) throw new Conflict('Events reference this event type; retire it instead of deleting it');
      return [{ type: 'EventTypeDeleted', data: { eventTypeId: type.id, name: type.name, by, at } }];
    }
    default:
      return assertNever(command);
  }
}

export const changeEventTypeDecider: Decider<ChangeEventType, EventTypeState, EventTypeEvent> = {
  ...eventTypeAggregate,
  decide: decideChangeEventType,
};

export async function changeEventType(
  deps: PlatformDeps,
  context: CommandContext,
  eventTypeId: string,
  command: ChangeEventType,
) {
  const stream = eventTypeAggregate.stream(context.tenantId, eventTypeId);
  const tenantId = context.tenantId;
  if (command.type === 'UpdateEventType' && command.body.name !== undefined) {
    // A rename moves the name reservation in the same atomic write as the rename.
    const current = await currentName(deps, stream);
    if (current !== null && current.toLowerCase() !== command.body.name.toLowerCase()) {
      return deps.handle(changeEventTypeDecider, stream, command, context, {
        reserve: [eventTypeNameKey(tenantId, command.body.name)],
        release: [eventTypeNameKey(tenantId, current)],
      });
    }
  }
  if (command.type === 'DeleteEventType') {
    const current = await currentName(deps, stream);
    return deps.handle(
      changeEventTypeDecider,
      stream,
      command,
      context,
      current === null ? {} : { release: [eventTypeNameKey(tenantId, current)] },
    );
  }
  return deps.handle(changeEventTypeDecider, stream, command, context);
}

/** The name to release or move; read from the stream itself (a rename races only with itself, and the handler's revision check settles that). */
async function currentName(deps: PlatformDeps, stream: string): Promise<string | null> {
  const events = await deps.store.readStream(stream);
  let state: EventTypeState = eventTypeAggregate.initialState;
  for (const e of events) state = eventTypeAggregate.evolve(state, eventTypeAggregate.read(e));
  return isLive(state) ? state.name : null;
}
