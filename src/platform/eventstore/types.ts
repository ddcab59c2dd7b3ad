/**
 * The event store contract. Both adapters (Postgres, EventStoreDB) implement it
 * and pass the same conformance suite in tests/conformance.
 */

/**
 * A point in the global log. `commit` orders first, `prepare` breaks ties. For Postgres the
 * pair is (transaction id, sequence position) because positions can commit out of order;
 * for EventStoreDB it is the server's own commit/prepare position.
 */
export interface Position {
  commit: bigint;
  prepare: bigint;
}

export const START: Position = Object.freeze({ commit: -1n, prepare: -1n });

export function comparePositions(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

export function positionToString(p: Position): string {
  return `${p.commit}/${p.prepare}`;
}

export function positionFromString(text: string): Position {
  const slash = text.indexOf('/');
  if (slash < 0) throw new Error(`not a position: ${text}`);
  return { commit: BigInt(text.slice(0, slash)), prepare: BigInt(text.slice(slash + 1)) };
}

/** Who did it and why; every event carries it. `signature` is added by the store. */
export interface EventMetadata {
  tenantId: string;
  actorId: string;
  correlationId: string;
  causationId: string;
  [extra: string]: unknown;
}

export interface StoredMetadata extends EventMetadata {
  /** HMAC-SHA256 over this event chained to the previous event of the stream. */
  signature: string;
}

export interface NewEvent<T extends string = string, D = unknown> {
  /** A uuid; appending an id that is already stored is a no-op. Generated when absent. */
  id?: string;
  type: T;
  data: D;
  metadata: EventMetadata;
}

export interface RecordedEvent<T extends string = string, D = unknown> {
  id: string;
  stream: string;
  revision: bigint;
  position: Position;
  type: T;
  data: D;
  metadata: StoredMetadata;
  recordedAt: Date;
}

export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | bigint;

export interface AppendResult {
  /** Revision of the last event now in the stream. */
  nextRevision: bigint;
  /** Position of the last appended event. */
  position: Position;
}

export interface ReadStreamOptions {
  /** Inclusive start revision; defaults to the first (forwards) or last (backwards) event. */
  from?: bigint;
  direction?: 'forwards' | 'backwards';
  limit?: number;
}

export interface ReadAllOptions {
  /** Exclusive: events strictly after this position. Defaults to START. */
  from?: Position;
  /** At most this many matching events. */
  limit?: number;
  /** Only matching events are returned (and counted against `limit`). */
  filter?: EventFilter;
}

export interface EventFilter {
  eventTypes?: string[];
  streamPrefixes?: string[];
}

export interface SubscribeOptions {
  /** Exclusive, like readAll. */
  from?: Position;
  filter?: EventFilter;
  /**
   * How long to let new events gather after a wake-up before reading them (ms, asked each
   * time; 0 reads at once): under load, one read then serves a burst of appends. `hurry`
   * cuts a gathering short. A store that pushes events (EventStoreDB) ignores it.
   */
  gatherMs?: () => number;
}

/** Catch-up, then live. Iterate with for-await; `stop()` ends the iteration. */
export interface Subscription extends AsyncIterable<RecordedEvent> {
  stop(): Promise<void>;
  /** Reads what is new now, ending a gathering (`SubscribeOptions.gatherMs`) early. */
  hurry?(): void;
}

/**
 * One stream's part of a multi-stream append. Without events it is a check: the stream must be
 * at `expectedRevision` (a number, or 'no_stream') for the whole write to land, and nothing is
 * written to it (a decision's input read from a remembered state, proved by the append).
 */
export interface StreamWrite {
  stream: string;
  events: NewEvent[];
  expectedRevision?: ExpectedRevision;
}

/**
 * Read models applied in the append's own transaction (the projection runner's inline
 * projectors). Only a store that can share its transaction takes them (PostgreSQL).
 */
export interface InlineProjections {
  /** True when an inline projector handles `type`: other appends stay one autocommitted call. */
  handles(type: string): boolean;
  /**
   * Runs `append` in one transaction on `connection` (the store's own client); `append` hands
   * what it wrote to `apply` before commit, and any failure rolls back the append with the rows.
   * `types`: the types of the events it appends (the projectors that handle none are left out).
   */
  transaction<T>(
    connection: unknown,
    types: readonly string[],
    append: (apply: (events: RecordedEvent[]) => Promise<void>) => Promise<T>,
  ): Promise<T>;
}

export interface EventStore {
  readonly kind: 'postgres' | 'esdb';
  /** Present when the store can apply inline projections in its append transaction. */
  useInlineProjections?(inline: InlineProjections): void;
  /** Where an event id is stored, if it is (an indexed lookup): a keyed command's replay check without reading its stream whole. */
  findEvent?(id: string): Promise<{ position: Position; type: string } | null>;
  /** The stream's head revision as this process last saw it (its appends, whole reads); undefined when it does not know. */
  knownRevision?(stream: string): bigint | undefined;
  append(stream: string, events: NewEvent[], options?: { expectedRevision?: ExpectedRevision }): Promise<AppendResult>;
  /**
   * Several streams, each with its own expected revision (a reservation and its owner).
   * Postgres: one transaction, all or nothing. EventStoreDB has no cross-stream
   * transaction: writes go in the given order (reservations first) and a sweep frees
   * reservations whose owner never got written.
   */
  appendMany(writes: StreamWrite[]): Promise<AppendResult[]>;
  /** Empty array when the stream does not exist. */
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /**
   * Several whole streams in one read, each as `readStream` answers it, in the order asked:
   * a decision that reads three short streams waits for one round trip. Absent: read each.
   */
  readStreams?(streams: readonly string[]): Promise<RecordedEvent[][]>;
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  subscribeToAll(options?: SubscribeOptions): Subscription;
  /** The position of the newest event visible to readers, or START. */
  headPosition(): Promise<Position>;
  /**
   * How far a reader at `from` is behind the head: the visible events after it that match
   * `filter` (counted up to `cap`) and when the oldest of them was recorded (null: none).
   */
  measureLag?(
    from: Position,
    filter: EventFilter | undefined,
    cap: number,
  ): Promise<{ events: number; oldest: Date | null }>;
  close(): Promise<void>;
}

export class WrongExpectedRevisionError extends Error {
  readonly name = 'WrongExpectedRevisionError';
  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    readonly actual: bigint | 'no_stream',
  ) {
    super(`stream ${stream}: expected revision ${String(expected)}, actual ${String(actual)}`);
  }
}

/** Some ids of a batch are stored already and others are not: the retry is not a retry. */
export class IdempotencyConflictError extends Error {
  readonly name = 'IdempotencyConflictError';
  constructor(
    readonly stream: string,
    readonly eventIds: string[],
  ) {
    super(`stream ${stream}: event ids ${eventIds.join(', ')} are stored already but the batch differs`);
  }
}

export class EventStoreUnavailableError extends Error {
  readonly name = 'EventStoreUnavailableError';
}

export function matchesFilter(event: { type: string; stream: string }, filter?: EventFilter): boolean {
  if (!filter) return true;
  if (filter.eventTypes && !filter.eventTypes.includes(event.type)) return false;
  if (filter.streamPrefixes && !filter.streamPrefixes.some((p) => event.stream.startsWith(p))) return false;
  return true;
}
