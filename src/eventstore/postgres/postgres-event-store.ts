import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import type { AuditSigner } from '../audit-signature';
import {
  AppendResult,
  EventStore,
  EventStoreUnavailableError,
  ExpectedRevision,
  IdempotencyConflictError,
  NewEvent,
  Position,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  START,
  StreamWrite,
  SubscribeOptions,
  Subscription,
  WrongExpectedRevisionError,
} from '../types';
import { APPEND_CHANNEL } from './schema';
import { AppendNotifier } from './notifier';
import { PollingSubscription } from './subscription';

const COLUMNS = 'position, transaction_id::text AS tx, stream_id, revision, event_id, type, data, metadata, recorded_at';

interface EventRow {
  position: string;
  tx: string;
  stream_id: string;
  revision: string;
  event_id: string;
  type: string;
  data: unknown;
  metadata: RecordedEvent['metadata'];
  recorded_at: Date;
}

function toRecorded(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    stream: row.stream_id,
    revision: BigInt(row.revision),
    position: { commit: BigInt(row.tx), prepare: BigInt(row.position) },
    type: row.type,
    data: row.data,
    metadata: row.metadata,
    recordedAt: row.recorded_at,
  };
}

/** xid8 has no negative values; START maps to (0, -1), before every real transaction. */
function positionParams(p: Position): [string, string] {
  return p.commit < 0n ? ['0', '-1'] : [p.commit.toString(), p.prepare.toString()];
}

const CONNECTION_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', '57P01', '57P03', '08006', '08001']);

function mapInfraError(error: unknown): never {
  const code = (error as { code?: string }).code;
  if (code && CONNECTION_ERRORS.has(code)) throw new EventStoreUnavailableError(String((error as Error).message));
  throw error;
}

function checkExpected(stream: string, expected: ExpectedRevision, current: bigint): void {
  const exists = current >= 0n;
  const ok =
    expected === 'any' ||
    (expected === 'no_stream' && !exists) ||
    (expected === 'stream_exists' && exists) ||
    (typeof expected === 'bigint' && expected === current);
  if (!ok) throw new WrongExpectedRevisionError(stream, expected, exists ? current : 'no_stream');
}

interface StreamHead {
  revision: string;
  last_signature: string | null;
  existing: Array<{ stream: string; revision: string; tx: string; pos: string }>;
}

// Ids already stored answer a retried append with its original result.
const EXISTING_IDS = `(SELECT coalesce(json_agg(json_build_object('stream', stream_id, 'revision', revision::text,
    'tx', transaction_id::text, 'pos', position::text)), '[]'::json)
  FROM events WHERE event_id = ANY($2::uuid[])) AS existing`;

/**
 * Takes the stream row's lock, which serialises writers of one stream, and reads its head.
 * An existing stream is locked with SELECT … FOR UPDATE (no new row version); a missing one
 * is created at revision -1 by an upsert that waits for a concurrent creator. Statements are
 * named so each connection plans them once.
 */
async function lockStream(client: PoolClient, stream: string, ids: string[], expected: ExpectedRevision): Promise<StreamHead> {
  if (expected !== 'no_stream') {
    const found = await client.query<StreamHead>({
      name: 'events-lock-existing',
      text: `SELECT s.revision, s.last_signature, ${EXISTING_IDS} FROM streams s WHERE s.stream_id = $1 FOR UPDATE OF s`,
      values: [stream, ids],
    });
    if (found.rows[0]) return found.rows[0];
  }
  const created = await client.query<StreamHead>({
    name: 'events-lock-new',
    text: `WITH s AS (
             INSERT INTO streams (stream_id, revision) VALUES ($1, -1)
             ON CONFLICT (stream_id) DO UPDATE SET revision = streams.revision
             RETURNING revision, last_signature)
           SELECT s.revision, s.last_signature, ${EXISTING_IDS} FROM s`,
    values: [stream, ids],
  });
  return created.rows[0];
}

