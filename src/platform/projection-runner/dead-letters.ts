import type { Knex } from 'knex';
import type { Position, RecordedEvent } from '../eventstore/types';

/**
 * Events a projector kept failing on. The lane records one here and moves on, so one bad
 * event cannot stall a read model; `ops projections retry <name>` applies them again after
 * a fix, and /health reports `degraded` while any is unresolved.
 */
export const DEAD_LETTERS_TABLE = 'projection_dead_letters';

export async function createDeadLettersTable(knex: Knex): Promise<void> {
  await knex.schema.createTable(DEAD_LETTERS_TABLE, (t) => {
    t.bigIncrements('id');
    t.text('projector').notNullable();
    t.bigint('commit_position').notNullable();
    t.bigint('prepare_position').notNullable();
    t.uuid('event_id').notNullable();
    t.text('stream_id').notNullable();
    t.text('event_type').notNullable();
    t.text('error').notNullable();
    t.integer('attempts').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('resolved_at', { useTz: true });
    t.unique(['projector', 'event_id']);
    t.index(['projector', 'resolved_at']);
  });
}

export interface DeadLetter {
  id: string;
  projector: string;
  position: Position;
  eventId: string;
  stream: string;
  type: string;
  error: string;
  attempts: number;
  createdAt: Date;
}

export async function recordDeadLetter(
  trx: Knex,
  projector: string,
  event: RecordedEvent,
  error: unknown,
  attempts: number,
): Promise<void> {
  await trx(DEAD_LETTERS_TABLE)
    .insert({
      projector,
      commit_position: event.position.commit.toString(),
      prepare_position: event.position.prepare.toString(),
      event_id: event.id,
      stream_id: event.stream,
      event_type: event.type,
      error: String((error as Error)?.message ?? error).slice(0, 2000),
      attempts,
    })
    .onConflict(['projector', 'event_id'])
    .merge({ error: String((error as Error)?.message ?? error).slice(0, 2000), attempts, resolved_at: null });
}

export async function openDeadLetters(knex: Knex, projector?: string): Promise<DeadLetter[]> {
  const query = knex(DEAD_LETTERS_TABLE)
    .whereNull('resolved_at')
    .orderBy([{ column: 'commit_position' }, { column: 'prepare_position' }]);
  if (projector) query.where({ projector });
  const rows = await query;
  return rows.map((row) => ({
    id: String(row.id),
    projector: row.projector,
    position: { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) },
    eventId: row.event_id,
    stream: row.stream_id,
    type: row.event_type,
    error: row.error,
    attempts: Number(row.attempts),
    createdAt: row.created_at,
  }));
}

/** Projector names with unresolved dead letters (for /health). */
export async function degradedProjectors(knex: Knex): Promise<string[]> {
  const rows = await knex(DEAD_LETTERS_TABLE).whereNull('resolved_at').distinct('projector').orderBy('projector');
  return rows.map((r) => String(r.projector));
}

export async function resolveDeadLetter(trx: Knex, id: string): Promise<void> {
  await trx(DEAD_LETTERS_TABLE).where({ id }).update({ resolved_at: trx.fn.now() });
}
