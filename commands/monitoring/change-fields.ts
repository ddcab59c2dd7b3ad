import { z } from 'zod';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict, NotFound, ValidationFailed } from '../../src/platform/domain-errors';
import {
  eventTypeAggregate,
  type EventTypeEvent,
  type EventTypeState,
  LIMITS,
  ruleReferencesTo,
} from '../../streams/monitoring/event-type';
import { editableType } from './change-event-type';
import { fieldDefOf, type FieldInput, type FieldPatch, patchedField } from './field-input';

/**
 * Fields of an event type: add, update, remove, reorder. A field that a conditional or
 * guard rule points at cannot be renamed, retyped or removed (409 naming the rules);
 * events already logged keep the values they were logged with.
 */

export const ReorderBody = z.object({ field_ids: z.array(z.string().min(1).max(128)).max(LIMITS.fields) }).strict();

export type ChangeFields =
  | { type: 'AddField'; fieldId: string; field: FieldInput; actorId: string }
  | { type: 'UpdateField'; fieldId: string; patch: FieldPatch; actorId: string }
  | { type: 'RemoveField'; fieldId: string; actorId: string }
  | { type: 'ReorderFields'; fieldIds: string[]; actorId: string };

export function decideChangeFields(command: ChangeFields, state: EventTypeState, now: Date): EventTypeEvent[] {
  const type = editableType(state);
  const at = now.toISOString();
  const by = command.actorId;
  const eventTypeId = type.id;
  const find = (id: string) => {
    const field = type.fields.find((f) => f.id === id);
    if (!field) throw new NotFound('Field not found');
    return field;
  };
  switch (command.type) {
    case 'AddField': {
      if (type.fields.some((f) => f.id === command.fieldId)) return [];
      if (type.fields.length >= LIMITS.fields) throw new Conflict(`An event type has at most ${LIMITS.fields} fields`);
      if (type.fields.some((f) => f.name === command.field.name))
        throw new Conflict(`The event type already has a field named "${command.field.name}"`);
      return [
        {
          type: 'EventTypeFieldAdded',
          data: { eventTypeId, field: fieldDefOf(command.fieldId, command.field), by, at },
        },
      ];
    }
    case 'UpdateField': {
      const field = find(command.fieldId);
      const next = patchedField(field, command.patch);
      if (next.type === 'select' && !next.options?.length)
        throw new ValidationFailed([
          { loc: ['body', 'options'], msg: 'a select field needs options', type: 'missing' },
        ]);
      if (command.patch.options && next.type !== 'select')
        throw new ValidationFailed([
          { loc: ['body', 'options'], msg: 'only select fields have options', type: 'not_allowed' },
        ]);
      if (next.name !== field.name && type.fields.some((f) => f.name === next.name))
        throw new Conflict(`The event type already has a field named "${next.name}"`);
      const structural =
        next.name !== field.name ||
        next.type !== field.type ||
        JSON.stringify(next.options) !== JSON.stringify(field.options);
      const refs = ruleReferencesTo(type, field.name);
      if (structural && refs.length > 0)
        throw new Conflict(`Field "${field.name}" is used by ${refs.join(', ')}; change those rules first`, {
          rules: refs,
        });
      if (JSON.stringify(next) === JSON.stringify(field)) return [];
      return [{ type: 'EventTypeFieldUpdated', data: { eventTypeId, field: next, by, at } }];
    }
    case 'RemoveField': {
      const field = find(command.fieldId);
      const refs = ruleReferencesTo(type, field.name);
      if (refs.length > 0)
        throw new Conflict(`Field "${field.name}" is used by ${refs.join(', ')}; change those rules first`, {
          rules: refs,
        });
      return [{ type: 'EventTypeFieldRemoved', data: { eventTypeId, fieldId: field.id, name: field.name, by, at } }];
    }
    case 'ReorderFields': {
      const current = type.fields.map((f) => f.id);
      const given = command.fieldIds;
      const permutation =
        given.length === current.length &&
        new Set(given).size === given.length &&
        given.every((id) => current.includes(id));
      if (!permutation)
        throw new ValidationFailed([
          {
            loc: ['body', 'field_ids'],
            msg: 'must list every field id of the event type exactly once',
            type: 'not_a_permutation',
          },
        ]);
      if (given.every((id, i) => id === current[i])) return [];
      return [{ type: 'EventTypeFieldsReordered', data: { eventTypeId, fieldIds: given, by, at } }];
    }
    default:
      return assertNever(command);
  }
}

export const changeFieldsDecider: Decider<ChangeFields, EventTypeState, EventTypeEvent> = {
  ...eventTypeAggregate,
  decide: decideChangeFields,
};

export async function changeFields(
  deps: PlatformDeps,
  context: CommandContext,
  eventTypeId: string,
  command: ChangeFields,
) {
  return deps.handle(changeFieldsDecider, eventTypeAggregate.stream(context.tenantId, eventTypeId), command, context);
}
