import type { Knex } from 'knex';
import { ENTITY_TYPES, RELATIONSHIP_RULES, RELATIONSHIP_TYPES } from '../../projections/graph/graph-schema';
import {
  ANY_LABEL,
  type EntityTypeDefinition,
  type RelationshipRuleDefinition,
  type RelationshipTypeDefinition,
} from '../../streams/graph/schema';

/** The configured graph schema as of the read model (entity types, relationship types, rules). */
export interface EntityTypeView extends EntityTypeDefinition {
  source: string;
  updated_at: string;
}
export interface RelationshipTypeView extends RelationshipTypeDefinition {
  source: string;
  updated_at: string;
}
export interface RelationshipRuleView extends RelationshipRuleDefinition {
  source: string;
}

const iso = (d: Date | string) => (d instanceof Date ? d.toISOString() : d);

export async function listEntityTypes(knex: Knex): Promise<EntityTypeView[]> {
  const rows = await knex(ENTITY_TYPES).select('definition', 'source', 'updated_at').orderBy('key');
  return rows.map((r) => ({ ...r.definition, source: r.source, updated_at: iso(r.updated_at) }));
}

/** By key (`well`) or label (`Well`). */
export async function findEntityType(knex: Knex, keyOrLabel: string): Promise<EntityTypeView | null> {
  const row = await knex(ENTITY_TYPES).where({ key: keyOrLabel }).orWhere({ label: keyOrLabel }).first();
  return row ? { ...row.definition, source: row.source, updated_at: iso(row.updated_at) } : null;
}

export async function listRelationshipTypes(knex: Knex): Promise<RelationshipTypeView[]> {
  const rows = await knex(RELATIONSHIP_TYPES).select('definition', 'source', 'updated_at').orderBy('key');
  return rows.map((r) => ({ ...r.definition, source: r.source, updated_at: iso(r.updated_at) }));
}

export async function findRelationshipType(knex: Knex, key: string): Promise<RelationshipTypeView | null> {
  const row = await knex(RELATIONSHIP_TYPES).where({ key }).first();
  return row ? { ...row.definition, source: row.source, updated_at: iso(row.updated_at) } : null;
}

export async function listRelationshipRules(
  knex: Knex,
  filter: { edge_label?: string; from_label?: string; to_label?: string } = {},
): Promise<RelationshipRuleView[]> {
  const query = knex(RELATIONSHIP_RULES)
    .select('id', 'edge_label', 'from_label', 'to_label', 'source')
    .orderBy(['edge_label', 'from_label', 'to_label']);
  if (filter.edge_label) query.where('edge_label', filter.edge_label);
  if (filter.from_label) query.whereIn('from_label', [filter.from_label, ANY_LABEL]);
  if (filter.to_label) query.whereIn('to_label', [filter.to_label, ANY_LABEL]);
  return query;
}

export async function findRelationshipRule(knex: Knex, id: string): Promise<RelationshipRuleView | null> {
  return (
    (await knex(RELATIONSHIP_RULES)
      .select('id', 'edge_label', 'from_label', 'to_label', 'source')
      .where({ id })
      .first()) ?? null
  );
}

export async function isVertexLabel(knex: Knex, label: string): Promise<boolean> {
  return Boolean(await knex(ENTITY_TYPES).where({ label }).first('key'));
}

export async function vertexLabels(knex: Knex): Promise<string[]> {
  return (await knex(ENTITY_TYPES).select('label').orderBy('label')).map((r) => r.label);
}

export async function edgeLabels(knex: Knex): Promise<string[]> {
  return (await knex(RELATIONSHIP_TYPES).select('key').orderBy('key')).map((r) => r.key);
}

/** What an edge write needs to know about its labels. */
export interface EdgeSchemaFacts {
  edgeLabelKnown: boolean;
  /** Rules of that edge label whose from side admits `fromLabel`, and to side `toLabel`. */
  fromAllowed: boolean;
  toAllowed: boolean;
  pairAllowed: boolean;
  allowedFrom: string[];
  allowedTo: string[];
}

export async function edgeSchemaFacts(
  knex: Knex,
  edgeLabel: string,
  fromLabel: string,
  toLabel: string,
): Promise<EdgeSchemaFacts> {
  const [type, rules] = await Promise.all([
    findRelationshipType(knex, edgeLabel),
    listRelationshipRules(knex, { edge_label: edgeLabel }),
  ]);
  const admits = (side: string, label: string) => side === ANY_LABEL || side === label;
  return {
    edgeLabelKnown: Boolean(type),
    fromAllowed: rules.some((r) => admits(r.from_label, fromLabel)),
    toAllowed: rules.some((r) => admits(r.to_label, toLabel)),
    pairAllowed: rules.some((r) => admits(r.from_label, fromLabel) && admits(r.to_label, toLabel)),
    allowedFrom: [...new Set(rules.map((r) => r.from_label))],
    allowedTo: [...new Set(rules.map((r) => r.to_label))],
  };
}

/** Per-label settings used by context assembly and impact analysis. */
export interface SchemaSettings {
  /** By label (`Well`). */
  entityTypes: Map<string, EntityTypeDefinition>;
  /** By key (`well`). */
  entityTypesByKey: Map<string, EntityTypeDefinition>;
  relationshipTypes: Map<string, RelationshipTypeDefinition>;
}

export async function schemaSettings(knex: Knex): Promise<SchemaSettings> {
  const [entities, relationships] = await Promise.all([
    knex(ENTITY_TYPES).select('label', 'definition'),
    knex(RELATIONSHIP_TYPES).select('key', 'definition'),
  ]);
  return {
    entityTypes: new Map(entities.map((r) => [r.label, r.definition])),
    entityTypesByKey: new Map(entities.map((r) => [r.definition.key, r.definition])),
    relationshipTypes: new Map(relationships.map((r) => [r.key, r.definition])),
  };
}

/** By key or label, as `entity_type_key` may name either. */
export const entityTypeIn = (settings: SchemaSettings, keyOrLabel: string) =>
  settings.entityTypesByKey.get(keyOrLabel) ?? settings.entityTypes.get(keyOrLabel) ?? null;

export type SchemaSettingsSource = () => Promise<SchemaSettings>;

/**
 * Context and impact read the schema on every request; this keeps the parsed settings and
 * re-reads them only when a one-row fingerprint of the tables (count and latest change of
 * each) moves, so a schema write is seen by the very next request.
 */
export function cachedSchemaSettings(knex: Knex): SchemaSettingsSource {
  let cached: { fingerprint: string; settings: SchemaSettings } | null = null;
  return async () => {
    const { rows } = await knex.raw(
      `SELECT (SELECT count(*) || '@' || coalesce(max(updated_at)::text, '') FROM ${ENTITY_TYPES}) || '|' ||
              (SELECT count(*) || '@' || coalesce(max(updated_at)::text, '') FROM ${RELATIONSHIP_TYPES}) AS fingerprint`,
    );
    const fingerprint = rows[0].fingerprint as string;
    if (cached?.fingerprint !== fingerprint) cached = { fingerprint, settings: await schemaSettings(knex) };
    return cached.settings;
  };
}
