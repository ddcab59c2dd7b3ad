import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { EventStore, Position, RecordedEvent } from '../eventstore/types';

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

const letterOf = (row: Record<string, any>): DeadLetter => ({
  id: String(row.id),
  projector: row.projector,
  position: { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) },
  eventId: row.event_id,
  stream: row.stream_id,
  type: row.event_type,
  error: row.error,
  attempts: Number(row.attempts),
  createdAt: row.created_at,
});

/** Unresolved dead letters in log order: one lane's (its checkpoint name) or every lane's, at most `limit`. */
export async function openDeadLetters(knex: Knex, projector?: string, limit?: number): Promise<DeadLetter[]> {
  const query = knex(DEAD_LETTERS_TABLE)
    .whereNull('resolved_at')
    .orderBy([{ column: 'commit_position' }, { column: 'prepare_position' }]);
  if (projector) query.where({ projector });
  if (limit !== undefined) query.limit(limit);
  const rows = await query;
  return rows.map(letterOf);
}

const MAX_BIGINT = 9_223_372_036_854_775_807n;

/** One dead letter by id, resolved or not; null when no row has that id. */
export async function findDeadLetter(
  knex: Knex,
  id: string,
): Promise<(DeadLetter & { resolvedAt: Date | null }) | null> {
  // The id column is a bigint: anything else names no row (and must not reach the query).
  if (!/^[1-9][0-9]{0,18}$/.test(id) || BigInt(id) > MAX_BIGINT) return null;
  const row = await knex(DEAD_LETTERS_TABLE).where({ id }).first();
  return row ? { ...letterOf(row), resolvedAt: row.resolved_at ? new Date(row.resolved_at) : null } : null;
}

/** Reads a dead letter's event back from the log; null when the log no longer holds it at that position. */
export async function deadLetterEvent(store: EventStore, letter: DeadLetter): Promise<RecordedEvent | null> {
  const [event] = await store.readAll({
    from: { commit: letter.position.commit, prepare: letter.position.prepare - 1n },
    limit: 1,
  });
  return event && event.id === letter.eventId ? event : null;
}

/** What retrying dead letters did: how many were resolved, and why each of the others was not. */
export interface RetryOutcome {
  resolved: number;
  remaining: number;
  failures: Array<{ id: string; error: string }>;
}

/**
 * Retries dead letters one by one: reads each event back from the log and hands it to
 * `handle`, which applies or reacts to it and marks the letter resolved (answering false when
 * another retry resolved it first). One that still fails stays open, unchanged. The one retry
 * loop behind `ops projections retry`, `ops reactors retry` and the System page's Retry.
 */
export async function retryLetters(
  store: EventStore,
  logger: Logger,
  letters: DeadLetter[],
  handle: (event: RecordedEvent, letter: DeadLetter) => Promise<boolean>,
): Promise<RetryOutcome> {
  const outcome: RetryOutcome = { resolved: 0, remaining: 0, failures: [] };
  for (const letter of letters) {
    const event = await deadLetterEvent(store, letter);
    if (!event) {
      outcome.remaining++;
      outcome.failures.push({ id: letter.id, error: 'the event is no longer in the log at its position' });
      continue;
    }
    try {
      if (await handle(event, letter)) outcome.resolved++;
    } catch (error) {
      const cause = (error as { cause?: unknown }).cause ?? error;
      outcome.remaining++;
      outcome.failures.push({ id: letter.id, error: String((cause as Error)?.message ?? cause).slice(0, 2000) });
      logger.warn({ err: cause, lane: letter.projector, eventId: event.id }, 'dead letter still fails');
    }
  }
  return outcome;
}

/** Projector names with unresolved dead letters (for /health). */
export async function degradedProjectors(knex: Knex): Promise<string[]> {
  const rows = await knex(DEAD_LETTERS_TABLE).whereNull('resolved_at').distinct('projector').orderBy('projector');
  return rows.map((r) => String(r.projector));
}

/** Marks a dead letter resolved; false when it already was (another retry came first). */
export async function resolveDeadLetter(trx: Knex, id: string): Promise<boolean> {
  const changed = await trx(DEAD_LETTERS_TABLE)
    .where({ id })
    .whereNull('resolved_at')
    .update({ resolved_at: trx.fn.now() });
  return changed > 0;
}

/** Takes the row lock of an open dead letter inside a retry's transaction; false when it is resolved already. */
export async function lockOpenDeadLetter(trx: Knex.Transaction, id: string): Promise<boolean> {
  const row = await trx(DEAD_LETTERS_TABLE).where({ id }).whereNull('resolved_at').forUpdate().first('id');
  return !!row;
}
