import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { Conflict } from '../domain-errors';
import {
  type EventStore,
  type Position,
  type RecordedEvent,
  type StreamWrite,
  WrongExpectedRevisionError,
} from '../eventstore/types';
import type { Decider, DomainEvent } from './decider';
import { derivedUuid, idempotencyKeyFor } from './idempotency';
import { claimFreshStream, currentScope, nextInScope } from '../http/request-scope';
import { reservationDecider, reservationStream } from './reservation';
import type { SnapshotStore } from './snapshots';
import { lockAll, StreamStates } from './multi-stream-command';
import { inSpan, noteOnSpan, tracingOn } from '../observability/tracing';
import type {
  CommandContext,
  CommandHandler,
  CommandOptions,
  CommandResult,
  Decision,
  StateFold,
} from './command-types';

export type {
  CommandContext,
  CommandHandler,
  CommandOptions,
  CommandResult,
  Decision,
  StateFold,
} from './command-types';

export interface ProjectionWaiter {
  /** `eventTypes`: only the projectors handling one of them are waited for. */
  waitFor(position: Position, timeoutMs: number, eventTypes?: readonly string[]): Promise<boolean>;
}

export interface CommandHandlerDeps {
  store: EventStore;
  projections: ProjectionWaiter;
  logger: Logger;
  snapshots?: SnapshotStore;
  clock?: () => Date;
  retries?: number;
  projectionWaitMs?: number;
  /** Streams whose last decided state this process remembers (see `remembered`). */
  rememberedStreams?: number;
}

/** A command's name in its span: its `type` (`SubmitChecklist`), as every command here has one. */
const commandName = (command: unknown) => {
  const type = (command as { type?: unknown } | null)?.type;
  return typeof type === 'string' ? type : 'command';
};

/** The release of no lock (most commands take none). */
const UNLOCKED = () => {};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Load (from the latest snapshot when the stream keeps them), fold, decide, append with the
 * revision read together with any reservation streams; on a concurrent write, back off with
 * jitter and try again from the top (bounded); then wait until the projectors that handle
 * the appended types hold the write, so a GET right after the command sees it.
 */
