import type { Projector } from '../../src/platform/projection-runner/projector';
import { COMPLIANCE_ANOMALY_FLAGGED } from '../../src/platform/published/anomaly-flagged';
import { operationalEventAggregate } from '../../streams/monitoring/operational-event';

/**
 * Logged operational events for GET /events (filters on entity, type and time, paging)
 * and correlation, plus one history row per version for `?history=true`.
 */
export const EVENTS_TABLE = 'monitoring_events';
export const EVENT_HISTORY_TABLE = 'monitoring_event_history';

const EVENT_STREAM_PREFIX = 'monitoring.event-';

export const operationalEventsProjector: Projector = {
  name: 'monitoring_operational_events',
  consistency: 'inline',
  version: 1,
  tables: [EVENTS_TABLE, EVENT_HISTORY_TABLE],
  eventTypes: operationalEventAggregate.eventTypes,
  async createTables(knex) {
    await knex.schema.createTable(EVENTS_TABLE, (t) => {
      t.text('tenant_id').notNullable();
      t.text('id').notNullable();
      t.text('event_type_id').notNullable();
      t.text('entity_id').notNullable();
      t.text('entity_type').notNullable();
      t.timestamp('occurred_at', { useTz: true }).notNullable();
      t.jsonb('fields').notNullable();
      t.integer('version').notNullable();
      t.boolean('anomaly_flagged').notNullable().defaultTo(false);
      t.text('logged_by').notNullable();
      t.timestamp('logged_at', { useTz: true }).notNullable();
      t.text('updated_by').notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.primary(['tenant_id', 'id']);
      t.index(['tenant_id', 'occurred_at']);
      t.index(['tenant_id', 'entity_id', 'occurred_at']);
      t.index(['tenant_id', 'event_type_id', 'occurred_at']);
    });
    await knex.schema.createTable(EVENT_HISTORY_TABLE, (t) => {
      t.text('tenant_id').notNullable();
      t.text('event_id').notNullable();
      t.integer('version').notNullable();
      t.text('action').notNullable();
      t.jsonb('changes').notNullable();
      t.jsonb('snapshot').notNullable();
      t.text('changed_by').notNullable();
      t.timestamp('changed_at', { useTz: true }).notNullable();
      t.primary(['tenant_id', 'event_id', 'version']);
    });
  },
  async apply(trx, recorded) {
    // ComplianceAnomalyFlagged is shared with other contexts: only this context's streams count here.
    if (!recorded.stream.startsWith(EVENT_STREAM_PREFIX)) return;
    const tenantId = recorded.metadata.tenantId;
    const event = operationalEventAggregate.read(recorded);
    switch (event.type) {
      case 'OperationalEventLogged': {
        const d = event.data;
        const snapshot = {
          event_type_id: d.eventTypeId,
          entity_id: d.entityId,
          entity_type: d.entityType,
          occurred_at: d.occurredAt,
          fields: d.fields,
        };
        // The row and its first history version in one statement (one round trip per event logged).
        await trx
          .raw(
            `WITH logged AS (
               INSERT INTO ${EVENTS_TABLE} (tenant_id, id, event_type_id, entity_id, entity_type, occurred_at, fields, version, logged_by, logged_at, updated_by, updated_at)
               VALUES (:tenantId, :eventId, :eventTypeId, :entityId, :entityType, :occurredAt, :fields, 1, :by, :at, :by, :at)
               ON CONFLICT (tenant_id, id) DO NOTHING)
             INSERT INTO ${EVENT_HISTORY_TABLE} (tenant_id, event_id, version, action, changes, snapshot, changed_by, changed_at)
             VALUES (:tenantId, :eventId, 1, 'logged', '[]', :snapshot, :by, :at)
             ON CONFLICT (tenant_id, event_id, version) DO NOTHING`,
            {
              tenantId,
              eventId: d.eventId,
              eventTypeId: d.eventTypeId,
              entityId: d.entityId,
              entityType: d.entityType,
              occurredAt: d.occurredAt,
              fields: JSON.stringify(d.fields),
              by: d.by,
              at: d.at,
              snapshot: JSON.stringify(snapshot),
            },
          )
          .options({ name: 'monitoring-event-logged' });
        return;
      }
      case 'OperationalEventUpdated': {
        const d = event.data;
        const snapshot = {
          event_type_id: d.eventTypeId,
          entity_id: d.entityId,
          entity_type: d.entityType,
          occurred_at: d.occurredAt,
          fields: d.fields,
        };
        await trx(EVENTS_TABLE)
          .where({ tenant_id: tenantId, id: d.eventId })
          .update({
            entity_id: d.entityId,
            entity_type: d.entityType,
            occurred_at: d.occurredAt,
            fields: JSON.stringify(d.fields),
            version: d.version,
            updated_by: d.by,
            updated_at: d.at,
          });
        await trx(EVENT_HISTORY_TABLE)
          .insert({
            tenant_id: tenantId,
            event_id: d.eventId,
            version: d.version,
            action: 'updated',
            changes: JSON.stringify(d.changes),
            snapshot: JSON.stringify(snapshot),
            changed_by: d.by,
            changed_at: d.at,
          })
          .onConflict(['tenant_id', 'event_id', 'version'])
          .ignore();
        return;
      }
      case COMPLIANCE_ANOMALY_FLAGGED: {
        const eventId = recorded.stream.slice(`${EVENT_STREAM_PREFIX}${tenantId}-`.length);
        await trx(EVENTS_TABLE).where({ tenant_id: tenantId, id: eventId }).update({ anomaly_flagged: true });
        return;
      }
    }
  },
};
