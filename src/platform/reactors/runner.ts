import type { AnyReactor, PlatformDeps } from '../context-module';
import { comparePositions, type Position, type RecordedEvent } from '../eventstore/types';
import { advanceCheckpoint, readCheckpoint, saveCheckpoint } from '../projection-runner/checkpoints';
import {
  type DeadLetter,
  openDeadLetters,
  recordDeadLetter,
  resolveDeadLetter,
  retryLetters,
  type RetryOutcome,
} from '../projection-runner/dead-letters';
import {
  HandlerFailed,
  LaneRuntime,
  type LaneRuntimeOptions,
  type LaneState,
  LeadershipLost,
} from '../projection-runner/lane-runtime';
import { transactionOnPool } from '../infra/transaction';
import { inReaction } from '../observability/tracing';
import { runReaction, runReactionBatch } from './reaction';

/**
 * A reactor's checkpoint and dead letters live in the projection tables under this prefix,
 * so `ops projections …` and `ops reactors …` each list only their own.
 */
export const REACTOR_PREFIX = 'reactor:';
export const reactorCheckpoint = (name: string) => `${REACTOR_PREFIX}${name}`;
const VERSION = 1;

export interface ReactorRunnerOptions extends LaneRuntimeOptions {
  reactors: AnyReactor[];
  /** The platform's deps, given to `react` (filled once the composition root has them). */
  deps: () => PlatformDeps;
  batchSize?: number;
}

interface Lane extends LaneState {
  reactor: AnyReactor;
  /** The reactor's pace (ms, `Reactor.paceMs`); 0: it reads again at once after reacting. */
  paceMs: number;
}

/**
 * Runs reactors (process managers, docs/reactors.md) on the leader, as lanes of the shared
 * runtime: one lane per reactor reads the events it handles in log order; for each it loads the
 * facts the reactor declares, asks its pure `react` for the commands and sends them through the
 * command handler (reactors/reaction.ts), then moves its fenced checkpoint past the event
 * (compare and set). The commands commit on their own, outside the checkpoint's write, so a
 * crash between the two replays the event: each command's key derives from the event and its
 * step, and the reaction's scope from the reactor and the event, so the replay derives the same
 * ids and the store turns it into a no-op. A reaction that keeps failing goes to the dead
 * letters after bounded retries with backoff; read failures retry without counting.
 */
export class ReactorRunner extends LaneRuntime<Lane> {
  private readonly batchSize: number;

  constructor(private readonly options: ReactorRunnerOptions) {
    super('reactor', options);
    this.batchSize = options.batchSize ?? 100;
    const names = new Set<string>();
    for (const reactor of options.reactors) {
      if (names.has(reactor.name)) throw new Error(`two reactors are named ${reactor.name}`);
      names.add(reactor.name);
    }
  }

  get names(): string[] {
    return this.options.reactors.map((r) => r.name);
  }

  async start(): Promise<void> {
    if (this.options.reactors.length === 0) return;
    await this.startLeading();
  }

  protected async prepareLanes(): Promise<Lane[]> {
    const lanes: Lane[] = [];
    for (const reactor of this.options.reactors) {
      const position = await this.prepare(reactor);
      const paceMs = reactor.paceMs?.(this.options.deps().config) ?? 0;
      lanes.push({
        name: reactor.name,
        checkpoint: reactorCheckpoint(reactor.name),
        version: VERSION,
        eventTypes: reactor.handles,
        reactor,
        position,
        saved: position,
        savedAt: 0,
        caughtUp: false,
        failures: 0,
        stalls: 0,
        wake: () => undefined,
        paceMs,
      });
    }
    return lanes;
  }

