import { z } from 'zod';
import type { RecordedEvent } from '../../src/platform/eventstore/types';

/**
 * Run-time configuration of the graph: which vertex labels exist (entity types), which edge
 * labels exist (relationship types) and which endpoints an edge label joins (rules). The
 * shipped vertical is installed as one event; later changes are per-item streams on top.
 */
export const EntityTypeDefinition = z.object({
  key: z
    .string()
    .max(64)
    .regex(/^[a-z][a-z0-9_]{0,63}$/, 'lower snake case, 1-64 characters'),
  label: z
    .string()
    .max(64)
    .regex(/^[A-Z][A-Za-z0-9]{0,63}$/, 'PascalCase, 1-64 characters'),
  display_name: z.string().min(1).max(200),
  description: z.string().max(2000).default(''),
  /** Property names callers may expect (documentation and context ordering; not enforced). */
  properties: z.array(z.string().min(1).max(100)).max(200).default([]),
  /** Shown as key fields in model-facing context; the rest are plain fields. */
  significant_fields: z.array(z.string().min(1).max(100)).max(100).default([]),
  /** The context-assembly section its vertices fall in (domain tags select sections). */
  context_section: z
    .string()
    .max(64)
    .regex(/^[a-z][a-z0-9_]{0,63}$/)
    .default('other'),
  /** Impact analysis reports such a vertex but does not walk through it (operators, regulations, fields: hubs). */
  impact_terminal: z.boolean().default(false),
});
export type EntityTypeDefinition = z.infer<typeof EntityTypeDefinition>;

export const RelationshipTypeDefinition = z.object({
  key: z
    .string()
    .max(64)
    .regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'UPPER_SNAKE_CASE, 1-64 characters'),
  display_name: z.string().min(1).max(200),
  description: z.string().max(2000).default(''),
  /** Overrides the neighbor's section in context assembly (OFFSET_TO → offsets). */
  context_section: z
    .string()
    .max(64)
    .regex(/^[a-z][a-z0-9_]{0,63}$/)
    .nullable()
    .default(null),
  /** Part of the physical infrastructure tree (/impact/tree walks only these). */
  infrastructure: z.boolean().default(false),
});
export type RelationshipTypeDefinition = z.infer<typeof RelationshipTypeDefinition>;

export const ANY_LABEL = '*';
export const RelationshipRuleDefinition = z.object({
  id: z.string().min(1).max(100),
  edge_label: z.string().min(1).max(64),
  from_label: z.string().min(1).max(64),
  to_label: z.string().min(1).max(64),
});
export type RelationshipRuleDefinition = z.infer<typeof RelationshipRuleDefinition>;

export type SchemaEvent =
  | {
      type: 'GraphVerticalInstalled';
      data: {
        vertical: string;
        version: number;
        entityTypes: EntityTypeDefinition[];
        relationshipTypes: RelationshipTypeDefinition[];
        relationshipRules: RelationshipRuleDefinition[];
      };
    }
  | { type: 'EntityTypeDefined'; data: { definition: EntityTypeDefinition } }
  | { type: 'EntityTypeChanged'; data: { definition: EntityTypeDefinition } }
  | { type: 'EntityTypeRemoved'; data: { key: string; label: string } }
  | { type: 'RelationshipTypeDefined'; data: { definition: RelationshipTypeDefinition } }
  | { type: 'RelationshipTypeChanged'; data: { definition: RelationshipTypeDefinition } }
  | { type: 'RelationshipTypeRemoved'; data: { key: string } }
  | { type: 'RelationshipRuleAdded'; data: { rule: RelationshipRuleDefinition } }
  | { type: 'RelationshipRuleRemoved'; data: { id: string } };

export const SCHEMA_EVENT_TYPES = [
  'GraphVerticalInstalled',
  'EntityTypeDefined',
  'EntityTypeChanged',
  'EntityTypeRemoved',
  'RelationshipTypeDefined',
  'RelationshipTypeChanged',
  'RelationshipTypeRemoved',
  'RelationshipRuleAdded',
  'RelationshipRuleRemoved',
] as const;

const schemas: Record<SchemaEvent['type'], z.ZodTypeAny> = {
  GraphVerticalInstalled: z.object({
    vertical: z.string(),
    version: z.number(),
    entityTypes: z.array(EntityTypeDefinition),
    relationshipTypes: z.array(RelationshipTypeDefinition),
    relationshipRules: z.array(RelationshipRuleDefinition),
  }),
  EntityTypeDefined: z.object({ definition: EntityTypeDefinition }),
  EntityTypeChanged: z.object({ definition: EntityTypeDefinition }),
  EntityTypeRemoved: z.object({ key: z.string(), label: z.string() }),
  RelationshipTypeDefined: z.object({ definition: RelationshipTypeDefinition }),
  RelationshipTypeChanged: z.object({ definition: RelationshipTypeDefinition }),
  RelationshipTypeRemoved: z.object({ key: z.string() }),
  RelationshipRuleAdded: z.object({ rule: RelationshipRuleDefinition }),
  RelationshipRuleRemoved: z.object({ id: z.string() }),
};

export function readSchemaEvent(event: RecordedEvent): SchemaEvent {
  const schema = schemas[event.type as SchemaEvent['type']];
  if (!schema) throw new Error(`not a graph schema event: ${event.type}`);
  return { type: event.type, data: schema.parse(event.data) } as SchemaEvent;
}

/**
 * State of one configured item's stream. Items installed with the vertical have no stream
 * until first changed; commands then carry the read model's definition as `known`.
 */
export type ConfigItemState<D> = { status: 'none' } | { status: 'defined'; definition: D } | { status: 'removed' };

export function evolveConfigItem<D>(state: ConfigItemState<D>, event: SchemaEvent): ConfigItemState<D> {
  switch (event.type) {
    case 'EntityTypeDefined':
    case 'EntityTypeChanged':
    case 'RelationshipTypeDefined':
    case 'RelationshipTypeChanged':
      return { status: 'defined', definition: event.data.definition as D };
    case 'RelationshipRuleAdded':
      return { status: 'defined', definition: event.data.rule as D };
    case 'EntityTypeRemoved':
    case 'RelationshipTypeRemoved':
    case 'RelationshipRuleRemoved':
      return { status: 'removed' };
    default:
      return state;
  }
}

export function itemAsKnown<D>(state: ConfigItemState<D>, known: D | null | undefined): ConfigItemState<D> {
  return state.status === 'none' && known ? { status: 'defined', definition: known } : state;
}

export const configItemAggregate = { evolve: evolveConfigItem, read: readSchemaEvent };
