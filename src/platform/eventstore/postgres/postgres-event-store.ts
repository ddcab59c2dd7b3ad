import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Pool, PoolClient } from 'pg';
import { isConnectionLoss } from '../../infra/connection-loss';
import { inTransaction } from '../../infra/transaction';
import { type AuditSigner, SIGNATURE_VERSION } from '../audit-signature';
import {
  type AppendResult,
  comparePositions,
  type EventFilter,
  type EventMetadata,
  type EventStore,
  EventStoreUnavailableError,
  type ExpectedRevision,
  IdempotencyConflictError,
  type InlineProjections,
  type NewEvent,
  type Position,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  START,
  type StreamWrite,
  type SubscribeOptions,
  type Subscription,
  WrongExpectedRevisionError,
} from '../types';
import { AppendNotifier } from './notifier';
import { type LiveRead, PollingSubscription } from './subscription';
import { WRONG_REVISION_SQLSTATE } from './append-function';
import { StatementNames } from '../../infra/prepared-statements';
import { GroupCommit } from './group-commit';

const COLUMNS =
  'position, transaction_id::text AS tx, stream_id, revision, event_id, type, data, metadata, recorded_at';

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

/**
 * Every committed event of `types` after `from`, with no wait for older transactions still in
 * flight (unlike readAll). Only for a reader that holds the locks of the tables those in-flight
 * writers apply to (an inline projector's rebuild as it swaps its tables): a writer blocked on
 * that lock applies its own events once the lock is gone, so reading past it skips nothing.
 */
export async function readCommittedSince(
  knex: Knex,
  from: Position,
  types: readonly string[] | undefined,
  limit: number,
): Promise<RecordedEvent[]> {
  const [tx, pos] = positionParams(from);
  const byType = types ? ' AND type = ANY(?::text[])' : '';
  const result = await knex.raw<{ rows: EventRow[] }>(
    `SELECT ${COLUMNS} FROM events WHERE (transaction_id, position) > (?::xid8, ?::bigint)${byType} ORDER BY transaction_id, position LIMIT ?`,
    types ? [tx, pos, [...types], limit] : [tx, pos, limit],
  );
  return result.rows.map(toRecorded);
}

/** The committed events at these positions, in log order (an inline projector's gaps). */
export async function readAtPositions(knex: Knex, positions: Position[]): Promise<RecordedEvent[]> {
  if (positions.length === 0) return [];
  const result = await knex.raw<{ rows: EventRow[] }>(
    `SELECT ${COLUMNS} FROM events WHERE (transaction_id, position) IN (SELECT * FROM unnest(?::xid8[], ?::bigint[])) ORDER BY transaction_id, position`,
    [positions.map((p) => p.commit.toString()), positions.map((p) => p.prepare.toString())],
  );
  return result.rows.map(toRecorded);
}

/**
 * A name for a read's text, so each connection parses and plans it once (a read of a stream
 * or of the log was planned on every call: up to 0.3 ms of the server's time, as much as
 * running it). The texts vary only by which filters and limits a read has: a handful of names.
 */
const readNames = new StatementNames(1);
function prepared(text: string, values: unknown[]): { name: string | undefined; text: string; values: unknown[] } {
  return { name: readNames.nameFor(text), text, values };
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
  /** Every appended event's position, in revision order. */
  positions: string[] | null;
  existing: Array<{ stream: string; revision: string; tx: string; pos: string }> | null;
}

/** The head a writer believes in: revision -1 and no signature for a stream not yet written. */
interface Head {
  revision: bigint;
  signature: string | null;
}

const NO_HEAD: Head = Object.freeze({ revision: -1n, signature: null });

type ApplyInline = (events: RecordedEvent[]) => Promise<void>;

/** Inside an inline transaction: another writer moved the head; the caller starts over. */
class HeadMoved extends WrongExpectedRevisionError {}

/**
 * The indexes of `writes` in stream-name order (stable): transactions that write several
 * streams take their rows in one order, so two of them never wait on each other.
 */
const inStreamOrder = (writes: readonly { stream: string }[]): number[] =>
  writes
    .map((_, i) => i)
    .sort((a, b) => (writes[a].stream < writes[b].stream ? -1 : writes[a].stream > writes[b].stream ? 1 : a - b));

