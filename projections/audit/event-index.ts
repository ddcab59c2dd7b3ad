import type { Knex } from 'knex';
import type { RecordedEvent } from '../../src/platform/eventstore/types';
import type { Projector } from '../../src/platform/projection-runner/projector';

/**
 * The audit review's index of the log: one row per event with who (actor), why (correlation
 * id), when, where (stream, revision) and the event's log position, so "everything Ann did"
 * or "everything request X caused" is an indexed, keyset-paged query. The events themselves
 * (data, signatures) are read back from the store; this table holds no payloads.
 */
export const AUDIT_INDEX_TABLE = 'audit_event_index';

export interface AuditIndexRow {
  commit: string;
  prepare: string;
  tenant_id: string;
  stream: string;
  revision: string;
  type: string;
  actor_id: string;
  correlation_id: string;
  recorded_at: Date;
}

const rowOf = (e: RecordedEvent) => ({
  commit: e.position.commit.toString(),
  prepare: e.position.prepare.toString(),
  tenant_id: String(e.metadata.tenantId ?? ''),
  stream: e.stream,
  revision: e.revision.toString(),
  event_id: e.id,
  type: e.type,
  actor_id: String(e.metadata.actorId ?? ''),
  correlation_id: String(e.metadata.correlationId ?? ''),
  recorded_at: e.recordedAt,
});

export const auditEventIndexProjector: Projector = {
  name: 'audit_event_index',
  version: 1,
  // Every event of every command lands here: waiting for it would put the busiest lane on
  // every command's path. The review routes catch up with the log before they read.
  consistency: 'eventual',
  tables: [AUDIT_INDEX_TABLE],
  async createTables(knex: Knex) {
    await knex.schema.createTable(AUDIT_INDEX_TABLE, (t) => {
      t.bigInteger('commit').notNullable();
      t.bigInteger('prepare').notNullable();
      t.text('tenant_id').notNullable();
      t.text('stream').notNullable();
      t.bigInteger('revision').notNullable();
      t.uuid('event_id').notNullable();
      t.text('type').notNullable();
      t.text('actor_id').notNullable();
      t.text('correlation_id').notNullable();
      t.timestamp('recorded_at', { useTz: true }).notNullable();
      t.primary(['commit', 'prepare']);
      t.index(['tenant_id', 'commit', 'prepare'], 'audit_index_tenant');
      t.index(['tenant_id', 'actor_id', 'commit', 'prepare'], 'audit_index_actor');
      t.index(['tenant_id', 'correlation_id'], 'audit_index_correlation');
      t.index(['stream', 'revision'], 'audit_index_stream');
      t.index(['tenant_id', 'recorded_at'], 'audit_index_time');
    });
  },
  async apply(trx, event) {
    await trx(AUDIT_INDEX_TABLE).insert(rowOf(event)).onConflict(['commit', 'prepare']).ignore();
  },
  async applyBatch(trx, events) {
    for (let i = 0; i < events.length; i += 1000) {
      await trx(AUDIT_INDEX_TABLE)
        .insert(events.slice(i, i + 1000).map(rowOf))
        .onConflict(['commit', 'prepare'])
        .ignore();
    }
  },
};
