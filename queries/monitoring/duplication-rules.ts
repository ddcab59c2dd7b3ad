import type { Knex } from 'knex';
import { duplicationRuleColumns, DUPLICATION_RULES_TABLE } from '../../projections/monitoring/duplication-rules';
import type { DuplicationRule } from '../../streams/monitoring/duplication-rules';

const view = (r: any) => ({
  id: r.id,
  name: r.name,
  event_type_id: r.event_type_id,
  match_fields: r.match_fields,
  window_seconds: r.window_seconds,
  enabled: r.enabled,
  generation: r.generation,
  reset_at: r.reset_at ? new Date(r.reset_at).toISOString() : null,
  updated_by: r.updated_by,
  updated_at: new Date(r.updated_at).toISOString(),
});

export async function listDuplicationRules(knex: Knex, tenantId: string) {
  return (
    await knex(DUPLICATION_RULES_TABLE)
      .where({ tenant_id: tenantId })
      .orderBy([{ column: 'name' }, { column: 'id' }])
  ).map(view);
}

export async function findDuplicationRule(knex: Knex, tenantId: string, id: string) {
  const row = await knex(DUPLICATION_RULES_TABLE).where({ tenant_id: tenantId, id }).first();
  return row ? view(row) : null;
}

/** The same view from the write side's state (a write answers without waiting on the read model). */
export const duplicationRuleViewOf = (r: DuplicationRule) => view(duplicationRuleColumns(r));
