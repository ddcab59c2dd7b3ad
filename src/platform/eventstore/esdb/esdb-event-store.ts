import { randomUUID } from 'node:crypto';
import {
  BACKWARDS,
  DeadlineExceededError,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START as ESDB_START,
  StreamNotFoundError,
  TimeoutError,
  UnavailableError,
  WrongExpectedVersionError,
  eventTypeFilter,
  excludeSystemEvents,
  jsonEvent,
  streamNameFilter,
  type AllStreamResolvedEvent,
  type Direction,
  type Filter,
  type JSONType,
  type ResolvedEvent,
} from '@eventstore/db-client';
import type { AuditSigner } from '../audit-signature';
import {
  EventStoreUnavailableError,
  IdempotencyConflictError,
  START,
  WrongExpectedRevisionError,
  comparePositions,
  matchesFilter,
  type AppendResult,
  type EventFilter,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type Position,
  type RecordedEvent,
  type StoredMetadata,
  type Subscription,
} from '../types';

/**
 * EventStoreDB adapter. The server owns revisions, positions and optimistic
 * concurrency; the adapter adds the chained audit signature, which is why every append
 * first reads the stream's tail.
 */

export interface EsdbEventStoreOptions {
  url?: string;
  client?: EventStoreDBClient;
  signer: AuditSigner;
}

/**
 * A conflict under 'any' only means someone appended between our read and our write. N
 * writers racing on one stream need up to N attempts, so allow a few more than the usual
 * fan-in, with jitter so the losers do not collide again in lockstep.
 */
const APPEND_ATTEMPTS = 10;
const RETRY_JITTER_MS = 5;
/** How many recent events an id-carrying append inspects to recognise a retried batch. */
const IDEMPOTENCY_WINDOW = 32;
const PAGE_SIZE = 500;