/** A settled outcome as the promise it describes. */
const settledValue = <T>(outcome: PromiseSettledResult<T>): Promise<T> =>
  outcome.status === 'fulfilled' ? Promise.resolve(outcome.value) : Promise.reject(outcome.reason);

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

/** An exact expected revision: a number, or no stream (every command's writes). */
const isExact = (expected: StreamWrite['expectedRevision']) => expected === 'no_stream' || typeof expected === 'bigint';

function prepareWrite(write: StreamWrite, check = false): PreparedWrite {
  if (write.events.length === 0 && !check) throw new Error('append needs at least one event');
  return {
    stream: write.stream,
    events: write.events,
    ids: write.events.map((e) => e.id ?? randomUUID()),
    expectedRevision: write.expectedRevision ?? 'any',
  };
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
  /**
   * Group commit of concurrent single-stream appends that feed inline projectors: how many
   * groups may be in flight at once (0: every append commits alone), and how many appends a
   * group takes at most.
   */
  groupCommit?: { maxGroups: number; maxWrites?: number };
}

export function createPostgresEventStore(options: PostgresEventStoreOptions): EventStore {
  const { pool, signer } = options;
  const notifier = new AppendNotifier(pool);

  const heads = new HeadCache(options.headCacheSize ?? 10_000);
  let inline: InlineProjections | null = null;

  /**
   * What an inline projector sees of an append: the events exactly as a later read of the log
   * answers them (data and metadata through JSON, as jsonb stores them), with their positions.
   */
  function recorded(
    write: PreparedWrite,
    stored: {
      datas: string[];
      metadatas: string[];
      recordedAt: Date;
      nextRevision: bigint;
      position: Position;
      positions: string[];
    },
  ): RecordedEvent[] {
    const first = stored.nextRevision - BigInt(write.events.length - 1);
    // Positions of one insert need not be consecutive (concurrent appends draw from one sequence).
    const prepares = stored.positions.map(BigInt);
    return write.events.map((event, i) => ({
      id: write.ids[i],
      stream: write.stream,
      revision: first + BigInt(i),
      position: { commit: stored.position.commit, prepare: prepares[i] },
      type: event.type,
      data: JSON.parse(stored.datas[i]),
      metadata: JSON.parse(stored.metadatas[i]),
      recordedAt: stored.recordedAt,
    }));
  }
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
  async function appendOne(
    client: PoolClient,
    write: PreparedWrite,
    withinTransaction = false,
    apply?: ApplyInline,
  ): Promise<AppendResult> {
    const { stream, events, ids, expectedRevision: expected } = write;
    const datas = events.map((e) => JSON.stringify(e.data ?? null));
    let head = await startingHead(client, write);
    for (let attempt = 0; ; attempt++) {
      if (typeof expected === 'bigint' && head.revision !== expected)
        throw new WrongExpectedRevisionError(stream, expected, head.revision < 0n ? 'no_stream' : head.revision);
      if (expected === 'stream_exists' && head.revision < 0n)
        throw new WrongExpectedRevisionError(stream, expected, 'no_stream');
      const recordedAt = new Date();
      const { metadatas, last } = sign(write, head, recordedAt);
      const result = await client.query<AppendRow>({
        name: 'events-append-fn',
        text: 'SELECT * FROM append_to_stream($1, $2, $3::uuid[], $4::text[], $5::jsonb[], $6::jsonb[], $7, $8)',
        values: [stream, head.revision.toString(), ids, events.map((e) => e.type), datas, metadatas, recordedAt, last],
      });
      const row = result.rows[0];
      if (row.existing) {
        if (row.existing.length !== ids.length) throw new IdempotencyConflictError(stream, ids);
        return storedResult(write, row.existing);
      }
      if (row.ok) {
        const nextRevision = BigInt(row.head_revision!);
        heads.set(stream, { revision: nextRevision, signature: last });
        const position = { commit: BigInt(row.tx!), prepare: BigInt(row.last_position!) };
        if (apply)
          await apply(
            recorded(write, { datas, metadatas, recordedAt, nextRevision, position, positions: row.positions! }),
          );
        return { nextRevision, position };
      }
      const actual: Head =
        row.head_revision === null ? NO_HEAD : { revision: BigInt(row.head_revision), signature: row.head_signature };
      heads.set(stream, actual);
      const retryable = expected === 'any' || expected === 'stream_exists';
      if (!retryable)
        throw new WrongExpectedRevisionError(stream, expected, actual.revision < 0n ? 'no_stream' : actual.revision);
      // Inline: this transaction already holds an xid; events written under it after a newer
      // writer's would sort before them in the log. Start over in a fresh transaction.
      if (apply) throw new HeadMoved(stream, expected, actual.revision < 0n ? 'no_stream' : actual.revision);
      if (attempt >= 1) return appendLocked(client, write, withinTransaction, apply);
      head = actual;
    }
  }

  /**
   * A retried write's answer from where its ids are stored (`existing`, as the append functions
   * answer it): every id in this write's stream, or the ids were reused for other events.
   */
  function storedResult(write: PreparedWrite, existing: NonNullable<AppendRow['existing']>): AppendResult {
    const stored = existing.filter((e) => e.stream === write.stream);
    if (stored.length !== write.ids.length) throw new IdempotencyConflictError(write.stream, write.ids);
    const last = stored.reduce((a, b) => (BigInt(a.revision) > BigInt(b.revision) ? a : b));
    return { nextRevision: BigInt(last.revision), position: { commit: BigInt(last.tx), prepare: BigInt(last.pos) } };
  }

  /**
   * Writes that each expect an exact revision (a number, or no stream: every command's), in one
   * call of `append_to_streams` on a connection inside a transaction: one round trip for all
   * streams. A stream off its expected revision rolls the caller's transaction back with a
   * WrongExpectedRevisionError; stored ids answer where they are, as `appendOne` does.
   */
  async function appendExact(
    client: PoolClient,
    writes: PreparedWrite[],
    order: number[],
    apply?: ApplyInline,
  ): Promise<AppendResult[]> {
    const ordered = order.map((i) => writes[i]);
    const starting: Head[] = [];
    for (const write of ordered) {
      const head = await startingHead(client, write);
      const expected = write.expectedRevision as bigint | 'no_stream';
      if (typeof expected === 'bigint' && head.revision !== expected)
        throw new WrongExpectedRevisionError(write.stream, expected, head.revision < 0n ? 'no_stream' : head.revision);
      starting.push(head);
    }
    const recordedAt = new Date();
    const signed = ordered.map((write, k) => sign(write, starting[k], recordedAt));
    const datas = ordered.map((write) => write.events.map((e) => JSON.stringify(e.data ?? null)));
    let rows: Array<{
      stream: string | null;
      head_revision: string | null;
      tx: string | null;
      positions: string[] | null;
      existing: Array<{ stream: string; revision: string; tx: string; pos: string }> | null;
    }>;
    try {
      ({ rows } = await client.query({
        name: 'events-append-many-fn',
        text: 'SELECT * FROM append_to_streams($1::text[], $2::bigint[], $3::int[], $4::uuid[], $5::text[], $6::jsonb[], $7::jsonb[], $8, $9::text[])',
        values: [
          ordered.map((w) => w.stream),
          ordered.map((w) => (w.expectedRevision === 'no_stream' ? '-1' : String(w.expectedRevision))),
          ordered.flatMap((w, k) => w.events.map(() => k + 1)),
          ordered.flatMap((w) => w.ids),
          ordered.flatMap((w) => w.events.map((e) => e.type)),
          datas.flat(),
          signed.flatMap((s) => s.metadatas),
          recordedAt,
          signed.map((s) => s.last ?? null),
        ],
      }));
    } catch (error) {
      const pgError = error as { code?: string; detail?: string };
      if (pgError.code !== WRONG_REVISION_SQLSTATE) throw error;
      const { stream, actual } = JSON.parse(pgError.detail ?? '{}') as { stream: string; actual: string | null };
      const write = ordered.find((w) => w.stream === stream)!;
      heads.forget(stream);
      throw new WrongExpectedRevisionError(
        stream,
        write.expectedRevision,
        actual === null ? 'no_stream' : BigInt(actual),
      );
    }
    const results: AppendResult[] = new Array(writes.length);
    const existing = rows[0]?.existing;
    if (existing) {
      // A retried write: every id stored, each in its own stream, or the ids were reused.
      for (const [k, write] of ordered.entries())
        if (write.ids.length > 0) results[order[k]] = storedResult(write, existing);
      if (existing.length !== ordered.reduce((n, w) => n + w.ids.length, 0))
        throw new IdempotencyConflictError(
          ordered[0].stream,
          ordered.flatMap((w) => w.ids),
        );
      return results;
    }
    const written: RecordedEvent[] = [];
    const byStream = new Map(rows.map((row) => [row.stream, row]));
    const checked: number[] = [];
    for (const [k, write] of ordered.entries()) {
      if (write.events.length === 0) {
        checked.push(k);
        continue;
      }
      const row = byStream.get(write.stream)!;
      const nextRevision = BigInt(row.head_revision!);
      heads.set(write.stream, { revision: nextRevision, signature: signed[k].last });
      const positions = row.positions!;
      const position = { commit: BigInt(row.tx!), prepare: BigInt(positions[positions.length - 1]) };
      results[order[k]] = { nextRevision, position };
      if (apply)
        written.push(
          ...recorded(write, {
            datas: datas[k],
            metadatas: signed[k].metadatas,
            recordedAt,
            nextRevision,
            position,
            positions,
          }),
        );
    }
    // A check wrote nothing: it answers the revision it proved, at the write's position.
    const position = results
      .filter(Boolean)
      .reduce((a, b) => (comparePositions(a.position, b.position) >= 0 ? a : b)).position;
    for (const k of checked) {
      const expected = ordered[k].expectedRevision;
      results[order[k]] = { nextRevision: typeof expected === 'bigint' ? expected : -1n, position };
    }
    if (apply) await apply(written);
    return results;
  }

  /**
   * A contended stream under 'any': optimism would retry without bound, so the row lock
   * decides the order instead (SELECT … FOR UPDATE, then the same append call).
   */
  async function appendLocked(
    client: PoolClient,
    write: PreparedWrite,
    withinTransaction: boolean,
    apply?: ApplyInline,
  ): Promise<AppendResult> {
    const locked = async (): Promise<AppendResult> => {
      const found = await client.query<{ revision: string; last_signature: string | null }>({
        name: 'events-head-lock',
        text: 'SELECT revision::text, last_signature FROM streams WHERE stream_id = $1 FOR UPDATE',
        values: [write.stream],
      });
      const row = found.rows[0];
      if (!row && write.expectedRevision === 'stream_exists')
        throw new WrongExpectedRevisionError(write.stream, 'stream_exists', 'no_stream');
      const head: Head = row ? { revision: BigInt(row.revision), signature: row.last_signature } : NO_HEAD;
      heads.set(write.stream, head);
      // With the lock held the head cannot move again (a missing stream may still be created
      // concurrently: then this call reports it and the caller's retry loop goes round once more).
      try {
        return await appendOne(
          client,
          { ...write, expectedRevision: head.revision < 0n ? 'no_stream' : head.revision },
          true,
          apply,
        );
      } catch (error) {
        if (row || !(error instanceof WrongExpectedRevisionError)) throw error;
        if (apply) throw new HeadMoved(write.stream, write.expectedRevision, error.actual);
        // Created by someone else between the lock attempt and the insert: lock it now.
        return appendLocked(client, write, true, apply);
      }
    };
    return withinTransaction ? locked() : inTransaction(client, locked);
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

  /** The event types these writes append. */
  const typesOf = (writes: PreparedWrite[]) => [...new Set(writes.flatMap((w) => w.events.map((e) => e.type)))];

  /** Whether any of these writes feeds an inline projector (then the append opens a transaction). */
  const feedsInline = (writes: PreparedWrite[]) =>
    inline !== null && writes.some((w) => w.events.some((e) => inline!.handles(e.type)));

  /**
   * One stream: an autocommitted call, one round trip when the head was known; with an
   * inline projector for its types, that call and the projector's rows in one transaction,
   * shared with the appends that arrived meanwhile (group commit).
   */
  function appendSingle(write: PreparedWrite): Promise<AppendResult> {
    if (groups && feedsInline([write])) return groups.submit(write);
    return appendAlone(write);
  }

  async function appendAlone(write: PreparedWrite): Promise<AppendResult> {
    const result = await withClient((client) => {
      if (!feedsInline([write])) return appendOne(client, write);
      return inlineTransaction(client, [write], async (apply, attempt) => {
        if (attempt > 0) await queueBehindWriters(client, write);
        return appendOne(client, write, true, apply);
      });
    });
    wake();
    return result;
  }

  /**
   * A group's appends in one transaction, in stream order (two groups never wait on each
   * other's stream rows in opposite orders). A write refused without touching the database
   * (a stale expected revision, an id reused for other events) is refused alone; one whose
   * head moved under 'any' or 'stream_exists' goes again on its own after the commit, as it
   * would alone. Anything else (an inline projector's failure, a lost connection) rolls the
   * group back and every write goes again on its own, so each meets only its own failure.
   */
  async function commitGroup(writes: PreparedWrite[]): Promise<Array<PromiseSettledResult<AppendResult>>> {
    if (writes.length === 1) return Promise.allSettled([appendAlone(writes[0])]);
    const order = inStreamOrder(writes);
    let outcomes: Array<PromiseSettledResult<AppendResult> | 'alone'>;
    try {
      outcomes = await withClient((client) =>
        inline!.transaction(client, typesOf(writes), async (apply) => {
          const settled: Array<PromiseSettledResult<AppendResult> | 'alone'> = new Array(writes.length);
          for (const i of order) {
            try {
              settled[i] = { status: 'fulfilled', value: await appendOne(client, writes[i], true, apply) };
            } catch (error) {
              if (error instanceof HeadMoved) settled[i] = 'alone';
              else if (error instanceof WrongExpectedRevisionError || error instanceof IdempotencyConflictError)
                settled[i] = { status: 'rejected', reason: error };
              else throw error;
            }
          }
          return settled;
        }),
      );
    } catch {
      // Heads cached inside the rolled-back transaction never became true.
      for (const w of writes) heads.forget(w.stream);
      return Promise.allSettled(writes.map((w) => appendAlone(w)));
    }
    wake();
    return Promise.allSettled(
      writes.map((w, i) =>
        outcomes[i] === 'alone' ? appendAlone(w) : settledValue(outcomes[i] as PromiseSettledResult<AppendResult>),
      ),
    );
  }

  const maxGroups = options.groupCommit?.maxGroups ?? 0;
  const groups =
    maxGroups > 0
      ? new GroupCommit<PreparedWrite, AppendResult>(commitGroup, maxGroups, options.groupCommit?.maxWrites ?? 32)
      : null;

  /**
   * A contended stream inside an inline transaction: wait for this stream's other retrying
   * writers on an advisory lock, then sign from the true head. Unlike a row lock, the advisory
   * lock takes no transaction id while waiting, so the id this transaction gets when it writes
   * is newer than the id of every writer before it, and the log keeps the stream in revision order.
   */
  async function queueBehindWriters(client: PoolClient, write: PreparedWrite): Promise<void> {
    // Two statements: a statement's snapshot is taken before it waits for the lock.
    await client.query({
      name: 'events-stream-queue',
      text: 'SELECT pg_advisory_xact_lock(hashtextextended($1, 7211))',
      values: [write.stream],
    });
    const found = await client.query<{ revision: string; last_signature: string | null }>({
      name: 'events-head',
      text: 'SELECT revision::text, last_signature FROM streams WHERE stream_id = $1',
      values: [write.stream],
    });
    const row = found.rows[0];
    if (row) heads.set(write.stream, { revision: BigInt(row.revision), signature: row.last_signature });
    else heads.forget(write.stream);
  }

  /**
   * The append and the inline projectors in one transaction. A moved head under 'any' or
   * 'stream_exists' rolls back and tries again in a fresh transaction (then taking the row
   * lock first), so a stream's events always sort in revision order in the global log.
   */
  async function inlineTransaction<T>(
    client: PoolClient,
    writes: PreparedWrite[],
    run: (apply: ApplyInline, attempt: number) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await inline!.transaction(client, typesOf(writes), (apply) => run(apply, attempt));
      } catch (error) {
        // Heads cached inside the rolled-back transaction never became true.
        if (!(error instanceof HeadMoved)) for (const w of writes) heads.forget(w.stream);
        if (!(error instanceof HeadMoved)) throw error;
        if (attempt >= 8) throw new WrongExpectedRevisionError(error.stream, error.expected, error.actual);
      }
    }
  }

  /**
   * Several streams in one transaction, locked in name order so two multi-stream appends
   * over the same streams cannot deadlock; any refusal rolls every stream back.
   */
  async function appendWrites(writes: PreparedWrite[]): Promise<AppendResult[]> {
    const order = inStreamOrder(writes);
    // Every command's writes expect exact revisions: one call for all of them.
    const exact = writes.length > 1 && writes.every((w) => isExact(w.expectedRevision));
    const appendAll = async (client: PoolClient, apply?: ApplyInline) => {
      if (exact) return appendExact(client, writes, order, apply);
      const out: AppendResult[] = new Array(writes.length);
      // The inline projectors see the whole write once every stream took its part, in log
      // order: a refusal of a later stream (a claim on a taken value) is the answer, not a
      // read model's unique index meeting an earlier stream's events; and a projector with
      // `applyBatch` writes the events of all streams with one statement.
      const written: RecordedEvent[] = [];
      const collect: ApplyInline | undefined = apply && (async (events) => void written.push(...events));
      for (const i of order) out[i] = await appendOne(client, writes[i], true, collect);
      if (apply && written.length > 0) await apply(written);
      return out;
    };
    const results = await withClient(async (client) => {
      try {
        if (feedsInline(writes)) return await inlineTransaction(client, writes, (apply) => appendAll(client, apply));
        return await inTransaction(client, () => appendAll(client));
      } catch (error) {
        // Heads cached inside the rolled-back transaction never became true.
        for (const w of writes) heads.forget(w.stream);
        throw error;
      }
    });
    wake();
    return results;
  }

  /**
   * The committed events after `from`. Only transactions older than every in-flight one are
   * visible: a row that commits later with a smaller position can then never be skipped.
   */
  function committedQuery(
    from: Position,
    limit: number,
    filter: EventFilter | undefined,
  ): { text: string; params: unknown[] } {
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
    const text = `SELECT ${COLUMNS} FROM events
            WHERE (transaction_id, position) > ($1::xid8, $2::bigint)
              AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())${where}
            ORDER BY transaction_id, position
            LIMIT $3`;
    return { text, params };
  }

  /**
   * A live subscription's read: the same rows, and whether committed events wait behind an
   * older transaction still in flight (the horizon above). Only then is re-reading on a timer
   * worth it: that older transaction may be a projector's, which sends no notification when it
   * ends. Otherwise every event still to come announces itself. (Ordered and limited so the
   * planner walks the index from the horizon: as an EXISTS it guessed a third of the log would
   * match and scanned the whole table on every read.)
   */
  async function readLive(from: Position, limit: number, filter?: EventFilter): Promise<LiveRead> {
    const { text, params } = committedQuery(from, limit, filter);
    const result = await pool
      .query<EventRow & { hidden: boolean }>(
        prepared(
          `SELECT h.hidden, e.* FROM
           (SELECT coalesce((SELECT true FROM events WHERE transaction_id >= pg_snapshot_xmin(pg_current_snapshot()) ORDER BY transaction_id LIMIT 1), false) AS hidden) h
           LEFT JOIN LATERAL (${text}) e ON true
         ORDER BY e.tx::xid8, e.position::bigint`,
          params,
        ),
      )
      .catch(mapInfraError);
    const rows = result.rows;
    const hidden = rows.length > 0 && rows[0].hidden;
    return { events: rows[0]?.event_id ? rows.map(toRecorded) : [], hidden };
  }

  const store: EventStore = {
    kind: 'postgres',

    useInlineProjections(projections) {
      inline = projections;
    },

    async findEvent(id) {
      const found = await pool.query<{ tx: string; position: string; type: string }>({
        name: 'events-find-id',
        text: 'SELECT transaction_id::text AS tx, position::text, type FROM events WHERE event_id = $1',
        values: [id],
      });
      const row = found.rows[0];
      return row ? { position: { commit: BigInt(row.tx), prepare: BigInt(row.position) }, type: row.type } : null;
    },
    knownRevision(stream) {
      const head = heads.get(stream);
      return head && head.revision >= 0n ? head.revision : undefined;
    },

    async append(stream, events, { expectedRevision = 'any' } = {}) {
      return appendSingle(prepareWrite({ stream, events, expectedRevision }));
    },

    async appendMany(writes) {
      if (writes.length === 0) return [];
      const streams = new Set(writes.map((w) => w.stream));
      if (streams.size !== writes.length) throw new Error('appendMany takes each stream once');
      // A write without events is a check: its stream must be where the decision read it.
      const checks = writes.filter((w) => w.events.length === 0);
      if (checks.length === writes.length) throw new Error('appendMany needs a write with events');
      if (checks.length > 0 && !writes.every((w) => isExact(w.expectedRevision)))
        throw new Error('checks go with writes at exact revisions');
      return appendWrites(writes.map((w) => prepareWrite(w, true)));
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
      const result = await pool.query<EventRow>(prepared(sql, params)).catch(mapInfraError);
      const events = result.rows.map(toRecorded);
      // A whole stream read forwards ends at its head, a read backwards from the end starts
      // there: the next append can sign from it.
      const head = forwards
        ? limit === undefined
          ? events[events.length - 1]
          : undefined
        : from === undefined
          ? events[0]
          : undefined;
      if (head) heads.set(stream, { revision: head.revision, signature: String(head.metadata.signature ?? '') });
      return events;
    },

    async readStreams(streams) {
      const asked = [...new Set(streams)];
      const text = `SELECT ${COLUMNS} FROM events WHERE stream_id = ANY($1::text[]) ORDER BY stream_id, revision`;
      const result = await pool.query<EventRow>(prepared(text, [asked])).catch(mapInfraError);
      const byStream = new Map<string, RecordedEvent[]>(asked.map((stream) => [stream, []]));
      for (const row of result.rows) byStream.get(row.stream_id)!.push(toRecorded(row));
      // Each read whole ends at its head, as a whole readStream does.
      for (const [stream, events] of byStream) {
        const head = events[events.length - 1];
        if (head) heads.set(stream, { revision: head.revision, signature: String(head.metadata.signature ?? '') });
      }
      return streams.map((stream) => byStream.get(stream)!);
    },

    async readAll({ from = START, limit = 1000, filter }: ReadAllOptions = {}) {
      const { text, params } = committedQuery(from, limit, filter);
      const result = await pool.query<EventRow>(prepared(text, params)).catch(mapInfraError);
      return result.rows.map(toRecorded);
    },

    subscribeToAll(subscribeOptions: SubscribeOptions = {}): Subscription {
      return new PollingSubscription({
        readLive,
        headPosition: () => store.headPosition(),
        notifier,
        from: subscribeOptions.from ?? START,
        filter: subscribeOptions.filter,
        batchSize: options.batchSize ?? 500,
        pollIntervalMs: options.pollIntervalMs ?? 500,
        gatherMs: subscribeOptions.gatherMs,
      });
    },

    async headPosition() {
      const result = await pool
        .query<{ tx: string; position: string }>(
          prepared(
            `SELECT transaction_id::text AS tx, position::text FROM events
            WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())
            ORDER BY transaction_id DESC, position DESC LIMIT 1`,
            [],
          ),
        )
        .catch(mapInfraError);
      const row = result.rows[0];
      return row ? { commit: BigInt(row.tx), prepare: BigInt(row.position) } : START;
    },

    async measureLag(from, filter, cap) {
      const { text, params } = committedQuery(from, cap, filter);
      const result = await pool
        .query<{ events: string; oldest: Date | null }>(
          prepared(`SELECT count(*)::text AS events, min(recorded_at) AS oldest FROM (${text}) pending`, params),
        )
        .catch(mapInfraError);
      return { events: Number(result.rows[0].events), oldest: result.rows[0].oldest };
    },

    async close() {
      await notifier.close();
    },
  };
  return store;
}
