import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { isConnectionLoss } from '../../infra/connection-loss';
import { AuditSigner, SIGNATURE_VERSION } from '../audit-signature';
import {
  AppendResult,
  EventMetadata,
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

function mapInfraError(error: unknown): never {
  if (isConnectionLoss(error)) throw new EventStoreUnavailableError(String((error as Error).message));
  throw error;
}

/** What the append function answers (see append-function.ts). */
interface AppendRow {
  ok: boolean;
  head_revision: string | null;
  head_signature: string | null;
  tx: string | null;
  last_position: string | null;
  existing: Array<{ stream: string; revision: string; tx: string; pos: string }> | null;
}

/** The head a writer believes in: revision -1 and no signature for a stream not yet written. */
interface Head {
  revision: bigint;
  signature: string | null;
}

const NO_HEAD: Head = Object.freeze({ revision: -1n, signature: null });

/**
 * Heads this process saw last (its own appends, full forward reads). A stale entry costs
 * one failed compare-and-set, which answers with the true head; bounded, oldest out first.
 */
class HeadCache {
  private readonly heads = new Map<string, Head>();
  constructor(private readonly max: number) {}
  get(stream: string): Head | undefined {
    return this.heads.get(stream);
  }
  set(stream: string, head: Head): void {
    this.heads.delete(stream);
    this.heads.set(stream, head);
    if (this.heads.size > this.max) this.heads.delete(this.heads.keys().next().value as string);
  }
  forget(stream: string): void {
    this.heads.delete(stream);
  }
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
  /** Stream heads remembered for one-round-trip appends. */
  headCacheSize?: number;
  /** Rows per read while a subscription catches up. */
  batchSize?: number;
  /** Longest wait between polls when no notification arrives. */
  pollIntervalMs?: number;
}

export function createPostgresEventStore(options: PostgresEventStoreOptions): EventStore {
  const { pool, signer } = options;
  const notifier = new AppendNotifier(pool);

  const heads = new HeadCache(options.headCacheSize ?? 10_000);
  // Wake-ups leave the append path: the notifier coalesces them on its own connection.
  const wake = () => notifier.poke();

  /** The head to sign from before the first try: what the expected revision or the cache says. */
  async function startingHead(client: PoolClient, write: PreparedWrite): Promise<Head> {
    const expected = write.expectedRevision;
    if (expected === 'no_stream') return NO_HEAD;
    const cached = heads.get(write.stream);
    if (cached && (typeof expected !== 'bigint' || cached.revision === expected)) return cached;
    if (expected === 'any') return NO_HEAD;
    const found = await client.query<{ revision: string; last_signature: string | null }>({
      name: 'events-head',
      text: 'SELECT revision::text, last_signature FROM streams WHERE stream_id = $1',
      values: [write.stream],
    });
    const row = found.rows[0];
    return row ? { revision: BigInt(row.revision), signature: row.last_signature } : NO_HEAD;
  }

  function sign(write: PreparedWrite, head: Head, recordedAt: Date) {
    const stamped = new Map<EventMetadata, EventMetadata>();
    const events = write.events.map((event, i) => {
      let metadata = stamped.get(event.metadata);
      if (!metadata) stamped.set(event.metadata, (metadata = { ...event.metadata, sigv: SIGNATURE_VERSION }));
      return { id: write.ids[i], type: event.type, data: event.data, metadata };
    });
    const signatures = signer.signBatch(write.stream, head.revision + 1n, events, recordedAt, head.signature);
    // The stored metadata is the shared object plus the event's signature: serialise it once.
    const serialised = new Map<EventMetadata, string>();
    const metadatas = events.map((event, i) => {
      let prefix = serialised.get(event.metadata);
      if (prefix === undefined) serialised.set(event.metadata, (prefix = JSON.stringify(event.metadata).slice(0, -1)));
      return `${prefix}${prefix.length > 1 ? ',' : ''}"signature":"${signatures[i]}"}`;
    });
    return { metadatas, last: signatures[signatures.length - 1] };
  }

  /**
   * One write: sign from the believed head, call the append function, and on a moved head
   * either re-sign from the true head (expected 'any' / 'stream_exists') or report the
   * conflict. Inside `appendMany` the same calls run in one transaction.
   */
  async function appendOne(client: PoolClient, write: PreparedWrite, inTransaction = false): Promise<AppendResult> {
    const { stream, events, ids, expectedRevision: expected } = write;
    let head = await startingHead(client, write);
    for (let attempt = 0; ; attempt++) {
      if (typeof expected === 'bigint' && head.revision !== expected) throw new WrongExpectedRevisionError(stream, expected, head.revision < 0n ? 'no_stream' : head.revision);
      if (expected === 'stream_exists' && head.revision < 0n) throw new WrongExpectedRevisionError(stream, expected, 'no_stream');
      const recordedAt = new Date();
      const { metadatas, last } = sign(write, head, recordedAt);
      const result = await client.query<AppendRow>({
        name: 'events-append-fn',
        text: 'SELECT * FROM append_to_stream($1, $2, $3::uuid[], $4::text[], $5::jsonb[], $6::jsonb[], $7, $8)',
        values: [stream, head.revision.toString(), ids, events.map((e) => e.type), events.map((e) => JSON.stringify(e.data ?? null)), metadatas, recordedAt, last],
      });
      const row = result.rows[0];
      if (row.existing) {
        if (row.existing.length !== ids.length || row.existing.some((e) => e.stream !== stream)) throw new IdempotencyConflictError(stream, ids);
        const stored = row.existing.reduce((a, b) => (BigInt(a.revision) > BigInt(b.revision) ? a : b));
        return { nextRevision: BigInt(stored.revision), position: { commit: BigInt(stored.tx), prepare: BigInt(stored.pos) } };
      }
      if (row.ok) {
        const nextRevision = BigInt(row.head_revision!);
        heads.set(stream, { revision: nextRevision, signature: last });
        return { nextRevision, position: { commit: BigInt(row.tx!), prepare: BigInt(row.last_position!) } };
      }
      const actual: Head = row.head_revision === null ? NO_HEAD : { revision: BigInt(row.head_revision), signature: row.head_signature };
      heads.set(stream, actual);
      const retryable = expected === 'any' || expected === 'stream_exists';
      if (!retryable) throw new WrongExpectedRevisionError(stream, expected, actual.revision < 0n ? 'no_stream' : actual.revision);
      if (attempt >= 1) return appendLocked(client, write, inTransaction);
      head = actual;
    }
  }

  /**
   * A contended stream under 'any': optimism would retry without bound, so the row lock
   * decides the order instead (SELECT … FOR UPDATE, then the same append call).
   */
  async function appendLocked(client: PoolClient, write: PreparedWrite, inTransaction: boolean): Promise<AppendResult> {
    if (!inTransaction) await client.query('BEGIN');
    try {
      const locked = await client.query<{ revision: string; last_signature: string | null }>({
        name: 'events-head-lock',
        text: 'SELECT revision::text, last_signature FROM streams WHERE stream_id = $1 FOR UPDATE',
        values: [write.stream],
      });
      const row = locked.rows[0];
      if (!row && write.expectedRevision === 'stream_exists') throw new WrongExpectedRevisionError(write.stream, 'stream_exists', 'no_stream');
      const head: Head = row ? { revision: BigInt(row.revision), signature: row.last_signature } : NO_HEAD;
      heads.set(write.stream, head);
      // With the lock held the head cannot move again (a missing stream may still be created
      // concurrently: then this call reports it and the caller's retry loop goes round once more).
      let result: AppendResult;
      try {
        result = await appendOne(client, { ...write, expectedRevision: head.revision < 0n ? 'no_stream' : head.revision }, true);
      } catch (error) {
        if (row || !(error instanceof WrongExpectedRevisionError)) throw error;
        // Created by someone else between the lock attempt and the insert: lock it now.
        result = await appendLocked(client, write, true);
      }
      if (!inTransaction) await client.query('COMMIT');
      return result;
    } catch (error) {
      if (!inTransaction) await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  async function withClient<T>(fn: (client: PoolClient) => Promise<T>): Promise<T> {
    let client: PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      mapInfraError(error);
    }
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          return await fn(client);
        } catch (error) {
          // Two concurrent retries of one batch: the loser's insert meets the winner's ids;
          // run again and the id lookup answers with the original result.
          const pgError = error as { code?: string; constraint?: string };
          if (attempt < 2 && pgError.code === '23505' && pgError.constraint === 'events_event_id_key') continue;
          mapInfraError(error);
        }
      }
    } finally {
      client.release();
    }
  }

  /** One stream: an autocommitted call, one round trip when the head was known. */
  async function appendSingle(write: PreparedWrite): Promise<AppendResult> {
    const result = await withClient((client) => appendOne(client, write));
    wake();
    return result;
  }

  /**
   * Several streams in one transaction, locked in name order so two multi-stream appends
   * over the same streams cannot deadlock; any refusal rolls every stream back.
   */
  async function appendWrites(writes: PreparedWrite[]): Promise<AppendResult[]> {
    const order = writes.map((_, i) => i).sort((a, b) => (writes[a].stream < writes[b].stream ? -1 : writes[a].stream > writes[b].stream ? 1 : 0));
    const results = await withClient(async (client) => {
      await client.query('BEGIN');
      try {
        const out: AppendResult[] = new Array(writes.length);
        for (const i of order) out[i] = await appendOne(client, writes[i], true);
        await client.query('COMMIT');
        return out;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        // Heads cached inside the rolled-back transaction never became true.
        for (const w of writes) heads.forget(w.stream);
        throw error;
      }
    });
    wake();
    return results;
  }

  const store: EventStore = {
    kind: 'postgres',

    async append(stream, events, { expectedRevision = 'any' } = {}) {
      return appendSingle(prepareWrite({ stream, events, expectedRevision }));
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
      const events = result.rows.map(toRecorded);
      // A whole stream read forwards ends at its head: the next append can sign from it.
      if (forwards && limit === undefined && events.length > 0) {
        const last = events[events.length - 1];
        heads.set(stream, { revision: last.revision, signature: String(last.metadata.signature ?? '') });
      }
      return events;
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