/**
 * Wakes subscribers right after the commit rather than inside the writing transaction:
 * a NOTIFY in a transaction holds PostgreSQL's global notify-queue lock across its WAL
 * flush, which serialises every appending commit and defeats group commit. Sent on the
 * same connection before it returns to the pool, so it cannot overtake the commit.
 */
function notifyAppended(client: PoolClient): void {
  client.query({ name: 'events-notify', text: `SELECT pg_notify('${APPEND_CHANNEL}', '')` }).catch(() => undefined);
}

interface PreparedWrite {
  stream: string;
  events: NewEvent[];
  ids: string[];
  expectedRevision: ExpectedRevision;
}

function prepareWrite(write: StreamWrite): PreparedWrite {
  if (write.events.length === 0) throw new Error('append needs at least one event');
  return { stream: write.stream, events: write.events, ids: write.events.map((e) => e.id ?? randomUUID()), expectedRevision: write.expectedRevision ?? 'any' };
}

export interface PostgresEventStoreOptions {
  pool: Pool;
  signer: AuditSigner;
  /** Rows per read while a subscription catches up. */
  batchSize?: number;
  /** Longest wait between polls when no notification arrives. */
  pollIntervalMs?: number;
}

export function createPostgresEventStore(options: PostgresEventStoreOptions): EventStore {
  const { pool, signer } = options;
  const notifier = new AppendNotifier(pool);

  /** Inside an open transaction: lock the stream, check its revision, insert the batch. */
  async function appendInTransaction(client: PoolClient, write: PreparedWrite): Promise<AppendResult> {
    const { stream, events, ids, expectedRevision: expected } = write;
    const { revision, last_signature, existing } = await lockStream(client, stream, ids, expected);
    if (existing.length > 0) {
      if (existing.length !== ids.length || existing.some((e) => e.stream !== stream)) {
        throw new IdempotencyConflictError(stream, ids);
      }
      const last = existing.reduce((a, b) => (BigInt(a.revision) > BigInt(b.revision) ? a : b));
      return { nextRevision: BigInt(last.revision), position: { commit: BigInt(last.tx), prepare: BigInt(last.pos) } };
    }
    const current = BigInt(revision);
    checkExpected(stream, expected, current);

    let previous = last_signature;
    const revisions: string[] = [];
    const types: string[] = [];
    const datas: string[] = [];
    const metadatas: string[] = [];
    events.forEach((event, i) => {
      const rev = current + 1n + BigInt(i);
      const signature = signer.sign({ stream, revision: rev, id: ids[i], type: event.type, data: event.data, metadata: event.metadata }, previous);
      previous = signature;
      revisions.push(rev.toString());
      types.push(event.type);
      datas.push(JSON.stringify(event.data ?? null));
      metadatas.push(JSON.stringify({ ...event.metadata, signature }));
    });
    const nextRevision = current + BigInt(events.length);
    const inserted = await client.query<{ position: string; tx: string }>({
      name: 'events-append',
      text: `WITH ins AS (
         INSERT INTO events (stream_id, revision, event_id, type, data, metadata)
         SELECT $1, u.r, u.id, u.t, u.d, u.m
           FROM unnest($2::bigint[], $3::uuid[], $4::text[], $5::jsonb[], $6::jsonb[]) AS u(r, id, t, d, m)
         RETURNING position),
       upd AS (
         UPDATE streams SET revision = $7, last_signature = $8, updated_at = now() WHERE stream_id = $1)
       SELECT max(position)::text AS position, pg_current_xact_id()::text AS tx FROM ins`,
      values: [stream, revisions, ids, types, datas, metadatas, nextRevision.toString(), previous],
    });
    const row = inserted.rows[0];
    return { nextRevision, position: { commit: BigInt(row.tx), prepare: BigInt(row.position) } };
  }

  /**
   * One transaction for every write. Streams are locked in name order so two multi-stream
   * appends over the same streams cannot deadlock.
   */
  async function appendWrites(writes: PreparedWrite[]): Promise<AppendResult[]> {
    let client: PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      mapInfraError(error);
    }
    const order = writes.map((_, i) => i).sort((a, b) => (writes[a].stream < writes[b].stream ? -1 : writes[a].stream > writes[b].stream ? 1 : 0));
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          await client.query('BEGIN');
          const results: AppendResult[] = new Array(writes.length);
          for (const i of order) results[i] = await appendInTransaction(client, writes[i]);
          await client.query('COMMIT');
          notifyAppended(client);
          return results;
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          // A concurrent retry of the same batch committed while this one waited for the
          // stream lock: run again, and the id lookup answers with the original result.
          const pgError = error as { code?: string; constraint?: string };
          if (attempt < 2 && pgError.code === '23505' && pgError.constraint === 'events_event_id_key') continue;
          mapInfraError(error);
        }
      }
    } finally {
      client.release();
    }
  }

  const store: EventStore = {
    kind: 'postgres',

    async append(stream, events, { expectedRevision = 'any' } = {}) {
      const [result] = await appendWrites([prepareWrite({ stream, events, expectedRevision })]);
      return result;
    },

    async appendMany(writes) {
      if (writes.length === 0) return [];
      const streams = new Set(writes.map((w) => w.stream));
      if (streams.size !== writes.length) throw new Error('appendMany takes each stream once');
      return appendWrites(writes.map(prepareWrite));
    },

    async readStream(stream, { from, direction = 'forwards', limit }: ReadStreamOptions = {}) {
      const forwards = direction === 'forwards';
      const params: unknown[] = [stream];
      let where = 'stream_id = $1';
      if (from !== undefined) {
        params.push(from.toString());
        where += forwards ? ' AND revision >= $2' : ' AND revision <= $2';
      }
      let sql = `SELECT ${COLUMNS} FROM events WHERE ${where} ORDER BY revision ${forwards ? 'ASC' : 'DESC'}`;
      if (limit !== undefined) {
        params.push(limit);
        sql += ` LIMIT $${params.length}`;
      }
      const result = await pool.query<EventRow>(sql, params).catch(mapInfraError);
      return result.rows.map(toRecorded);
    },

    async readAll({ from = START, limit = 1000, filter }: ReadAllOptions = {}) {
      // Only transactions older than every in-flight one are visible: a row that commits
      // later with a smaller position can then never be skipped.
      const [tx, pos] = positionParams(from);
      const params: unknown[] = [tx, pos, limit];
      let where = '';
      if (filter?.eventTypes) {
        params.push(filter.eventTypes);
        where += ` AND type = ANY($${params.length}::text[])`;
      }
      if (filter?.streamPrefixes) {
        params.push(filter.streamPrefixes.map((p) => `${p.replace(/[\\%_]/g, (c) => `\\${c}`)}%`));
        where += ` AND stream_id LIKE ANY($${params.length}::text[])`;
      }
      const result = await pool
        .query<EventRow>(
          `SELECT ${COLUMNS} FROM events
            WHERE (transaction_id, position) > ($1::xid8, $2::bigint)
              AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())${where}
            ORDER BY transaction_id, position
            LIMIT $3`,
          params,
        )
        .catch(mapInfraError);
      return result.rows.map(toRecorded);
    },

    subscribeToAll(subscribeOptions: SubscribeOptions = {}): Subscription {
      return new PollingSubscription({
        readAll: (from, limit, filter) => store.readAll({ from, limit, filter }),
        headPosition: () => store.headPosition(),
        notifier,
        from: subscribeOptions.from ?? START,
        filter: subscribeOptions.filter,
        batchSize: options.batchSize ?? 500,
        pollIntervalMs: options.pollIntervalMs ?? 500,
      });
    },

    async headPosition() {
      const result = await pool
        .query<{ tx: string; position: string }>(
          `SELECT transaction_id::text AS tx, position::text FROM events
            WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())
            ORDER BY transaction_id DESC, position DESC LIMIT 1`,
        )
        .catch(mapInfraError);
      const row = result.rows[0];
      return row ? { commit: BigInt(row.tx), prepare: BigInt(row.position) } : START;
    },

    async close() {
      await notifier.close();
    },
  };
  return store;
}
