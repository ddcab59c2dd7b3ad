import type { Projector } from '../../src/platform/projection-runner/projector';
import { eventTypeAggregate, type EventTypeState, isLive } from '../../streams/monitoring/event-type';

/**
 * Event types as GET /event-types shows them: one row per live type holding its whole
 * definition (the same fold as the write side, so the view cannot drift from what POST
 * /events validates against), and every published guard-rule version.
 */
export const EVENT_TYPES_TABLE = 'monitoring_event_types';
export const GUARD_RULE_VERSIONS_TABLE = 'monitoring_guard_rule_versions';

export const eventTypesProjector: Projector = {
  name: 'monitoring_event_types',
  consistency: 'inline',
  version: 1,
  tables: [EVENT_TYPES_TABLE, GUARD_RULE_VERSIONS_TABLE],
  eventTypes: eventTypeAggregate.eventTypes,
  async createTables(knex) {
    await knex.schema.createTable(EVENT_TYPES_TABLE, (t) => {
      t.text('tenant_id').notNullable();
      t.text('id').notNullable();
      t.text('name').notNullable();
      t.text('category');
      t.text('status').notNullable();
      t.jsonb('definition').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.primary(['tenant_id', 'id']);
      t.index(['tenant_id', 'name']);
    });
    await knex.schema.createTable(GUARD_RULE_VERSIONS_TABLE, (t) => {
      t.text('tenant_id').notNullable();
      t.text('event_type_id').notNullable();
      t.text('rule_id').notNullable();
      t.integer('version').notNullable();
      t.text('name').notNullable();
      t.jsonb('definition').notNullable();
      t.text('published_by').notNullable();
      t.timestamp('published_at', { useTz: true }).notNullable();
      t.primary(['tenant_id', 'event_type_id', 'rule_id', 'version']);
    });
  },
  async apply(trx, recorded) {
    const tenantId = recorded.metadata.tenantId;
    const event = eventTypeAggregate.read(recorded);
    const id = event.data.eventTypeId;
    const row = await trx(EVENT_TYPES_TABLE).where({ tenant_id: tenantId, id }).first();
    const before: EventTypeState = row ? row.definition : eventTypeAggregate.initialState;
    const after = eventTypeAggregate.evolve(before, event);
    if (!isLive(after)) {
      await trx(EVENT_TYPES_TABLE).where({ tenant_id: tenantId, id }).delete();
      await trx(GUARD_RULE_VERSIONS_TABLE).where({ tenant_id: tenantId, event_type_id: id }).delete();
      return;
    }
    await trx(EVENT_TYPES_TABLE)
      .insert({
        tenant_id: tenantId,
        id,
        name: after.name,
        category: after.category,
        status: after.status,
        definition: JSON.stringify(after),
        created_at: after.createdAt,
        updated_at: after.updatedAt,
      })
      .onConflict(['tenant_id', 'id'])
      .merge();
    if (event.type === 'GuardRulePublished') {
      const d = event.data;
      await trx(GUARD_RULE_VERSIONS_TABLE)
        .insert({
          tenant_id: tenantId,
          event_type_id: id,
          rule_id: d.ruleId,
          version: d.version,
          name: d.name,
          definition: JSON.stringify(d.definition),
          published_by: d.by,
          published_at: d.at,
        })
        .onConflict(['tenant_id', 'event_type_id', 'rule_id', 'version'])
        .ignore();
    }
  },
};
