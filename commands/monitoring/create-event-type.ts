import { z } from 'zod';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import type { ReservationKey } from '../../src/platform/command-handling/reservation';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict, ValidationFailed } from '../../src/platform/domain-errors';
import {
  eventTypeAggregate,
  type EventTypeEvent,
  type EventTypeState,
  LIMITS,
} from '../../streams/monitoring/event-type';
import { fieldDefOf, FieldInput } from './field-input';

/** POST /event-types: a new type in `draft` with its initial fields. */

export const COMPLIANCE_DOMAIN = z
  .string()
  .max(64)
  .regex(/^[a-z][a-z0-9_]{0,63}$/, 'must be a domain key such as rule_32 or production');

export const CreateEventTypeBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    description: z.string().trim().max(2000).nullable().optional(),
    category: z.string().trim().min(1).max(100).nullable().optional(),
    compliance_domain: COMPLIANCE_DOMAIN.nullable().optional(),
    anomaly_kind: COMPLIANCE_DOMAIN.nullable().optional(),
    fields: z.array(FieldInput).max(LIMITS.fields).default([]),
    /** A type may start active (one request instead of create + transition); default draft. */
    status: z.enum(['draft', 'active']).default('draft'),
  })
  .strict();
export type CreateEventTypeBody = z.infer<typeof CreateEventTypeBody>;

export interface CreateEventType {
  type: 'CreateEventType';
  eventTypeId: string;
  body: CreateEventTypeBody;
  /** One id per entry of `body.fields`. */
  fieldIds: string[];
  actorId: string;
}

export function decideCreateEventType(command: CreateEventType, state: EventTypeState, now: Date): EventTypeEvent[] {
  if (state.status !== 'none') throw new Conflict('Event type already exists');
  const { body } = command;
  const seen = new Set<string>();
  body.fields.forEach((f, i) => {
    if (seen.has(f.name))
      throw new ValidationFailed([
        { loc: ['body', 'fields', i, 'name'], msg: `duplicate field name "${f.name}"`, type: 'duplicate' },
      ]);
    seen.add(f.name);
  });
  const at = now.toISOString();
  const events: EventTypeEvent[] = [
    {
      type: 'EventTypeCreated',
      data: {
        eventTypeId: command.eventTypeId,
        name: body.name,
        description: body.description ?? null,
        category: body.category ?? null,
        complianceDomain: body.compliance_domain ?? null,
        anomalyKind: body.anomaly_kind ?? null,
        fields: body.fields.map((f, i) => fieldDefOf(command.fieldIds[i], f)),
        by: command.actorId,
        at,
      },
    },
  ];
  if (body.status === 'active')
    events.push({
      type: 'EventTypeTransitioned',
      data: { eventTypeId: command.eventTypeId, from: 'draft', to: 'active', by: command.actorId, at },
    });
  return events;
}

export const createEventTypeDecider: Decider<CreateEventType, EventTypeState, EventTypeEvent> = {
  ...eventTypeAggregate,
  decide: decideCreateEventType,
};

/** Type names are unique per tenant, case-insensitively (a reservation, decided on the write side). */
export const eventTypeNameKey = (tenantId: string, name: string): ReservationKey => ({
  context: 'monitoring',
  tenantId,
  kind: 'event-type-name',
  value: name.trim().toLowerCase(),
  label: `event type name "${name.trim()}"`,
});

export async function createEventType(deps: PlatformDeps, context: CommandContext, command: CreateEventType) {
  return deps.handle(
    createEventTypeDecider,
    eventTypeAggregate.stream(context.tenantId, command.eventTypeId),
    command,
    context,
    {
      reserve: [eventTypeNameKey(context.tenantId, command.body.name)],
    },
  );
}
