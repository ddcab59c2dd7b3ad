import { randomUUID } from 'node:crypto';
import type { Aggregate } from './aggregate';
import type { CommandContext } from './command-handler';
import type { DomainEvent } from './decider';
import { derivedUuid, idempotencyKeyFor } from './idempotency';
import type { PlatformDeps } from '../context-module';
import { currentScope } from '../http/request-scope';
import { Conflict } from '../domain-errors';
import { comparePositions, EventStore, Position, StreamWrite, WrongExpectedRevisionError } from '../eventstore/types';

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
 * Folded states of streams read before, by stream: a later load reads only the events after
 * the revision it holds (events never change once appended, and a state is never mutated, so
 * a cached state is as good as a replay). Bounded: the least recently loaded stream leaves first.
 */
export class StreamStates<State> {
  private readonly states = new Map<string, Loaded<State>>();
  constructor(private readonly capacity = 1000) {}
  get(stream: string): Loaded<State> | undefined {
    return this.states.get(stream);
  }
  /** After a conflict: the next load of the stream replays it whole (another process wrote, or the store was reset). */
  forget(stream: string): void {
    this.states.delete(stream);
  }
  set(stream: string, loaded: Loaded<State>): void {
    this.states.delete(stream);
    this.states.set(stream, loaded);
    if (this.states.size > this.capacity) this.states.delete(this.states.keys().next().value!);
  }
}

/**
 * How one decision of `appendAtomically` loads: `trusting`, a cached state at the head this
 * process last saw for its stream is used without a read (another process's write meets the
 * append's expected revision); `fromMemory` records that one was.
 */
export interface LoadScope {
  trusting: boolean;
  fromMemory: boolean;
}

export async function loadAggregate<State, Event extends DomainEvent>(store: EventStore, aggregate: Aggregate<State, Event>, stream: string, cache?: StreamStates<State>, scope?: LoadScope): Promise<Loaded<State>> {
  const known = cache?.get(stream);
  if (scope?.trusting && known && known.revision !== null && store.knownRevision?.(stream) === known.revision) {
    scope.fromMemory = true;
    return known;
  }
  const events = await store.readStream(stream, known?.revision != null ? { from: known.revision + 1n } : undefined);
  let state = known?.state ?? aggregate.initialState;
  for (const e of events) state = aggregate.evolve(state, aggregate.read(e));
  const loaded = { state, revision: events.length > 0 ? events[events.length - 1].revision : (known?.revision ?? null) };
  if (cache && loaded.revision !== null) cache.set(stream, loaded);
  return loaded;
}

/** Tails of in-process critical sections, by key (see `exclusive` in appendAtomically). */
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

/** Runs `fn` holding every key's in-process lock (taken in sorted order, so two callers never wait on each other). */
async function holding<T>(keys: readonly string[], fn: () => Promise<T>): Promise<T> {
  const releases: (() => void)[] = [];
  try {
    for (const key of [...new Set(keys)].sort()) releases.push(await acquire(key));
    return await fn();
  } finally {
    for (const release of releases.reverse()) release();
  }
}

export interface PlannedWrite {
  stream: string;
  /** The revision the decision read the stream at. */
  revision: bigint | null;
  events: DomainEvent[];
  /** The stream's state after these events: remembered in `states` at the revision the append gives them. */
  after?: unknown;
}

export async function appendAtomically<Outcome>(
  deps: Pick<PlatformDeps, 'store' | 'projections' | 'logger' | 'config' | 'clock'>,
  context: CommandContext,
  /** `scope`: pass it to `loadAggregate` for loads that may come from the `states` cache without a read. */
  decide: (now: Date, scope: LoadScope) => Promise<{ writes: PlannedWrite[]; outcome: Outcome }>,
  /**
   * `retries`: for hot streams many writers race on (daily usage); defaults to COMMAND_RETRIES.
   * `exclusive`: keys (the hot streams' names) whose writers in this process take turns, each
   * reading and appending while the others wait, so they never race each other; writers in
   * other processes still can, and the retries answer those. `states`: the cache the decision
   * loads from, whose streams a conflict makes it forget.
   */
  options: { retries?: number; exclusive?: readonly string[]; states?: StreamStates<unknown> } = {},
): Promise<{ outcome: Outcome; position: Position | null }> {
  const correlationId = context.correlationId ?? currentScope()?.requestId ?? randomUUID();
  const metadata = { ...context.metadata, tenantId: context.tenantId, actorId: context.actorId, correlationId, causationId: context.causationId ?? correlationId };
  const key = idempotencyKeyFor(context.idempotencyKey);
  const eventId = (stream: string, index: number) => (key ? derivedUuid('event', context.tenantId, key, stream, String(index)) : randomUUID());
  const retries = options.retries ?? deps.config.commandRetries;
  let attempted: StreamWrite[] = [];
  let mustRead = false;
  for (let attempt = 0; ; attempt++) {
    const scope: LoadScope = { trusting: !mustRead, fromMemory: false };
    try {
      const written = await holding(options.exclusive ?? [], async () => {
        let decided: Awaited<ReturnType<typeof decide>>;
        try {
          decided = await decide(deps.clock(), scope);
        } catch (error) {
          // A refusal decided from what this process remembers is not trusted: decide again from a read.
          if (scope.fromMemory) return null;
          throw error;
        }
        const { writes, outcome } = decided;
        const planned = writes.filter((w) => w.events.length > 0);
        // Nothing to append, so no expected revision proves a remembered state: confirmed by a read.
        if (planned.length === 0 && scope.fromMemory) return null;
        if (planned.length === 0) return { outcome, planned, position: null };
        const batch: StreamWrite[] = planned.map((w) => ({
          stream: w.stream,
          expectedRevision: w.revision ?? 'no_stream',
          events: w.events.map((e, i) => ({ id: eventId(w.stream, i), type: e.type, data: e.data, metadata })),
        }));
        attempted = batch;
        const results = await deps.store.appendMany(batch);
        planned.forEach((w, i) => {
          if (w.after !== undefined) options.states?.set(w.stream, { state: w.after, revision: results[i].nextRevision });
        });
        return { outcome, planned, position: results.map((r) => r.position).reduce((a, b) => (comparePositions(a, b) >= 0 ? a : b)) };
      });
      if (written === null) {
        mustRead = true;
        attempt--;
        continue;
      }
      const { outcome, planned, position } = written;
      if (position === null) return { outcome, position };
      const types = [...new Set(planned.flatMap((w) => w.events.map((e) => e.type)))];
      if (!(await deps.projections.waitFor(position, deps.config.projectionWaitMs, types))) {
        deps.logger.warn({ streams: planned.map((w) => w.stream) }, 'projections did not reach the write in time; a read may lag');
      }
      return { outcome, position };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      for (const write of attempted) options.states?.forget(write.stream);
      if (scope.fromMemory) {
        // Decided from memory and another process wrote meanwhile: read and decide again at once.
        mustRead = true;
        attempt--;
        continue;
      }
      if (attempt >= retries) throw new Conflict('the record was changed concurrently; please retry');
      await new Promise((r) => setTimeout(r, Math.random() * 10 * 2 ** attempt));
    }
  }
}
