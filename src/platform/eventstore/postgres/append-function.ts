import type { Knex } from 'knex';

const APPEND_SIGNATURE = 'append_to_stream(text, bigint, uuid[], text[], jsonb[], jsonb[], timestamptz, text)';

/** Where the batch's ids are stored already, if any are (both append functions answer them first). */
const FIND_STORED_IDS = `SELECT json_agg(json_build_object('stream', e.stream_id, 'revision', e.revision::text, 'tx', e.transaction_id::text, 'pos', e.position::text))
        INTO found_existing FROM events e WHERE e.event_id = ANY(p_ids);`;

/**
 * The append as one statement: a compare-and-set of the stream's revision and
 * the insert of the batch in one server-side call, so an autocommitted append costs one
 * round trip. The chain signatures are computed in Node from the head the caller believes
 * in; the revision compare-and-set proves that head is still the head. On a mismatch nothing
 * is written and the real head comes back, so the caller can re-sign and try again (when
 * its expected revision allows) or report the conflict.
 *
 * Ids already stored answer with where they are (a retried append is a no-op).
 */
export async function createAppendFunction(knex: Knex): Promise<void> {
  await knex.raw(`
    ${appendFunction(false)}

    -- Nothing reads events by position alone: readers go through (transaction_id, position).
    ALTER TABLE events DROP CONSTRAINT events_pkey;
  `);
}

/**
 * The function's text. `positions`: it also answers every appended event's position, in
 * revision order (positions of one insert need not be consecutive: concurrent appends draw from
 * one sequence), which inline projectors need and a multi-event append used to read back.
 */
function appendFunction(positions: boolean): string {
  const extra = positions ? ', positions text[]' : '';
  const none = positions ? ', NULL::text[]' : '';
  return `
    CREATE FUNCTION append_to_stream(
      p_stream text, p_expected bigint, p_ids uuid[], p_types text[], p_datas jsonb[], p_metas jsonb[],
      p_recorded timestamptz, p_last_signature text)
    RETURNS TABLE (ok boolean, head_revision bigint, head_signature text, tx text, last_position bigint, existing json${extra})
    LANGUAGE plpgsql AS $fn$
    DECLARE
      n int := cardinality(p_ids);
      found_existing json;
      locked int;
    BEGIN
      ${FIND_STORED_IDS}
      IF found_existing IS NOT NULL THEN
        RETURN QUERY SELECT false, NULL::bigint, NULL::text, NULL::text, NULL::bigint, found_existing${none};
        RETURN;
      END IF;

      IF p_expected < 0 THEN
        INSERT INTO streams (stream_id, revision, last_signature) VALUES (p_stream, n - 1, p_last_signature)
          ON CONFLICT (stream_id) DO NOTHING;
      ELSE
        UPDATE streams SET revision = p_expected + n, last_signature = p_last_signature, updated_at = now()
          WHERE stream_id = p_stream AND revision = p_expected;
      END IF;
      GET DIAGNOSTICS locked = ROW_COUNT;
      IF locked = 0 THEN
        -- Someone else moved the head (or a concurrent retry of this very batch committed).
        SELECT json_agg(json_build_object('stream', e.stream_id, 'revision', e.revision::text, 'tx', e.transaction_id::text, 'pos', e.position::text))
          INTO found_existing FROM events e WHERE e.event_id = ANY(p_ids);
        RETURN QUERY SELECT false, s.revision, s.last_signature, NULL::text, NULL::bigint, found_existing${none}
          FROM (SELECT 1) one LEFT JOIN streams s ON s.stream_id = p_stream;
        RETURN;
      END IF;

      RETURN QUERY
        WITH ins AS (
          INSERT INTO events (stream_id, revision, event_id, type, data, metadata, recorded_at)
          SELECT p_stream, greatest(p_expected, -1) + u.ord, u.id, u.t, u.d, u.m, p_recorded
            FROM unnest(p_ids, p_types, p_datas, p_metas) WITH ORDINALITY AS u(id, t, d, m, ord)
          RETURNING position, revision)
        SELECT true, greatest(p_expected, -1) + n, p_last_signature, pg_current_xact_id()::text, max(ins.position), NULL::json${positions ? ', array_agg(ins.position::text ORDER BY ins.revision)' : ''} FROM ins;
    END
    $fn$;`;
}

/** Migration 0009: the append answers its events' positions (see `appendFunction`), its plan kept as 0008 set it. */
export async function appendAnswersPositions(knex: Knex): Promise<void> {
  await knex.raw(`DROP FUNCTION ${APPEND_SIGNATURE}; ${appendFunction(true)}`);
  await planAppendOnce(knex);
}

export async function appendAnswersLastPosition(knex: Knex): Promise<void> {
  await knex.raw(`DROP FUNCTION ${APPEND_SIGNATURE}; ${appendFunction(false)}`);
  await planAppendOnce(knex);
}