export function createEsdbEventStore(opts: EsdbEventStoreOptions): EventStore {
  if (!opts.client && !opts.url) throw new Error('the EventStoreDB adapter needs a url or a client');
  const client = opts.client ?? EventStoreDBClient.connectionString(opts.url!);
  const { signer } = opts;

  /** Newest first; empty when the stream does not exist. */
  async function readTail(stream: string, count: number): Promise<RecordedEvent[]> {
    return drain(client.readStream(stream, { direction: BACKWARDS, fromRevision: END, maxCount: count }));
  }

  async function positionOfRevision(stream: string, revision: bigint): Promise<Position> {
    const [event] = await drain(
      client.readStream(stream, { direction: BACKWARDS, fromRevision: revision, maxCount: 1 }),
    );
    return event ? event.position : START;
  }

  /**
   * Pages through $all skipping system events. Whether the server includes the event at the
   * cursor differs by direction and version, so anything not strictly past it is dropped.
   */
  async function* scanAll(
    direction: Direction,
    from: Position | undefined,
    pageSize: number,
  ): AsyncGenerator<RecordedEvent> {
    let cursor = from;
    for (;;) {
      let received = 0;
      const reading = client.readAll({
        direction,
        fromPosition: cursor ?? (direction === FORWARDS ? ESDB_START : END),
        maxCount: pageSize,
      });
      let last: Position | undefined;
      try {
        for await (const resolved of reading) {
          received += 1;
          if (!resolved.event) continue;
          const event = toRecorded(resolved);
          last = event.position;
          if (cursor) {
            const order = comparePositions(event.position, cursor);
            if (direction === FORWARDS ? order <= 0 : order >= 0) continue;
          }
          if (!isSystemEvent(event)) yield event;
        }
      } catch (err) {
        throw mapError(err);
      }
      if (received < pageSize || !last) return;
      cursor = last;
    }
  }

  async function append(
    stream: string,
    events: NewEvent[],
    options?: { expectedRevision?: ExpectedRevision },
  ): Promise<AppendResult> {
    if (events.length === 0) throw new Error(`append to ${stream} needs at least one event`);
    const expected = options?.expectedRevision ?? 'any';
    const batch = events.map((e) => ({ ...e, id: e.id ?? randomUUID() }));
    const givenIds = new Set(events.flatMap((e) => (e.id ? [e.id] : [])));

    for (let attempt = 1; ; attempt++) {
      const recent = await readTail(stream, givenIds.size > 0 ? batch.length + IDEMPOTENCY_WINDOW : 1);
      const last = recent[0];
      const actual = last ? last.revision : 'no_stream';

      // ESDB deduplicates ids only in narrow cases, and we re-sign anyway, so a retried batch
      // is recognised here and answered with what the first append returned.
      if (givenIds.size > 0) {
        const stored = recent.filter((r) => givenIds.has(r.id));
        const storedIds = new Set(stored.map((r) => r.id));
        if (storedIds.size === givenIds.size && givenIds.size === batch.length) {
          return { nextRevision: stored[0].revision, position: stored[0].position };
        }
        if (storedIds.size > 0) throw new IdempotencyConflictError(stream, [...storedIds]);
      }

      if (expected === 'no_stream' && last) throw new WrongExpectedRevisionError(stream, expected, actual);
      if (expected === 'stream_exists' && !last) throw new WrongExpectedRevisionError(stream, expected, actual);
      if (typeof expected === 'bigint' && actual !== expected)
        throw new WrongExpectedRevisionError(stream, expected, actual);

      let previous = last ? String(last.metadata?.signature ?? '') : null;
      let revision = last ? last.revision : -1n;
      const payload = batch.map((e) => {
        revision += 1n;
        const signature = signer.sign(
          { stream, revision, id: e.id, type: e.type, data: e.data, metadata: e.metadata },
          previous,
        );
        previous = signature;
        return jsonEvent({ id: e.id, type: e.type, data: e.data as JSONType, metadata: { ...e.metadata, signature } });
      });

      try {
        // Always the revision we signed against: a chain signed on a stale tail must not land.
        const result = await client.appendToStream(stream, payload, {
          expectedRevision: last ? last.revision : NO_STREAM,
        });
        // The server answers (log position of the last event, position where the batch's
        // transaction began); in $all every event of an appended batch sits at (its log
        // position, its log position), so the last event's position is (commit, commit).
        const position = result.position
          ? { commit: result.position.commit, prepare: result.position.commit }
          : await positionOfRevision(stream, result.nextExpectedRevision);
        return { nextRevision: result.nextExpectedRevision, position };
      } catch (err) {
        if (!(err instanceof WrongExpectedVersionError)) throw mapError(err);
        // 'any' and 'stream_exists' still hold after a concurrent append; only the chain is stale.
        const retryable = expected === 'any' || expected === 'stream_exists';
        if (!retryable || attempt >= APPEND_ATTEMPTS) {
          throw new WrongExpectedRevisionError(stream, expected, err.actualVersion);
        }
        await new Promise((resolve) => setTimeout(resolve, Math.random() * RETRY_JITTER_MS * attempt));
      }
    }
  }

  return {
    kind: 'esdb',
    append,

    // No cross-stream transaction here: in order, each checked; an owner write that fails
    // after its reservation landed leaves an orphan that sweepOrphanedReservations frees.
    async appendMany(writes) {
      // Checks first (writes without events: the stream must be at the revision expected), so a
      // moved input refuses before anything is written; no cross-stream transaction here.
      const checked = new Map<string, AppendResult>();
      for (const write of writes.filter((w) => w.events.length === 0)) {
        const [head] = await drain(
          client.readStream(write.stream, { direction: BACKWARDS, fromRevision: END, maxCount: 1 }),
        );
        const actual = head ? head.revision : 'no_stream';
        const expected = write.expectedRevision ?? 'any';
        if (expected !== 'any' && expected !== actual && !(expected === 'stream_exists' && head))
          throw new WrongExpectedRevisionError(write.stream, expected, actual);
        checked.set(write.stream, { nextRevision: head ? head.revision : -1n, position: head ? head.position : START });
      }
      const results: AppendResult[] = [];
      for (const write of writes)
        results.push(
          checked.get(write.stream) ??
            (await append(write.stream, write.events, { expectedRevision: write.expectedRevision })),
        );
      return results;
    },

    async readStream(stream, options = {}) {
      if (options.limit !== undefined && options.limit <= 0) return [];
      const backwards = options.direction === 'backwards';
      return drain(
        client.readStream(stream, {
          direction: backwards ? BACKWARDS : FORWARDS,
          fromRevision: options.from ?? (backwards ? END : ESDB_START),
          ...(options.limit !== undefined ? { maxCount: options.limit } : {}),
        }),
      );
    },

    async readAll(options = {}) {
      const limit = options.limit ?? Infinity;
      if (limit <= 0) return [];
      const from = options.from && options.from.commit >= 0n ? options.from : undefined;
      // One extra because the server may hand back the event at `from` itself.
      const pageSize = Number.isFinite(limit) ? Math.min(Math.max(limit + 1, 2), PAGE_SIZE) : PAGE_SIZE;
      const out: RecordedEvent[] = [];
      for await (const event of scanAll(FORWARDS, from, pageSize)) {
        // $all reads take no server-side filter in this client; subscriptions do.
        if (!matchesFilter(event, options.filter)) continue;
        out.push(event);
        if (out.length >= limit) break;
      }
      return out;
    },

    subscribeToAll(options = {}) {
      return subscribe(client, options.from, options.filter);
    },

    async headPosition() {
      for await (const event of scanAll(BACKWARDS, undefined, 20)) return event.position;
      return START;
    },

    async close() {
      await client.dispose();
    },
  };
}

