import type { Knex } from 'knex';
import type { PoolClient } from 'pg';
import type { Position, RecordedEvent } from '../eventstore/types';
import { CHECKPOINTS_TABLE } from './checkpoints';

/**
 * Events of an inline projector appended without applying it (docs/runtime.md, "Rolling
 * deploys"): the instance that appended them runs another version of the projector than its
 * tables stand at, or had not attached it yet. The leader, which runs the projector at the
 * tables' version, applies them in log order and deletes the rows in one transaction.
 */
export const INLINE_GAPS_TABLE = 'inline_projection_gaps';

/**
 * Takes the inline projectors' transaction locks and answers which of those this appender
 * runs it must record as gaps rather than apply: those with gaps still to drain, and those
 * whose tables another version stands at now. An appender that applies a projector takes its
 * lock shared, one that records gaps for it exclusive, before either writes an event: so a gap
 * row is committed or absent when an applier looks, and an applier that saw none holds back
 * every recorder until it commits (its events then sort before theirs). Locks are taken in
 * name order, so two appenders never wait on each other in a cycle. A stored version changes
 * only under the exclusive lock (a rebuild's swap), so it is read again once the locks are
 * held; one that changed meanwhile upgrades its lock. In PL/pgSQL each query takes its own
 * snapshot: the last one sees every gap committed while this one waited.
 */
const OPEN_FUNCTION = 'inline_projection_gaps_open';

/** The advisory lock key of an inline projector: hashtextextended('inline:' || name, INLINE_LOCK_SEED). */
const INLINE_LOCK_SEED = 7212;

/**
 * The function's SQL. `shortPath` adds, ahead of the general one, the path of the usual
 * append (one projector, applied at its tables' version, no gap): three single-row statements
 * where the general path's set queries cost about three times as much of the server's time
 * (docs/runtime.md, "Rolling deploys"). The version is read before the shared lock is taken,
 * so an instance of another version goes straight to the general path's exclusive lock rather
 * than upgrading a shared one (two such appenders upgrading at once would deadlock); it is
 * read again once the lock is held, and any doubt goes to the general path.
 */
function openFunction(shortPath: boolean): string {
  const short = `
      IF cardinality(recorded_names) = 0 AND cardinality(applied_names) = 1 AND EXISTS (
        SELECT 1 FROM ${CHECKPOINTS_TABLE} c WHERE c.name = applied_names[1] AND c.version = applied_versions[1]) THEN
        PERFORM pg_advisory_xact_lock_shared(hashtextextended('inline:' || applied_names[1], ${INLINE_LOCK_SEED}));
        IF EXISTS (SELECT 1 FROM ${CHECKPOINTS_TABLE} c WHERE c.name = applied_names[1] AND c.version = applied_versions[1])
          AND NOT EXISTS (SELECT 1 FROM ${INLINE_GAPS_TABLE} g WHERE g.projector = applied_names[1]) THEN
          RETURN '{}';
        END IF;
      END IF;`;
  return `
    CREATE OR REPLACE FUNCTION ${OPEN_FUNCTION}(applied_names text[], applied_versions int[], recorded_names text[])
    RETURNS text[] LANGUAGE plpgsql VOLATILE AS $$
    DECLARE
      n text;
      held text[];
    BEGIN${shortPath ? short : ''}
      held := recorded_names || ARRAY(
        SELECT a.name FROM unnest(applied_names, applied_versions) AS a(name, version)
        LEFT JOIN ${CHECKPOINTS_TABLE} c ON c.name = a.name WHERE c.version IS DISTINCT FROM a.version);
      FOR n IN SELECT DISTINCT x FROM unnest(applied_names || recorded_names) AS x ORDER BY x LOOP
        IF n = ANY(held) THEN
          PERFORM pg_advisory_xact_lock(hashtextextended('inline:' || n, ${INLINE_LOCK_SEED}));
        ELSE
          PERFORM pg_advisory_xact_lock_shared(hashtextextended('inline:' || n, ${INLINE_LOCK_SEED}));
        END IF;
      END LOOP;
      FOR n IN SELECT a.name FROM unnest(applied_names, applied_versions) AS a(name, version)
        LEFT JOIN ${CHECKPOINTS_TABLE} c ON c.name = a.name
        WHERE c.version IS DISTINCT FROM a.version AND NOT a.name = ANY(held) ORDER BY a.name LOOP
        PERFORM pg_advisory_xact_lock(hashtextextended('inline:' || n, ${INLINE_LOCK_SEED}));
        held := held || n;
      END LOOP;
      RETURN ARRAY(
        SELECT x FROM unnest(held) AS x WHERE x = ANY(applied_names)
        UNION SELECT projector FROM ${INLINE_GAPS_TABLE} WHERE projector = ANY(applied_names));
    END $$;`;
}

