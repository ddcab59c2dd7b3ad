import { randomUUID } from 'node:crypto';
import type { Aggregate } from './aggregate';
import type { CommandContext } from './command-types';
import type { DomainEvent } from './decider';
import { derivedUuid, idempotencyKeyFor } from './idempotency';
import type { PlatformDeps } from '../context-module';
import { currentScope, nextInScope } from '../http/request-scope';
import { Conflict } from '../domain-errors';
import {
  comparePositions,
  type EventStore,
  type Position,
  type RecordedEvent,
  type StreamWrite,
  WrongExpectedRevisionError,
} from '../eventstore/types';

/**
 * The command handler's write path for a decision that spans streams (logging an operational event appends to
 * the event's stream, marks its type as referenced and records the duplicate keys it
 * claims): every stream is read with its revision, one pure decision produces all the
 * writes, and they are appended in one atomic multi-stream call, each at the revision it
 * was read at. A concurrent write to any of them restarts the whole decision (bounded, with
 * jittered back-off), exactly like the single-stream command handler; event ids derive from
 * the Idempotency-Key the same way, and the call waits for the projectors of the appended
 * types before it returns.
 */

export interface Loaded<State> {
  state: State;
  /** null: the stream does not exist yet. */
  revision: bigint | null;
}

/**
 * Folded states of streams, each with the revision it is true at (the command handler's
 * remembered states): events never change once appended and a state is never mutated, so a
 * state is as good as a replay up to its revision. Bounded: the least recently set leaves first.
 */
export class StreamStates<State> {
  private readonly states = new Map<string, Loaded<State>>();
  constructor(private readonly capacity = 1000) {}
  get(stream: string): Loaded<State> | undefined {
    return this.states.get(stream);
  }
  /** After a failed write: the next decision on the stream reads it whole. */
  forget(stream: string): void {
    this.states.delete(stream);
  }
  set(stream: string, loaded: Loaded<State>): void {
    this.states.delete(stream);
    this.states.set(stream, loaded);
    if (this.states.size > this.capacity) this.states.delete(this.states.keys().next().value!);
  }
}

export async function loadAggregate<State, Event extends DomainEvent>(
  store: EventStore,
  aggregate: Aggregate<State, Event>,
  stream: string,
): Promise<Loaded<State>> {
  return foldStream(aggregate, await store.readStream(stream));
}

/** A whole stream's events folded by its aggregate. */
export function foldStream<State, Event extends DomainEvent>(
  aggregate: Aggregate<State, Event>,
  events: readonly RecordedEvent[],
): Loaded<State> {
  let state = aggregate.initialState;
  for (const e of events) state = aggregate.evolve(state, aggregate.read(e));
  return { state, revision: events.length > 0 ? events[events.length - 1].revision : null };
}

/** Whole streams for one decision, in one read where the store can (`EventStore.readStreams`). */
export function readWholeStreams(store: EventStore, streams: readonly string[]): Promise<RecordedEvent[][]> {
  if (store.readStreams) return store.readStreams(streams);
  return Promise.all(streams.map((stream) => store.readStream(stream)));
}

/** Tails of in-process critical sections, by key (see `exclusive` in `handle.together`). */
const held = new Map<string, Promise<void>>();

async function acquire(key: string): Promise<() => void> {
  const previous = held.get(key) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => (release = resolve));
  held.set(key, mine);
  await previous;
  return () => {
    release();
    if (held.get(key) === mine) held.delete(key);
  };
}

/**
 * Takes every key's in-process lock, in sorted order so two callers never wait on each
 * other; answers the release (which may be called more than once).
 */
export async function lockAll(keys: readonly string[]): Promise<() => void> {
  const releases: (() => void)[] = [];
  for (const key of [...new Set(keys)].sort()) releases.push(await acquire(key));
  let released = false;
  return () => {
    if (released) return;
    released = true;
    for (const release of releases.reverse()) release();
  };
}

export interface PlannedWrite {
  stream: string;
  /** The revision the decision read the stream at. */
  revision: bigint | null;
  events: DomainEvent[];
}

export async function appendAtomically<Outcome>(
  deps: Pick<PlatformDeps, 'store' | 'projections' | 'logger' | 'config' | 'clock'>,
  context: CommandContext,
  /**
   * `checks`: streams the decision read but does not write (from a remembered state, say), at
   * the revision read: the append lands only while they are still there (a write without events).
   */
  decide: (now: Date) => Promise<{
    writes: PlannedWrite[];
    outcome: Outcome;
    checks?: Array<{ stream: string; revision: bigint | null }>;
  }>,
  /** `retries`: defaults to COMMAND_RETRIES. */
  options: { retries?: number } = {},
): Promise<{ outcome: Outcome; position: Position | null }> {
  const correlationId = context.correlationId ?? currentScope()?.requestId ?? randomUUID();
  const metadata = {
    ...context.metadata,
    tenantId: context.tenantId,
    actorId: context.actorId,
    correlationId,
    causationId: context.causationId ?? correlationId,
  };
  const key = idempotencyKeyFor(context.idempotencyKey);
  // The n-th write to a stream within the request, as `handle.together` counts it (and with
  // the same counter): two calls of one request that write the same stream (two events of a
  // turn on one duplicate key) derive different ids, a retry of the request the same ones.
  // Drawn once per stream per call, so this call's retries keep them. The first write keeps the
  // ids it derived before writes were counted.
  const nthOf = new Map<string, number>();
  const eventId = (stream: string, index: number) => {
    if (!key) return randomUUID();
    let nth = nthOf.get(stream);
    if (nth === undefined) nthOf.set(stream, (nth = nextInScope(`stream:${stream}`)));
    const parts = nth === 0 ? [stream, String(index)] : [stream, String(nth), String(index)];
    return derivedUuid('event', context.tenantId, key, ...parts);
  };
  const retries = options.retries ?? deps.config.commandRetries;
  for (let attempt = 0; ; attempt++) {
    try {
      const { writes, outcome, checks = [] } = await decide(deps.clock());
      const planned = writes.filter((w) => w.events.length > 0);
      if (planned.length === 0) return { outcome, position: null };
      const written = new Set(planned.map((w) => w.stream));
      const batch: StreamWrite[] = [
        ...planned.map((w) => ({
          stream: w.stream,
          expectedRevision: w.revision ?? ('no_stream' as const),
          events: w.events.map((e, i) => ({ id: eventId(w.stream, i), type: e.type, data: e.data, metadata })),
        })),
        ...checks
          .filter((c) => !written.has(c.stream))
          .map((c) => ({ stream: c.stream, expectedRevision: c.revision ?? ('no_stream' as const), events: [] })),
      ];
      const results = await deps.store.appendMany(batch);
      const position = results.map((r) => r.position).reduce((a, b) => (comparePositions(a, b) >= 0 ? a : b));
      const types = [...new Set(planned.flatMap((w) => w.events.map((e) => e.type)))];
      if (!(await deps.projections.waitFor(position, deps.config.projectionWaitMs, types))) {
        deps.logger.warn(
          { streams: planned.map((w) => w.stream) },
          'projections did not reach the write in time; a read may lag',
        );
      }
      return { outcome, position };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (attempt >= retries) throw new Conflict('the record was changed concurrently; please retry');
      await new Promise((r) => setTimeout(r, Math.random() * 10 * 2 ** attempt));
    }
  }
}
