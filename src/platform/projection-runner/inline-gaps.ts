import type { Knex } from 'knex';
import type { Position, RecordedEvent } from '../eventstore/types';

/**
 * Events of an inline projector appended without applying it (docs/runtime.md, "Rolling
 * deploys"): the instance that appended them runs another version of the projector than its
 * tables stand at, or had not attached it yet. The leader, which runs the projector at the
 * tables' version, applies them in log order and deletes the rows in one transaction.
 */
export const INLINE_GAPS_TABLE = 'inline_projection_gaps';

/**
 * Takes the inline projectors' transaction locks and answers which of `shared` have gaps.
 * An appender that applies a projector takes its lock shared, one that records gaps for it
 * exclusive, before either writes an event: so a gap row is committed or absent when an
 * applier looks, and an applier that saw none holds back every recorder until it commits (its
 * events then sort before theirs). Locks are taken in name order, so two appenders never wait
 * on each other in a cycle. In PL/pgSQL the final query takes its own snapshot, after the
 * locks: it sees every gap committed while it waited.
 */
const OPEN_FUNCTION = 'inline_projection_gaps_open';

/** The advisory lock key of an inline projector: hashtextextended(?, INLINE_LOCK_SEED). */
const INLINE_LOCK_SEED = 7212;

export async function createInlineGapsTable(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE ${INLINE_GAPS_TABLE} (
      projector      text NOT NULL,
      transaction_id xid8 NOT NULL,
      position       bigint NOT NULL,
      PRIMARY KEY (projector, transaction_id, position)
    );
    CREATE FUNCTION ${OPEN_FUNCTION}(shared_names text[], exclusive_names text[]) RETURNS text[]
    LANGUAGE plpgsql VOLATILE AS $$
    DECLARE
      n text;
    BEGIN
      FOR n IN SELECT DISTINCT x FROM unnest(shared_names || exclusive_names) AS x ORDER BY x LOOP
        IF n = ANY(exclusive_names) THEN
          PERFORM pg_advisory_xact_lock(hashtextextended('inline:' || n, ${INLINE_LOCK_SEED}));
        ELSE
          PERFORM pg_advisory_xact_lock_shared(hashtextextended('inline:' || n, ${INLINE_LOCK_SEED}));
        END IF;
      END LOOP;
      RETURN ARRAY(SELECT DISTINCT projector FROM ${INLINE_GAPS_TABLE} WHERE projector = ANY(shared_names));
    END $$;
  `);
}

export async function dropInlineGapsTable(knex: Knex): Promise<void> {
  await knex.raw(`DROP FUNCTION IF EXISTS ${OPEN_FUNCTION}(text[], text[]); DROP TABLE IF EXISTS ${INLINE_GAPS_TABLE}`);
}

/** Locks (see `OPEN_FUNCTION`) and answers the projectors of `applied` that have gaps now. */
export async function openInlineGaps(trx: Knex, applied: string[], recorded: string[]): Promise<Set<string>> {
  const result = await trx.raw<{ rows: Array<{ open: string[] }> }>(
    `SELECT ${OPEN_FUNCTION}(?::text[], ?::text[]) AS open`,
    [applied, recorded],
  );
  return new Set(result.rows[0].open);
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