export async function dropAppendFunction(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP FUNCTION IF EXISTS ${APPEND_SIGNATURE};
    ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY (position);
  `);
}

/**
 * The append's statements keep one plan per connection. Left to choose, PostgreSQL replanned
 * its duplicate-id probe (`event_id = ANY(ids)`) on every call: 0.08 ms of planning against
 * 0.02 ms of running, on every append (`BENCH_PG_STATEMENTS=1 npm run bench -- http`).
 */
export async function planAppendOnce(knex: Knex): Promise<void> {
  await knex.raw(`ALTER FUNCTION ${APPEND_SIGNATURE} SET plan_cache_mode = force_generic_plan`);
}

export async function planAppendEachTime(knex: Knex): Promise<void> {
  await knex.raw(`ALTER FUNCTION ${APPEND_SIGNATURE} RESET plan_cache_mode`);
}

const APPEND_MANY_SIGNATURE =
  'append_to_streams(text[], bigint[], integer[], uuid[], text[], jsonb[], jsonb[], timestamptz, text[])';

/** The SQLSTATE `append_to_streams` raises when a stream is not at the revision expected. */
export const WRONG_REVISION_SQLSTATE = 'ES409';

/** The refusal of stream `i`, with its head in DETAIL for the caller's error. */
const RAISE_WRONG_REVISION = `RAISE EXCEPTION 'stream % is not at the expected revision', p_streams[i] USING ERRCODE = '${WRONG_REVISION_SQLSTATE}',
            DETAIL = json_build_object('stream', p_streams[i], 'actual', (SELECT s.revision::text FROM streams s WHERE s.stream_id = p_streams[i]))::text;`;

/**
 * Migration 0010: several streams' appends as one statement, each at an exact expected
 * revision (a number, or -1 for no stream): one round trip for a multi-stream command (a
 * claim and its owner, a turn's start) instead of one per stream. The events come in one
 * list, `p_stream_of[k]` naming the stream (its place in `p_streams`) of event k; each stream's
 * events keep their order. Ids already stored answer with where they are and nothing is
 * written; a stream not at its expected revision raises `ES409` with the stream and its head
 * in DETAIL, so the caller's transaction rolls back whole. A stream with no events is a check:
 * it must be at its expected revision, and nothing is written to it. Every stream's head moves first,
 * then one insert writes every event: no per-stream copy of the (large) data arrays.
 */
export async function createAppendManyFunction(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION append_to_streams(
      p_streams text[], p_expected bigint[], p_stream_of int[], p_ids uuid[], p_types text[], p_datas jsonb[], p_metas jsonb[],
      p_recorded timestamptz, p_last_signatures text[])
    RETURNS TABLE (stream text, head_revision bigint, tx text, positions text[], existing json)
    LANGUAGE plpgsql AS $fn$
    DECLARE
      found_existing json;
      n int;
      locked int;
    BEGIN
      ${FIND_STORED_IDS}
      IF found_existing IS NOT NULL THEN
        RETURN QUERY SELECT NULL::text, NULL::bigint, NULL::text, NULL::text[], found_existing;
        RETURN;
      END IF;
      FOR i IN 1 .. cardinality(p_streams) LOOP
        n := (SELECT count(*) FROM unnest(p_stream_of) AS u(s) WHERE u.s = i);
        IF n = 0 THEN
          -- A check: the stream must still be where the decision read it; nothing is written.
          IF (SELECT s.revision FROM streams s WHERE s.stream_id = p_streams[i]) IS DISTINCT FROM nullif(greatest(p_expected[i], -1), -1) THEN
            ${RAISE_WRONG_REVISION}
          END IF;
          CONTINUE;
        END IF;
        IF p_expected[i] < 0 THEN
          INSERT INTO streams (stream_id, revision, last_signature) VALUES (p_streams[i], n - 1, p_last_signatures[i])
            ON CONFLICT (stream_id) DO NOTHING;
        ELSE
          UPDATE streams SET revision = p_expected[i] + n, last_signature = p_last_signatures[i], updated_at = now()
            WHERE stream_id = p_streams[i] AND revision = p_expected[i];
        END IF;
        GET DIAGNOSTICS locked = ROW_COUNT;
        IF locked = 0 THEN
          ${RAISE_WRONG_REVISION}
        END IF;
      END LOOP;
      RETURN QUERY
        WITH ins AS (
          INSERT INTO events (stream_id, revision, event_id, type, data, metadata, recorded_at)
          SELECT p_streams[u.s], greatest(p_expected[u.s], -1) + row_number() OVER (PARTITION BY u.s ORDER BY u.ord), u.id, u.t, u.d, u.m, p_recorded
            FROM unnest(p_stream_of, p_ids, p_types, p_datas, p_metas) WITH ORDINALITY AS u(s, id, t, d, m, ord)
           ORDER BY u.ord
          RETURNING events.stream_id, events.position, events.revision)
        SELECT ins.stream_id, max(ins.revision), pg_current_xact_id()::text, array_agg(ins.position::text ORDER BY ins.revision), NULL::json
          FROM ins GROUP BY ins.stream_id;
    END
    $fn$;
    ALTER FUNCTION ${APPEND_MANY_SIGNATURE} SET plan_cache_mode = force_generic_plan;`);
}

export async function dropAppendManyFunction(knex: Knex): Promise<void> {
  await knex.raw(`DROP FUNCTION IF EXISTS ${APPEND_MANY_SIGNATURE}`);
}
