import type { Projector } from '../../src/platform/projection-runner/projector';
import { duplicationRulesAggregate, type DuplicationRule } from '../../streams/monitoring/duplication-rules';

/** Duplication rules for GET /duplication-rules (internal listener). */
export const DUPLICATION_RULES_TABLE = 'monitoring_duplication_rules';

/**
 * A rule as the columns of its row, `match_fields` still an array: the projector stores it
 * (as JSON) and the query maps a rule the write side just decided with it, so both read the
 * same row shape.
 */
export const duplicationRuleColumns = (r: DuplicationRule) => ({
  id: r.id,
  name: r.name,
  event_type_id: r.eventTypeId,
  match_fields: r.matchFields,
  window_seconds: r.windowSeconds,
  enabled: r.enabled,
  generation: r.generation,
  reset_at: r.resetAt,
  updated_by: r.updatedBy,
  updated_at: r.updatedAt,
});

const row = (tenantId: string, r: DuplicationRule) => ({
  tenant_id: tenantId,
  ...duplicationRuleColumns(r),
  match_fields: JSON.stringify(r.matchFields),
});

export const duplicationRulesProjector: Projector = {
  name: 'monitoring_duplication_rules',
  consistency: 'inline',
  version: 1,
  tables: [DUPLICATION_RULES_TABLE],
  eventTypes: duplicationRulesAggregate.eventTypes,
  async createTables(knex) {
    await knex.schema.createTable(DUPLICATION_RULES_TABLE, (t) => {
      t.text('tenant_id').notNullable();
      t.text('id').notNullable();
      t.text('name').notNullable();
      t.text('event_type_id');
      t.jsonb('match_fields').notNullable();
      t.integer('window_seconds').notNullable();
      t.boolean('enabled').notNullable();
      t.integer('generation').notNullable();
      t.timestamp('reset_at', { useTz: true });
      t.text('updated_by').notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.primary(['tenant_id', 'id']);
    });
  },
  async apply(trx, recorded) {
    const tenantId = recorded.metadata.tenantId;
    const event = duplicationRulesAggregate.read(recorded);
    switch (event.type) {
      case 'DuplicationRuleCreated':
      case 'DuplicationRuleUpdated':
        await trx(DUPLICATION_RULES_TABLE)
          .insert(row(tenantId, event.data.rule))
          .onConflict(['tenant_id', 'id'])
          .merge();
        return;
      case 'DuplicationRulesReset':
        await trx(DUPLICATION_RULES_TABLE)
          .where({ tenant_id: tenantId })
          .whereIn('id', event.data.ruleIds)
          .update({
            generation: trx.raw('generation + 1'),
            reset_at: event.data.at,
            updated_by: event.data.by,
            updated_at: event.data.at,
          });
        return;
    }
  },
};
