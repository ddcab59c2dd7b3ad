import type { Knex } from 'knex';
import { EVENT_TYPES_TABLE, GUARD_RULE_VERSIONS_TABLE } from '../../projections/monitoring/event-types';
import type {
  ConditionalRule,
  FieldDef,
  GuardDefinition,
  GuardRule,
  LiveEventType,
} from '../../streams/monitoring/event-type';

/** Event types, fields and rules as the /event-types routes return them (snake_case). */

export const fieldView = (f: FieldDef) => ({
  id: f.id,
  name: f.name,
  type: f.type,
  required: f.required,
  options: f.options,
  label: f.label,
  description: f.description,
  entity_type: f.entityType,
});

export const conditionalRuleView = (r: ConditionalRule) => ({
  id: r.id,
  field: r.field,
  effect: r.effect,
  when: r.when,
  description: r.description,
});

const guardDefinitionView = (d: GuardDefinition) => ({
  field: d.field,
  operator: d.operator,
  value: d.value,
  message: d.message,
  when: d.when,
  enabled: d.enabled,
});

export const guardRuleView = (r: GuardRule) => ({
  id: r.id,
  name: r.name,
  draft: guardDefinitionView(r.draft),
  published_version: r.publishedVersion,
  published: r.published ? guardDefinitionView(r.published) : null,
  has_unpublished_changes: r.published === null || JSON.stringify(r.published) !== JSON.stringify(r.draft),
});

export function eventTypeView(t: LiveEventType) {
  return {
    id: t.id,
    name: t.name,
    description: t.description,
    category: t.category,
    status: t.status,
    compliance_domain: t.complianceDomain,
    anomaly_kind: t.anomalyKind,
    fields: t.fields.map(fieldView),
    conditional_rules: t.conditionalRules.map(conditionalRuleView),
    guard_rules: t.guardRules.map(guardRuleView),
    in_use: t.referenced,
    created_by: t.createdBy,
    created_at: t.createdAt,
    updated_at: t.updatedAt,
  };
}
export type EventTypeView = ReturnType<typeof eventTypeView>;

export async function findEventType(knex: Knex, tenantId: string, id: string): Promise<LiveEventType | null> {
  const row = await knex(EVENT_TYPES_TABLE).where({ tenant_id: tenantId, id }).first('definition');
  return row ? (row.definition as LiveEventType) : null;
}

export async function listEventTypes(
  knex: Knex,
  tenantId: string,
  filter: { status?: string; category?: string },
): Promise<LiveEventType[]> {
  const q = knex(EVENT_TYPES_TABLE)
    .where({ tenant_id: tenantId })
    .select('definition')
    .orderBy([{ column: 'name' }, { column: 'id' }]);
  if (filter.status) q.andWhere({ status: filter.status });
  if (filter.category) q.andWhere({ category: filter.category });
  return (await q).map((r) => r.definition as LiveEventType);
}

export async function guardRuleVersions(knex: Knex, tenantId: string, eventTypeId: string, ruleId: string) {
  const rows = await knex(GUARD_RULE_VERSIONS_TABLE)
    .where({ tenant_id: tenantId, event_type_id: eventTypeId, rule_id: ruleId })
    .orderBy('version');
  return rows.map((r) => ({
    version: r.version,
    name: r.name,
    definition: r.definition,
    published_by: r.published_by,
    published_at: new Date(r.published_at).toISOString(),
  }));
}