function subscribe(
  client: EventStoreDBClient,
  from: Position | undefined,
  filter: EventFilter | undefined,
): Subscription {
  const after = from && from.commit >= 0n ? from : undefined;
  const upstream = client.subscribeToAll({ fromPosition: after ?? ESDB_START, filter: serverFilter(filter) });
  let stopped = false;
  let wake: () => void = () => {};
  const stopping = new Promise<IteratorResult<AllStreamResolvedEvent>>((resolve) => {
    wake = () => resolve({ done: true, value: undefined });
  });

  async function stop(): Promise<void> {
    if (stopped) return;
    stopped = true;
    wake();
    try {
      await upstream.unsubscribe();
    } finally {
      // Cancelling the gRPC call does not end the readable; destroy it so nothing lingers.
      upstream.destroy();
    }
  }

  async function* events(): AsyncGenerator<RecordedEvent> {
    const iterator = upstream[Symbol.asyncIterator]();
    try {
      while (!stopped) {
        const pending = iterator.next();
        pending.catch(() => {}); // rejects after stop() destroys the readable; nobody awaits it then
        const next = await Promise.race([pending, stopping]);
        if (next.done || stopped) return;
        if (!next.value.event) continue;
        const event = toRecorded(next.value);
        if (isSystemEvent(event) || !matchesFilter(event, filter)) continue;
        if (after && comparePositions(event.position, after) <= 0) continue;
        yield event;
      }
    } catch (err) {
      if (!stopped) throw mapError(err);
    } finally {
      // A failing unsubscribe must not hide the error that ended the iteration.
      await stop().catch(() => {});
    }
  }

  const iterable = events();
  return { [Symbol.asyncIterator]: () => iterable, stop };
}

/** The server filters by prefix; exact event types are enforced again client-side. */
function serverFilter(filter: EventFilter | undefined): Filter {
  if (filter?.eventTypes?.length) return eventTypeFilter({ prefixes: filter.eventTypes });
  if (filter?.streamPrefixes?.length) return streamNameFilter({ prefixes: filter.streamPrefixes });
  return excludeSystemEvents();
}

async function drain(reading: AsyncIterable<ResolvedEvent | AllStreamResolvedEvent>): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  try {
    for await (const resolved of reading) if (resolved.event) out.push(toRecorded(resolved));
  } catch (err) {
    if (err instanceof StreamNotFoundError) return [];
    throw mapError(err);
  }
  return out;
}

function toRecorded(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent {
  const e = resolved.event!;
  const commit = resolved.commitPosition;
  // Servers before 22.6 omit the position on stream reads; the commit position is then all we have.
  const position = e.position
    ? { commit: e.position.commit, prepare: e.position.prepare }
    : commit !== undefined
      ? { commit, prepare: commit }
      : START;
  return {
    id: e.id,
    stream: e.streamId,
    revision: e.revision,
    position,
    type: e.type,
    data: e.data,
    metadata: (e.metadata ?? {}) as StoredMetadata,
    recordedAt: new Date(e.created),
  };
}

function isSystemEvent(event: { type: string; stream: string }): boolean {
  return event.type.startsWith('$') || event.stream.startsWith('$');
}

function mapError(err: unknown): unknown {
  if (err instanceof UnavailableError || err instanceof DeadlineExceededError || err instanceof TimeoutError) {
    return new EventStoreUnavailableError(`EventStoreDB unavailable: ${err.message}`, { cause: err });
  }
  return err;
}
