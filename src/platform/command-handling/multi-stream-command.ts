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

export async function loadAggregate<State, Event extends DomainEvent>(store: EventStore, aggregate: Aggregate<State, Event>, stream: string): Promise<Loaded<State>> {
  const events = await store.readStream(stream);
  let state = aggregate.initialState;
  for (const e of events) state = aggregate.evolve(state, aggregate.read(e));
  return { state, revision: events.length > 0 ? events[events.length - 1].revision : null };
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
  decide: (now: Date) => Promise<{ writes: PlannedWrite[]; outcome: Outcome }>,
  /** `retries`: for hot streams many writers race on (daily usage); defaults to COMMAND_RETRIES. */
  options: { retries?: number } = {},
): Promise<{ outcome: Outcome; position: Position | null }> {
  const correlationId = context.correlationId ?? currentScope()?.requestId ?? randomUUID();
  const metadata = { ...context.metadata, tenantId: context.tenantId, actorId: context.actorId, correlationId, causationId: context.causationId ?? correlationId };
  const key = idempotencyKeyFor(context.idempotencyKey);
  const eventId = (stream: string, index: number) => (key ? derivedUuid('event', context.tenantId, key, stream, String(index)) : randomUUID());
  const retries = options.retries ?? deps.config.commandRetries;
  for (let attempt = 0; ; attempt++) {
    const { writes, outcome } = await decide(deps.clock());
    const planned = writes.filter((w) => w.events.length > 0);
    if (planned.length === 0) return { outcome, position: null };
    const batch: StreamWrite[] = planned.map((w) => ({
      stream: w.stream,
      expectedRevision: w.revision ?? 'no_stream',
      events: w.events.map((e, i) => ({ id: eventId(w.stream, i), type: e.type, data: e.data, metadata })),
    }));
    try {
      const results = await deps.store.appendMany(batch);
      const position = results.map((r) => r.position).reduce((a, b) => (comparePositions(a, b) >= 0 ? a : b));
      const types = [...new Set(planned.flatMap((w) => w.events.map((e) => e.type)))];
      if (!(await deps.projections.waitFor(position, deps.config.projectionWaitMs, types))) {
        deps.logger.warn({ streams: planned.map((w) => w.stream) }, 'projections did not reach the write in time; a read may lag');
      }
      return { outcome, position };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (attempt >= retries) throw new Conflict('the record was changed concurrently; please retry');
      await new Promise((r) => setTimeout(r, Math.random() * 10 * 2 ** attempt));
    }
  }
}