  /**
   * A reactor seen for the first time starts at the head of the log: it reacts to what
   * happens from its deployment on, never re-issues the history's follow-ups (the routes did
   * those before reactors existed). One that replaces others (`Reactor.replaces`) starts where
   * the old lane stood.
   */
  private async prepare(reactor: AnyReactor): Promise<Position> {
    const name = reactorCheckpoint(reactor.name);
    const stored = await readCheckpoint(this.options.knex, name);
    if (stored) return stored.position;
    let start: Position | null = null;
    for (const old of reactor.replaces ?? []) {
      start = (await readCheckpoint(this.options.knex, reactorCheckpoint(old)))?.position ?? null;
      if (start) break;
    }
    start ??= await this.options.store.headPosition();
    await saveCheckpoint(this.options.knex, name, { version: VERSION, position: start, reset: true });
    return start;
  }

  protected laneSpecs() {
    return this.options.reactors.map((r) => ({
      name: r.name,
      checkpoint: reactorCheckpoint(r.name),
      eventTypes: r.handles,
    }));
  }

  protected restMs(lane: Lane, reacted: number): number {
    if (reacted === 0) lane.caughtUp = true;
    // A paced lane goes on at once only after a full batch: there is more to read now.
    if (lane.paceMs > 0) return reacted < this.batchSize ? lane.paceMs : 0;
    return reacted === 0 ? this.idleMs : 0;
  }

  /** Routes waiting in `waitFor` for their follow-ups. */
  private waiting = 0;

  protected urgent(): boolean {
    return this.waiting > 0;
  }

  /** A paced lane keeps its pace: what arrives meanwhile joins its next batch. */
  protected wakeForNewEvents(lane: Lane): void {
    if (lane.paceMs === 0) lane.wake();
  }

  protected async deadLetter(lane: Lane, event: RecordedEvent, error: unknown): Promise<void> {
    await transactionOnPool(this.options.knex, async (trx) => {
      await advanceCheckpoint(trx, lane.checkpoint, {
        version: VERSION,
        from: lane.saved,
        to: event.position,
        applied: 0,
      });
      await recordDeadLetter(trx, lane.checkpoint, event, error, lane.failures);
    });
  }

  /** Reacts to the next events the reactor handles; answers how many it reacted to. */
  protected async step(lane: Lane): Promise<number> {
    const { store, knex } = this.options;
    const { reactor } = lane;
    const name = reactorCheckpoint(reactor.name);
    const limit = lane.failures > 0 ? 1 : this.batchSize;
    // The head before the read: a short read has seen everything up to it.
    const head = await store.headPosition();
    const events = await store.readAll({ from: lane.saved, limit, filter: { eventTypes: [...reactor.handles] } });
    // The checkpoint moves once per batch, past the reactions that succeeded (before a failure
    // too): a crash in between replays them, and a reaction replayed under its event's scope
    // appends nothing twice, so one write per batch loses nothing but a few reads.
    let reacted = 0;
    await this.inBatch(lane, events, async () => {
      try {
        if (reactor.reactBatch && lane.failures === 0 && events.length > 1) {
          if (!this.options.leaderLock.isHeld()) throw new LeadershipLost("the reactor lock's session is gone");
          await this.reactAll(reactor, events);
          lane.position = events[events.length - 1].position;
          reacted = events.length;
        } else
          for (const event of events) {
            if (!this.options.leaderLock.isHeld()) throw new LeadershipLost("the reactor lock's session is gone");
            await this.react(reactor, event);
            lane.position = event.position;
            lane.failures = 0;
            reacted++;
          }
      } finally {
        if (reacted > 0) {
          await advanceCheckpoint(knex, name, {
            version: VERSION,
            from: lane.saved,
            to: lane.position,
            applied: reacted,
          });
          lane.saved = lane.position;
          lane.savedAt = Date.now();
        }
      }
    });
    if (events.length < limit && comparePositions(head, lane.position) > 0) {
      lane.position = head;
      if (Date.now() - lane.savedAt > 1000) {
        // Persist a skip over unrelated events now and then, so a restart does not rescan it.
        await advanceCheckpoint(knex, name, { version: VERSION, from: lane.saved, to: head, applied: 0 });
        lane.saved = head;
        lane.savedAt = Date.now();
      }
    }
    return events.length;
  }

