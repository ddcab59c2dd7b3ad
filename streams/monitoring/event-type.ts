import { z } from 'zod';
import { type Aggregate, eventReader, type EventsOf } from '../../src/platform/command-handling/aggregate';

/**
 * An operational event type:
 * its typed fields in display order, conditional (visibility) rules, guard rules with
 * published versions, and its lifecycle. One stream per tenant and type. The whole
 * definition is decision state because logging an event validates against all of it;
 * it stays bounded by the caps below.
 *
 * Lifecycle: draft → active → deprecated → retired, and deprecated → active (reinstated).
 * Only an active type accepts new events. A type is deleted (any state) only while no
 * event references it: the first logged event appends `EventTypeReferenced` to this
 * stream in the same atomic write, and since operational events are never deleted the
 * reference never goes away.
 */

export const FIELD_TYPES = ['number', 'select', 'text', 'date', 'datetime', 'boolean', 'entity_ref'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export const EVENT_TYPE_STATUSES = ['draft', 'active', 'deprecated', 'retired'] as const;
export type EventTypeStatus = (typeof EVENT_TYPE_STATUSES)[number];

/** Allowed lifecycle moves, from → to. */
export const TRANSITIONS: Record<EventTypeStatus, readonly EventTypeStatus[]> = {
  draft: ['active'],
  active: ['deprecated'],
  deprecated: ['active', 'retired'],
  retired: [],
};

export const LIMITS = { fields: 100, options: 200, conditionalRules: 100, guardRules: 100 } as const;

export const CONDITION_OPERATORS = [
  'equals',
  'not_equals',
  'in',
  'not_in',
  'gt',
  'gte',
  'lt',
  'lte',
  'is_set',
  'is_not_set',
] as const;
export const GUARD_OPERATORS = [
  'equals',
  'not_equals',
  'in',
  'not_in',
  'gt',
  'gte',
  'lt',
  'lte',
  'required',
  'min_length',
  'max_length',
  'not_in_future',
] as const;

const Value = z.union([z.string(), z.number(), z.boolean(), z.array(z.union([z.string(), z.number()]))]).nullable();

export const FieldDefSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(FIELD_TYPES),
  required: z.boolean(),
  options: z.array(z.string()).nullable(),
  label: z.string().nullable(),
  description: z.string().nullable(),
  /** entity_ref only: the graph label the referenced entity should carry, when given. */
  entityType: z.string().nullable(),
});
export type FieldDef = z.infer<typeof FieldDefSchema>;

export const ConditionSchema = z.object({ field: z.string(), operator: z.enum(CONDITION_OPERATORS), value: Value });
export type Condition = z.infer<typeof ConditionSchema>;

export const ConditionalRuleSchema = z.object({
  id: z.string(),
  /** The field shown or hidden. */
  field: z.string(),
  effect: z.enum(['show', 'hide']),
  when: ConditionSchema,
  description: z.string().nullable(),
});
export type ConditionalRule = z.infer<typeof ConditionalRuleSchema>;

export const GuardDefinitionSchema = z.object({
  field: z.string(),
  operator: z.enum(GUARD_OPERATORS),
  value: Value,
  message: z.string().nullable(),
  /** The guard applies only when this holds (absent: always). */
  when: ConditionSchema.nullable(),
  enabled: z.boolean(),
});
export type GuardDefinition = z.infer<typeof GuardDefinitionSchema>;

export const GuardRuleSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** What PATCH edits; takes effect only when published. */
  draft: GuardDefinitionSchema,
  /** 0 until first published. */
  publishedVersion: z.number().int(),
  published: GuardDefinitionSchema.nullable(),
});
export type GuardRule = z.infer<typeof GuardRuleSchema>;

const Meta = { by: z.string(), at: z.string() };

export const EventTypeEventSchemas = {
  EventTypeCreated: z.object({
    eventTypeId: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    category: z.string().nullable(),
    complianceDomain: z.string().nullable(),
    anomalyKind: z.string().nullable(),
    fields: z.array(FieldDefSchema),
    ...Meta,
  }),
  EventTypeUpdated: z.object({
    eventTypeId: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    category: z.string().nullable(),
    complianceDomain: z.string().nullable(),
    anomalyKind: z.string().nullable(),
    ...Meta,
  }),
  EventTypeTransitioned: z.object({
    eventTypeId: z.string(),
    from: z.enum(EVENT_TYPE_STATUSES),
    to: z.enum(EVENT_TYPE_STATUSES),
    ...Meta,
  }),
  EventTypeDeleted: z.object({ eventTypeId: z.string(), name: z.string(), ...Meta }),
  EventTypeReferenced: z.object({ eventTypeId: z.string(), eventId: z.string(), at: z.string() }),
  EventTypeFieldAdded: z.object({ eventTypeId: z.string(), field: FieldDefSchema, ...Meta }),
  EventTypeFieldUpdated: z.object({ eventTypeId: z.string(), field: FieldDefSchema, ...Meta }),
  EventTypeFieldRemoved: z.object({ eventTypeId: z.string(), fieldId: z.string(), name: z.string(), ...Meta }),
  EventTypeFieldsReordered: z.object({ eventTypeId: z.string(), fieldIds: z.array(z.string()), ...Meta }),
  ConditionalRuleAdded: z.object({ eventTypeId: z.string(), rule: ConditionalRuleSchema, ...Meta }),
  ConditionalRuleUpdated: z.object({ eventTypeId: z.string(), rule: ConditionalRuleSchema, ...Meta }),
  ConditionalRuleDeleted: z.object({ eventTypeId: z.string(), ruleId: z.string(), ...Meta }),
  GuardRuleAdded: z.object({
    eventTypeId: z.string(),
    ruleId: z.string(),
    name: z.string(),
    draft: GuardDefinitionSchema,
    ...Meta,
  }),
  GuardRuleUpdated: z.object({
    eventTypeId: z.string(),
    ruleId: z.string(),
    name: z.string(),
    draft: GuardDefinitionSchema,
    ...Meta,
  }),
  GuardRulePublished: z.object({
    eventTypeId: z.string(),
    ruleId: z.string(),
    name: z.string(),
    version: z.number().int(),
    definition: GuardDefinitionSchema,
    ...Meta,
  }),
};