export function createCommandHandler(deps: CommandHandlerDeps): CommandHandler {
  const { store, projections, logger, snapshots } = deps;
  const clock = deps.clock ?? (() => new Date());
  const retries = deps.retries ?? 3;
  const waitMs = deps.projectionWaitMs ?? 5000;
  /**
   * The state this process last decided or read for a stream, with its revision: the next
   * command on that stream decides from it without reading the stream, and its append, which
   * expects that revision, proves no other writer came between (a conflict forgets it and reads).
   * A turn issues a dozen commands on its conversation and its turn stream; each read them whole.
   */
  const remembered = new StreamStates<{ fold: Fold; state: unknown }>(deps.rememberedStreams ?? 5000);

  /**
   * What a state depends on: the fold (initial state, evolve and read), not the decision, so
   * the deciders of one aggregate (each spreads it with its own decide) share what is remembered.
   */
  type Fold = { evolve: unknown; read?: unknown; initialState: unknown };
  const sameFold = (a: Fold, b: Fold) =>
    a.evolve === b.evolve && a.read === b.read && a.initialState === b.initialState;

  /**
   * What this process remembers of `stream` for this decider, if anything; `atHead`: only if
   * the store's head is still the remembered revision as far as this process knows.
   */
  function recall<State>(
    decider: Decider<any, State, any>,
    stream: string,
    atHead = true,
  ): { state: State; revision: bigint | null } | null {
    const known = remembered.get(stream);
    if (!known || !sameFold(known.state.fold, decider)) return null;
    // Another writer in this process (another handler, a multi-stream append) moved the head
    // (a stream remembered as absent: this process has seen it exist since).
    if (atHead && store.knownRevision && store.knownRevision(stream) !== (known.revision ?? undefined)) return null;
    return { state: known.state.state as State, revision: known.revision };
  }

  /**
   * The stream's state now, read: from a state remembered at an older revision (events never
   * change, so only those after it are read and folded), else from the snapshot or the start.
   * `incremental` tells the replay check that the events read are not the whole stream (they
   * follow a remembered state or a snapshot), so it looks the first request's event up.
   */
  async function read<State, Event extends DomainEvent>(
    decider: Decider<unknown, State, Event>,
    stream: string,
    replayCheck: boolean,
  ) {
    // A keyed command reads the whole stream unless the store can look its event id up.
    const whole = replayCheck && !store.findEvent;
    const known = whole ? null : recall(decider, stream, false);
    if (!known || known.revision === null) {
      const { fromSnapshot, ...loaded } = await load(decider, stream, whole);
      return { ...loaded, incremental: fromSnapshot };
    }
    const stored = await store.readStream(stream, { from: known.revision + 1n });
    return {
      state: foldOnto(decider, known.state, stored),
      stored,
      revision: stored.length > 0 ? stored[stored.length - 1].revision : known.revision,
      incremental: true,
    };
  }

  /** `state` with the stored `events` folded in, read back through the decider's `read`. */
  function foldOnto<State, Event extends DomainEvent>(
    decider: Decider<unknown, State, Event>,
    state: State,
    events: RecordedEvent[],
  ): State {
    const read = decider.read ?? ((e: RecordedEvent) => ({ type: e.type, data: e.data }) as Event);
    for (const event of events) state = decider.evolve(state, read(event));
    return state;
  }

  /** `revision` null: the stream did not exist (a decision from it appends expecting no stream). */
  function remember<State>(
    decider: Decider<any, State, any>,
    stream: string,
    state: State,
    revision: bigint | null,
  ): void {
    remembered.set(stream, {
      state: { fold: { evolve: decider.evolve, read: decider.read, initialState: decider.initialState }, state },
      revision,
    });
  }

  /** `whole`: from revision 0, never from a snapshot. `fromSnapshot`: `stored` holds only the events after one. */
  async function load<State, Event extends DomainEvent>(
    decider: Decider<unknown, State, Event>,
    stream: string,
    whole = false,
  ) {
    let state = decider.initialState;
    let revision: bigint | null = null;
    const stored = whole
      ? { events: await store.readStream(stream), snapshot: undefined }
      : await readForDecision(decider, stream);
    if (stored.snapshot) ({ state, revision } = stored.snapshot);
    state = foldOnto(decider, state, stored.events);
    if (stored.events.length > 0) revision = stored.events[stored.events.length - 1].revision;
    return { state, stored: stored.events, revision, fromSnapshot: stored.snapshot !== undefined };
  }

  /**
   * The events a decision folds, after the snapshot it starts from (if any). A stream that
   * keeps snapshots is first read backwards, one snapshot interval's worth: most streams are
   * shorter than that, and then that one query is all (the snapshot table is not read). A
   * longer stream's snapshot is at most one interval behind its head, so the tail read usually
   * covers everything after it.
   */
  async function readForDecision<State, Event extends DomainEvent>(
    decider: Decider<unknown, State, Event>,
    stream: string,
  ): Promise<{ events: RecordedEvent[]; snapshot?: { state: State; revision: bigint } }> {
    const policy = decider.snapshot;
    if (!policy || !snapshots) return { events: await store.readStream(stream) };
    const tail = (await store.readStream(stream, { direction: 'backwards', limit: policy.every })).reverse();
    if (tail.length < policy.every || tail[0].revision === 0n) return { events: tail };
    const snapshot = await snapshots.load(stream);
    if (!snapshot || snapshot.version !== policy.version) return { events: await store.readStream(stream) };
    const after = snapshot.revision + 1n;
    const events =
      after >= tail[0].revision
        ? tail.filter((e) => e.revision >= after)
        : await store.readStream(stream, { from: after });
    return { events, snapshot: { state: policy.fromJSON(snapshot.state), revision: snapshot.revision } };
  }

  /**
   * Several commands, each on its own stream and decided by its own decider exactly as
   * `handle` decides one, appended in one atomic write (a turn's progress and the messages it
   * adds to its conversation). Each keeps its own replay check, remembered state and
   * reservations; a conflict on any stream decides them all again. Traced as one span
   * (docs/operations.md#tracing): the commands' names and streams, and the revision written.
   */
  function together(
    decisions: readonly Decision<any, any, any>[],
    context: CommandContext,
    options: { retries?: number } = {},
  ): Promise<CommandResult<unknown, DomainEvent>[]> {
    if (!tracingOn()) return decideTogether(decisions, context, options);
    const names = decisions.map((d) => commandName(d.command)).join(', ');
    return inSpan(
      `command ${names}`,
      {
        'command.name': names,
        'command.stream': decisions.map((d) => d.stream).join(', '),
        'tenant.id': context.tenantId,
      },
      () => decideTogether(decisions, context, options),
    );
  }

  async function decideTogether(
    decisions: readonly Decision<any, any, any>[],
    context: CommandContext,
    options: { retries?: number } = {},
  ): Promise<CommandResult<unknown, DomainEvent>[]> {
    if (decisions.length > 1 && new Set(decisions.map((d) => d.stream)).size !== decisions.length)
      throw new Error('commands handled together must target different streams');
    // Every event one request appends shares its request id, so one query finds all it caused.
    const correlationId = context.correlationId ?? currentScope()?.requestId ?? randomUUID();
    const idempotencyKey = idempotencyKeyFor(context.idempotencyKey);
    const metadata = {
      ...context.metadata,
      tenantId: context.tenantId,
      actorId: context.actorId,
      correlationId,
      causationId: context.causationId ?? correlationId,
    };
    const items = decisions.map(({ decider, stream, command, options }) => {
      // The n-th command on this stream within the request: two commands on one stream in one
      // request derive different ids, a retry of the request derives the same ones.
      const nth = idempotencyKey ? String(nextInScope(`stream:${stream}`)) : '';
      const eventId = (target: string, index: number) =>
        idempotencyKey
          ? derivedUuid('event', context.tenantId, idempotencyKey, stream, nth, target, String(index))
          : randomUUID();
      // Decided without reading the stream: a stream named after an id this request just drew
      // at random (no events yet), or one whose state this process remembers (unless the
      // request has an Idempotency-Key: the replay check needs the stream's events). Should the
      // stream hold more after all, a refusal decided that way is not trusted and the append's
      // expected revision refuses the rest: either way the decision is made again from a read.
      return {
        decider: decider as Decider<unknown, unknown, DomainEvent>,
        stream,
        command,
        options: (options ?? {}) as CommandOptions,
        eventId,
        fresh: claimFreshStream(stream),
        mustRead: false,
      };
    });
    const unreadOf = (item: (typeof items)[number]) =>
      item.mustRead
        ? null
        : item.fresh
          ? { state: item.decider.initialState, revision: null }
          : idempotencyKey
            ? null
            : recall(item.decider, item.stream);

    const exclusive = decisions.filter((d) => d.exclusive).map((d) => d.stream);
    for (let attempt = 0; ; attempt++) {
      const unlock = exclusive.length > 0 ? await lockAll(exclusive) : UNLOCKED;
      try {
        const decided: Array<{
          state: unknown;
          events: DomainEvent[];
          revision: bigint | null;
          unread: boolean;
          replayed?: Position;
          own?: number;
        }> = [];
        const writes: StreamWrite[] = [];
        let readAgain = false;
        for (const item of items) {
          const { decider, stream } = item;
          const known = unreadOf(item);
          const unread = known !== null;
          const { state, stored, revision, incremental } = known
            ? { ...known, stored: [] as RecordedEvent[], incremental: false }
            : await read(decider, stream, idempotencyKey !== undefined);
          if (idempotencyKey) {
            const first = item.eventId(stream, 0);
            // Read from a remembered state, the events before it were not: the store looks the id up.
            const done = stored.find((e) => e.id === first) ?? (incremental ? await store.findEvent!(first) : null);
            if (done) {
              // The first request may still be on its way to the read models: answer as it will.
              await projections.waitFor(done.position, waitMs, [done.type]);
              decided.push({ state, events: [], revision, unread, replayed: done.position });
              continue;
            }
          }
          let events: DomainEvent[];
          try {
            events = decider.decide(item.command, state, clock());
          } catch (error) {
            if (!unread) throw error;
            item.mustRead = true;
            readAgain = true;
            break;
          }
          const before = writes.length;
          // Reservations first: where the store cannot write several streams atomically
          // (EventStoreDB) a failure after them leaves an orphaned claim for the sweep, never a
          // second owner.
          const claims = [
            ...(item.options.reserve ?? []).map((key) => ({ key, command: { type: 'Claim' as const, owner: stream } })),
            ...(item.options.release ?? []).map((key) => ({
              key,
              command: { type: 'Release' as const, owner: stream },
            })),
          ];
          // A claim is first made as if the value had never been claimed (nearly always true:
          // a new e-mail, a new entity_id): the append's 'no_stream' proves it, one read fewer.
          // Should the value have a history, the conflict has everything read and decided again.
          const optimistic = !item.mustRead;
          for (const { key, command: claim } of claims) {
            const target = reservationStream(key.context, key.tenantId, key.kind, key.value);
            const reservation = reservationDecider(key.label);
            const held =
              optimistic && claim.type === 'Claim'
                ? { state: reservation.initialState, revision: null }
                : await load(reservation, target);
            const claimed = reservation.decide(claim, held.state, clock());
            if (claimed.length === 0) continue;
            writes.push({
              stream: target,
              expectedRevision: held.revision ?? 'no_stream',
              events: claimed.map((event, i) => ({
                id: item.eventId(target, i),
                type: event.type,
                data: event.data,
                metadata,
              })),
            });
          }
          const own = events.length > 0 ? writes.length : undefined;
          if (events.length > 0) {
            writes.push({
              stream,
              expectedRevision: revision ?? 'no_stream',
              events: events.map((event, i) => ({
                id: item.eventId(stream, i),
                type: event.type,
                data: event.data,
                metadata,
              })),
            });
          }
          // Nothing to append, so no expected revision proves the state: a decision made without
          // a read (another instance may have written since) is confirmed by one.
          if (unread && writes.length === before) {
            item.mustRead = true;
            readAgain = true;
            break;
          }
          decided.push({
            state,
            events,
            revision,
            unread: unread || (optimistic && claims.some((c) => c.command.type === 'Claim')),
            own,
          });
        }
        if (readAgain) {
          attempt--;
          continue;
        }
        const outcome = (position: Position | null, heads: bigint[]) =>
          decided.map((d, i): CommandResult<unknown, DomainEvent> => {
            if (d.replayed) {
              noteOnSpan({ 'command.replayed': true });
              return { state: d.state, events: [], position: d.replayed, replayed: true };
            }
            const { decider, stream } = items[i];
            const next = d.events.reduce(decider.evolve, d.state);
            const head = d.own === undefined ? d.revision : heads[d.own];
            // An append the store answered as a replay of events it already held (a keyed retry
            // racing the first request) names an older head than this decision's own: the state
            // decided here is true at no revision, so it is not remembered.
            const own = d.own === undefined || head === (d.revision ?? -1n) + BigInt(d.events.length);
            if (decided.length === 1 && head !== null) noteOnSpan({ 'command.revision': Number(head) });
            if (own) remember(decider, stream, next, head);
            else remembered.forget(stream);
            return { state: next, events: d.events, position };
          });
        if (writes.length === 0) return outcome(null, []);
        try {
          const results =
            writes.length === 1
              ? [
                  await store.append(writes[0].stream, writes[0].events, {
                    expectedRevision: writes[0].expectedRevision,
                  }),
                ]
              : await store.appendMany(writes);
          const position = results.reduce((a, b) =>
            a.position.commit > b.position.commit ||
            (a.position.commit === b.position.commit && a.position.prepare >= b.position.prepare)
              ? a
              : b,
          ).position;
          const answers = outcome(
            position,
            results.map((r) => r.nextRevision),
          );
          unlock();
          const types = [...new Set(writes.flatMap((w) => w.events.map((e) => e.type)))];
          const caughtUp = await projections.waitFor(position, waitMs, types);
          if (!caughtUp)
            logger.warn(
              { streams: writes.map((w) => w.stream), waitMs },
              'projections did not reach the write in time; a read may lag',
            );
          for (const [i, d] of decided.entries()) {
            if (d.own !== undefined)
              await saveSnapshot(
                items[i].decider,
                items[i].stream,
                answers[i].state,
                results[d.own].nextRevision,
                d.events.length,
              );
          }
          return answers;
        } catch (error) {
          unlock();
          // Not forgotten on a conflict: what is remembered is true at its revision, and the next read starts from it.
          if (!(error instanceof WrongExpectedRevisionError)) {
            for (const item of items) remembered.forget(item.stream);
            throw error;
          }
          if (decided.some((d) => d.unread)) {
            // Decided from what this process knew, and another writer came between: read and
            // decide again at once (not a contended stream, so no back-off and no retry spent).
            for (const item of items) item.mustRead = true;
            attempt--;
            continue;
          }
          noteOnSpan({ 'command.conflicts': attempt + 1 });
          if (attempt >= (options.retries ?? retries))
            throw new Conflict('the record was changed concurrently; please retry');
          await sleep(Math.random() * 10 * 2 ** attempt);
        }
      } finally {
        unlock();
      }
    }
  }

  async function handle<Command, State, Event extends DomainEvent>(
    decider: Decider<Command, State, Event>,
    stream: string,
    command: Command,
    context: CommandContext,
    options: CommandOptions = {},
  ): Promise<CommandResult<State, Event>> {
    const [result] = await together([{ decider, stream, command, options }], context);
    return result as CommandResult<State, Event>;
  }

  return Object.assign(handle, {
    together: together as CommandHandler['together'],
    recall: <State>(fold: StateFold<State>, stream: string) => recall(fold as Decider<any, State, any>, stream),
    remember: <State>(fold: StateFold<State>, stream: string, state: State, revision: bigint | null) =>
      remember(fold as Decider<any, State, any>, stream, state, revision),
  });

  async function saveSnapshot<State, Event extends DomainEvent>(
    decider: Decider<any, State, Event>,
    stream: string,
    state: State,
    revision: bigint,
    appended: number,
  ): Promise<void> {
    const policy = decider.snapshot;
    if (!policy || !snapshots) return;
    // The batch that crosses a multiple of `every` takes the snapshot.
    const every = BigInt(policy.every);
    if ((revision + 1n) / every === (revision + 1n - BigInt(appended)) / every) return;
    await snapshots
      .save(stream, { revision, version: policy.version, state: policy.toJSON(state) })
      .catch((err) => logger.warn({ err, stream }, 'snapshot not saved; the next command folds from the previous one'));
  }
}