  private async reactAll(reactor: AnyReactor, events: RecordedEvent[]): Promise<void> {
    try {
      await inReaction(reactor.name, events, () => runReactionBatch(reactor, events, this.options.deps()));
    } catch (error) {
      // Counted against the batch's first event; the lane then reacts one event at a time.
      throw new HandlerFailed(events, error);
    }
  }

  private async react(reactor: AnyReactor, event: RecordedEvent): Promise<void> {
    try {
      await inReaction(reactor.name, [event], () => runReaction(reactor, event, this.options.deps()));
    } catch (error) {
      throw new HandlerFailed([event], error);
    }
  }

  /**
   * Resolves true once every reactor handling one of `eventTypes` has reacted to the log up
   * to `position` (a route that wants its follow-ups visible in its answer waits here),
   * false when `timeoutMs` passes first.
   */
  async waitFor(position: Position, timeoutMs: number, eventTypes: readonly string[]): Promise<boolean> {
    const concerned = this.options.reactors.filter((r) => r.handles.some((t) => eventTypes.includes(t)));
    if (concerned.length === 0) return true;
    const deadline = Date.now() + timeoutMs;
    // Someone waits: a paced lane reads now too, and the subscription does not gather.
    for (const reactor of concerned) this.lanes.get(reactor.name)?.wake();
    this.waiting++;
    try {
      for (;;) {
        if (await this.reached(position, concerned)) return true;
        if (Date.now() >= deadline) return false;
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      this.waiting--;
    }
  }

  private async reached(position: Position, reactors: AnyReactor[]): Promise<boolean> {
    if (!this.leader)
      return this.storedReached(
        position,
        reactors.map((r) => ({ checkpoint: reactorCheckpoint(r.name), eventTypes: r.handles })),
      );
    if (!(await this.visible(position))) return false;
    return reactors.every((r) => {
      const lane = this.lanes.get(r.name);
      return !!lane && lane.failures === 0 && comparePositions(lane.position, position) >= 0;
    });
  }

  /**
   * `ops reactors retry <name>`: reacts again to each unresolved dead letter (after a fix)
   * under the same scope as the first time, so whatever the failed attempt did commit is
   * not done twice.
   */
  async retryDeadLetters(name: string): Promise<{ resolved: number; remaining: number }> {
    if (this.takersOf(name).length === 0) throw new Error(`no reactor named ${name}`);
    const { resolved, remaining } = await this.retryLetters(
      await openDeadLetters(this.options.knex, reactorCheckpoint(name)),
    );
    return { resolved, remaining };
  }

  /** Reacts to these dead letters again (dead-letters.ts `retryLetters`). */
  retryLetters(letters: DeadLetter[]): Promise<RetryOutcome> {
    const { knex, store, logger } = this.options;
    return retryLetters(store, logger, letters, async (event, letter) => {
      const name = letter.projector.slice(REACTOR_PREFIX.length);
      const takers = this.takersOf(name).filter((r) => r.handles.includes(event.type));
      if (takers.length === 0) throw new Error(`no reactor of this build reacts to ${event.type} for ${name}`);
      // A second retry at once reacts twice under the same scope, which derives the same ids: nothing is done twice.
      for (const reactor of takers) await this.react(reactor, event);
      return resolveDeadLetter(knex, letter.id);
    });
  }

  /**
   * Who reacts to a lane's dead letters: its reactor, or, for a lane this build no longer runs,
   * the reactors that replace it (`Reactor.replaces`): they took over its work, parked events included.
   */
  private takersOf(name: string): AnyReactor[] {
    const own = this.options.reactors.filter((r) => r.name === name);
    return own.length > 0 ? own : this.options.reactors.filter((r) => r.replaces?.includes(name));
  }

  async stop(): Promise<void> {
    await this.stopLeading();
  }
}