export type EventTypeEvent = EventsOf<typeof EventTypeEventSchemas>;
export const readEventTypeEvent = eventReader('event type', EventTypeEventSchemas);

export interface EventTypeDefinition {
  id: string;
  name: string;
  description: string | null;
  category: string | null;
  /**
   * A compliance domain key (`rule_32` for flaring, `production` for SCADA readings…):
   * every event logged with this type is a compliance anomaly for that domain.
   */
  complianceDomain: string | null;
  anomalyKind: string | null;
  fields: FieldDef[];
  conditionalRules: ConditionalRule[];
  guardRules: GuardRule[];
  referenced: boolean;
  createdAt: string;
  createdBy: string;
  updatedAt: string;
}

export type EventTypeState =
  { status: 'none' } | ({ status: EventTypeStatus } & EventTypeDefinition) | { status: 'deleted'; id: string };

export type LiveEventType = Extract<EventTypeState, { fields: FieldDef[] }>;

export const isLive = (state: EventTypeState): state is LiveEventType =>
  state.status !== 'none' && state.status !== 'deleted';

export function evolveEventType(state: EventTypeState, event: EventTypeEvent): EventTypeState {
  if (event.type === 'EventTypeCreated') {
    const d = event.data;
    return {
      status: 'draft',
      id: d.eventTypeId,
      name: d.name,
      description: d.description,
      category: d.category,
      complianceDomain: d.complianceDomain,
      anomalyKind: d.anomalyKind,
      fields: d.fields,
      conditionalRules: [],
      guardRules: [],
      referenced: false,
      createdAt: d.at,
      createdBy: d.by,
      updatedAt: d.at,
    };
  }
  if (!isLive(state)) return state;
  const touched = { ...state, updatedAt: 'at' in event.data ? event.data.at : state.updatedAt };
  switch (event.type) {
    case 'EventTypeUpdated': {
      const { name, description, category, complianceDomain, anomalyKind } = event.data;
      return { ...touched, name, description, category, complianceDomain, anomalyKind };
    }
    case 'EventTypeTransitioned':
      return { ...touched, status: event.data.to };
    case 'EventTypeDeleted':
      return { status: 'deleted', id: state.id };
    case 'EventTypeReferenced':
      return { ...state, referenced: true };
    case 'EventTypeFieldAdded':
      return { ...touched, fields: [...state.fields, event.data.field] };
    case 'EventTypeFieldUpdated':
      return { ...touched, fields: state.fields.map((f) => (f.id === event.data.field.id ? event.data.field : f)) };
    case 'EventTypeFieldRemoved':
      return { ...touched, fields: state.fields.filter((f) => f.id !== event.data.fieldId) };
    case 'EventTypeFieldsReordered': {
      const byId = new Map(state.fields.map((f) => [f.id, f]));
      return {
        ...touched,
        fields: event.data.fieldIds.map((id) => byId.get(id)).filter((f): f is FieldDef => f !== undefined),
      };
    }
    case 'ConditionalRuleAdded':
      return { ...touched, conditionalRules: [...state.conditionalRules, event.data.rule] };
    case 'ConditionalRuleUpdated':
      return {
        ...touched,
        conditionalRules: state.conditionalRules.map((r) => (r.id === event.data.rule.id ? event.data.rule : r)),
      };
    case 'ConditionalRuleDeleted':
      return { ...touched, conditionalRules: state.conditionalRules.filter((r) => r.id !== event.data.ruleId) };
    case 'GuardRuleAdded':
      return {
        ...touched,
        guardRules: [
          ...state.guardRules,
          {
            id: event.data.ruleId,
            name: event.data.name,
            draft: event.data.draft,
            publishedVersion: 0,
            published: null,
          },
        ],
      };
    case 'GuardRuleUpdated':
      return {
        ...touched,
        guardRules: state.guardRules.map((r) =>
          r.id === event.data.ruleId ? { ...r, name: event.data.name, draft: event.data.draft } : r,
        ),
      };
    case 'GuardRulePublished':
      return {
        ...touched,
        guardRules: state.guardRules.map((r) =>
          r.id === event.data.ruleId
            ? { ...r, name: event.data.name, publishedVersion: event.data.version, published: event.data.definition }
            : r,
        ),
      };
  }
}

export const eventTypeAggregate: Aggregate<EventTypeState, EventTypeEvent> = {
  stream: (tenantId, id) => `monitoring.event-type-${tenantId}-${id}`,
  eventTypes: Object.keys(EventTypeEventSchemas) as EventTypeEvent['type'][],
  initialState: { status: 'none' },
  evolve: evolveEventType,
  read: readEventTypeEvent,
};

/** Names of fields that rules point at, with the rules that do (a field in use cannot be renamed or removed). */
export function ruleReferencesTo(state: LiveEventType, fieldName: string): string[] {
  const refs: string[] = [];
  for (const r of state.conditionalRules)
    if (r.field === fieldName || r.when.field === fieldName) refs.push(`conditional rule ${r.id}`);
  for (const g of state.guardRules) {
    for (const d of [g.draft, g.published]) {
      if (d && (d.field === fieldName || d.when?.field === fieldName)) {
        refs.push(`guard rule "${g.name}"`);
        break;
      }
    }
  }
  return refs;
}