export async function createInlineGapsTable(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE ${INLINE_GAPS_TABLE} (
      projector      text NOT NULL,
      transaction_id xid8 NOT NULL,
      position       bigint NOT NULL,
      PRIMARY KEY (projector, transaction_id, position)
    );
    ${openFunction(false)}
  `);
}

export async function dropInlineGapsTable(knex: Knex): Promise<void> {
  await knex.raw(
    `DROP FUNCTION IF EXISTS ${OPEN_FUNCTION}(text[], int[], text[]); DROP TABLE IF EXISTS ${INLINE_GAPS_TABLE}`,
  );
}

/** Migration 0012: the function with its short path (down: without it). */
export async function addInlineGapsShortPath(knex: Knex): Promise<void> {
  await knex.raw(openFunction(true));
}
export async function dropInlineGapsShortPath(knex: Knex): Promise<void> {
  await knex.raw(openFunction(false));
}

/**
 * Locks (see `OPEN_FUNCTION`) and answers the projectors of `applied` to record as gaps in this
 * transaction. Sent on the connection at once, before any statement queued after this call,
 * so statements that follow (the append) are pipelined behind it rather than a round trip later.
 */
export function openInlineGaps(
  client: PoolClient,
  applied: Array<{ name: string; version: number }>,
  recorded: string[],
): Promise<Set<string>> {
  return client
    .query<{ open: string[] }>({
      name: 'inline-gaps-open',
      text: `SELECT ${OPEN_FUNCTION}($1::text[], $2::int[], $3::text[]) AS open`,
      values: [applied.map((p) => p.name), applied.map((p) => p.version), recorded],
    })
    .then((result) => new Set(result.rows[0].open));
}

/** Holds every appender of `projector` back until this transaction ends (a rebuild's swap). */
export async function lockInlineProjector(trx: Knex, projector: string): Promise<void> {
  await trx.raw(`SELECT pg_advisory_xact_lock(hashtextextended(?, ${INLINE_LOCK_SEED}))`, [`inline:${projector}`]);
}

/** Records these events as not applied to their projectors, in the append's transaction. */
export async function recordInlineGaps(
  trx: Knex,
  gaps: Array<{ projector: string; events: RecordedEvent[] }>,
): Promise<void> {
  const projectors: string[] = [];
  const txs: string[] = [];
  const positions: string[] = [];
  for (const { projector, events } of gaps)
    for (const event of events) {
      projectors.push(projector);
      txs.push(event.position.commit.toString());
      positions.push(event.position.prepare.toString());
    }
  if (projectors.length === 0) return;
  await trx.raw(
    `INSERT INTO ${INLINE_GAPS_TABLE} (projector, transaction_id, position)
     SELECT * FROM unnest(?::text[], ?::xid8[], ?::bigint[]) ON CONFLICT DO NOTHING`,
    [projectors, txs, positions],
  );
}

/** The oldest gaps of `projector`, in log order, locked for this transaction. */
export async function lockInlineGaps(trx: Knex, projector: string, limit: number): Promise<Position[]> {
  const result = await trx.raw<{ rows: Array<{ tx: string; pos: string }> }>(
    `SELECT transaction_id::text AS tx, position::text AS pos FROM ${INLINE_GAPS_TABLE}
     WHERE projector = ? ORDER BY transaction_id, position LIMIT ? FOR UPDATE`,
    [projector, limit],
  );
  return result.rows.map((r) => ({ commit: BigInt(r.tx), prepare: BigInt(r.pos) }));
}

export async function deleteInlineGaps(trx: Knex, projector: string, positions?: Position[]): Promise<void> {
  if (!positions) {
    await trx(INLINE_GAPS_TABLE).where({ projector }).delete();
    return;
  }
  if (positions.length === 0) return;
  await trx.raw(
    `DELETE FROM ${INLINE_GAPS_TABLE} WHERE projector = ?
     AND (transaction_id, position) IN (SELECT * FROM unnest(?::xid8[], ?::bigint[]))`,
    [projector, positions.map((p) => p.commit.toString()), positions.map((p) => p.prepare.toString())],
  );
}

/** Per projector among `names`: how many gaps it has and when the oldest of their events was recorded. */
export async function inlineGapLag(
  knex: Knex,
  names: string[],
): Promise<Array<{ projector: string; events: number; oldest: Date }>> {
  const result = await knex.raw<{ rows: Array<{ projector: string; events: number; oldest: Date }> }>(
    `SELECT g.projector, count(*)::int AS events, min(e.recorded_at) AS oldest
     FROM ${INLINE_GAPS_TABLE} g JOIN events e ON (e.transaction_id, e.position) = (g.transaction_id, g.position)
     WHERE g.projector = ANY(?::text[]) GROUP BY g.projector ORDER BY g.projector`,
    [names],
  );
  return result.rows;
}
