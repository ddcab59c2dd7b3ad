import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { PlatformDeps, Reactor } from '../context-module';
import { comparePositions, EventStore, Position, positionToString, RecordedEvent } from '../eventstore/types';
import { withScope } from '../http/request-scope';
import { advanceCheckpoint, CheckpointMoved, markCheckpoint, readCheckpoint, readCheckpoints, saveCheckpoint } from '../projection-runner/checkpoints';
import { openDeadLetters, recordDeadLetter, resolveDeadLetter } from '../projection-runner/dead-letters';
import type { LeaderLock } from '../projection-runner/leader-lock';
import { transactionOnPool } from '../infra/transaction';

/**
 * A reactor's checkpoint and dead letters live in the projection tables under this prefix,
 * so `ops projections …` and `ops reactors …` each list only their own.
 */
export const REACTOR_PREFIX = 'reactor:';
export const reactorCheckpoint = (name: string) => `${REACTOR_PREFIX}${name}`;
const VERSION = 1;

export interface ReactorRunnerOptions {
  knex: Knex;
  store: EventStore;
  reactors: Reactor[];
  /** The platform's deps, given to `react` (filled once the composition root has them). */
  deps: () => PlatformDeps;
  logger: Logger;
  leaderLock: LeaderLock;
  batchSize?: number;
  idleMs?: number;
  /** Attempts at one event before it goes to the dead letters. */
  deadLetterAfter?: number;
  /** First retry delay; doubles per failure, capped at 30 s. */
  retryBaseMs?: number;
}

interface Lane {
  reactor: Reactor;
  /** Where the stored checkpoint stands (compare-and-set source). */
  saved: Position;
  /** How far the lane has seen the log (may run ahead of `saved` over skipped stretches). */
  seen: Position;
  failures: number;
  wake: () => void;
  savedAt: number;
  /** The reactor's pace (ms, `Reactor.paceMs`); 0: it reads again at once after reacting. */
  paceMs: number;
}

class LeadershipLost extends Error {
  readonly name = 'LeadershipLost';
}

/** A failure of `react` itself (counts toward dead-lettering), as opposed to reading the log. */
class ReactionFailed extends Error {
  readonly name = 'ReactionFailed';
  constructor(readonly event: RecordedEvent, readonly cause: unknown) {
    super(String((cause as Error)?.message ?? cause));
  }
}

/**
 * Runs reactors (process managers) on the leader: one lane per reactor reads the
 * events it handles in log order and calls `react` for each, then moves its fenced
 * checkpoint past the event (compare and set). The reaction's commands commit on their own,
 * outside the checkpoint's write, so a crash between the two replays the event: every
 * reaction runs in a request scope keyed by the reactor and the event, so the ids its
 * commands derive (events and new resources) are the same on the replay and the store turns
 * it into a no-op. A reaction that keeps failing goes to the dead letters after bounded
 * retries with backoff; read failures retry without counting.
 */
export class ReactorRunner {
  private readonly lanes = new Map<string, Lane>();
  private running = false;
  private leader = false;
  private loops: Promise<void>[] = [];
  private leadershipTimer: NodeJS.Timeout | null = null;
  private leading: Promise<void> | null = null;
  private readonly batchSize: number;
  private readonly idleMs: number;
  private readonly deadLetterAfter: number;
  private readonly retryBaseMs: number;

  constructor(private readonly options: ReactorRunnerOptions) {
    this.batchSize = options.batchSize ?? 100;
    this.idleMs = options.idleMs ?? 1000;
    this.deadLetterAfter = options.deadLetterAfter ?? 5;
    this.retryBaseMs = options.retryBaseMs ?? 250;
    const names = new Set<string>();
    for (const reactor of options.reactors) {
      if (names.has(reactor.name)) throw new Error(`two reactors are named ${reactor.name}`);
      names.add(reactor.name);
    }
  }

  get isLeader(): boolean {
    return this.leader;
  }

  get names(): string[] {
    return this.options.reactors.map((r) => r.name);
  }

  async start(): Promise<void> {
    this.running = true;
    if (this.options.reactors.length === 0) return;
    await this.tryLead();
    // A database fault while taking the lead leaves no half-led lanes: let go, try again next tick.
    const retry = () => this.tryLead().catch((error: Error) => this.relinquish(`taking the lead failed: ${error.message}`));
    this.leadershipTimer = setInterval(() => void retry(), 2000);
    this.leadershipTimer.unref();
  }

  private tryLead(): Promise<void> {
    this.leading ??= this.lead().finally(() => (this.leading = null));
    return this.leading;
  }

  private async lead(): Promise<void> {
    if (this.leader || !this.running) return;
    await Promise.allSettled(this.loops);
    if (!(await this.options.leaderLock.tryAcquire())) return;
    this.leader = true;
    this.lanes.clear();
    for (const reactor of this.options.reactors) {
      const position = await this.prepare(reactor);
      const paceMs = reactor.paceMs?.(this.options.deps().config) ?? 0;
      this.lanes.set(reactor.name, { reactor, saved: position, seen: position, failures: 0, wake: () => undefined, savedAt: 0, paceMs });
    }
    this.loops = [...this.lanes.values()].map((lane) => this.runLane(lane));
  }

  /**
   * A reactor seen for the first time starts at the head of the log: it reacts to what
   * happens from its deployment on, never re-issues the history's follow-ups (the routes did
   * those before reactors existed).
   */
  private async prepare(reactor: Reactor): Promise<Position> {
    const name = reactorCheckpoint(reactor.name);
    const stored = await readCheckpoint(this.options.knex, name);
    if (stored) return stored.position;
    const head = await this.options.store.headPosition();
    await saveCheckpoint(this.options.knex, name, { version: VERSION, position: head, reset: true });
    return head;
  }

  private relinquish(reason: string): void {
    if (!this.leader) return;
    this.options.logger.warn({ reason }, 'reactor leadership lost: lanes stop until this instance leads again');
    this.leader = false;
    for (const lane of this.lanes.values()) lane.wake();
    void this.options.leaderLock.release();
  }

  private sleep(lane: Lane, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      lane.wake = done;
    });
  }

  /** Wakes every lane now (new events were appended on this instance), except the paced ones. */
  poke(): void {
    for (const lane of this.lanes.values()) if (lane.paceMs === 0) lane.wake();
  }

  private async runLane(lane: Lane): Promise<void> {
    const { logger } = this.options;
    const name = lane.reactor.name;
    while (this.running && this.leader) {
      try {
        const reacted = await this.step(lane);
        // A paced lane goes on at once only after a full batch: there is more to read now.
        if (lane.paceMs > 0 ? reacted < this.batchSize : reacted === 0) await this.sleep(lane, lane.paceMs || this.idleMs);
      } catch (error) {
        if (error instanceof LeadershipLost) {
          this.relinquish(error.message);
          return;
        }
        if (error instanceof CheckpointMoved) {
          const stored = await readCheckpoint(this.options.knex, reactorCheckpoint(name)).catch(() => undefined);
          if (stored) lane.saved = lane.seen = stored.position;
          if (!this.options.leaderLock.isHeld()) this.relinquish('checkpoint moved and the lock is gone');
          continue;
        }
        const counted = error instanceof ReactionFailed;
        if (counted) lane.failures++;
        const cause = counted ? (error as ReactionFailed).cause : error;
        if (counted && lane.failures >= this.deadLetterAfter) {
          await this.deadLetter(lane, (error as ReactionFailed).event, cause).catch((err) => logger.error({ err, reactor: name }, 'dead letter not recorded'));
          continue;
        }
        const delay = Math.min(30_000, this.retryBaseMs * 2 ** Math.min(Math.max(lane.failures, 1) - 1, 7));
        logger.error({ err: cause, reactor: name, at: positionToString(lane.saved), attempt: lane.failures, retryInMs: delay }, counted ? 'reaction failed; retried from the same event' : 'reactor lane could not read the log; retried');
        await markCheckpoint(this.options.knex, reactorCheckpoint(name), 'failed', String((cause as Error)?.message ?? cause)).catch(() => undefined);
        await this.sleep(lane, delay);
      }
    }
  }

  private async deadLetter(lane: Lane, event: RecordedEvent, error: unknown): Promise<void> {
    const name = reactorCheckpoint(lane.reactor.name);
    await transactionOnPool(this.options.knex, async (trx) => {
      await advanceCheckpoint(trx, name, { version: VERSION, from: lane.saved, to: event.position, applied: 0 });
      await recordDeadLetter(trx, name, event, error, lane.failures);
    });
    this.options.logger.error({ reactor: lane.reactor.name, eventId: event.id, type: event.type, attempts: lane.failures }, 'event moved to the reactor dead letters; the lane goes on (ops reactors retry after a fix)');
    lane.saved = lane.seen = event.position;
    lane.failures = 0;
  }

  /** Reacts to the next events the reactor handles; answers how many it reacted to. */
  private async step(lane: Lane): Promise<number> {
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
    try {
      if (reactor.reactBatch && lane.failures === 0 && events.length > 1) {
        if (!this.options.leaderLock.isHeld()) throw new LeadershipLost('the reactor lock\'s session is gone');
        await this.reactAll(reactor, events);
        lane.seen = events[events.length - 1].position;
        reacted = events.length;
      } else for (const event of events) {
        if (!this.options.leaderLock.isHeld()) throw new LeadershipLost('the reactor lock\'s session is gone');
        await this.react(reactor, event);
        lane.seen = event.position;
        lane.failures = 0;
        reacted++;
      }
    } finally {
      if (reacted > 0) {
        await advanceCheckpoint(knex, name, { version: VERSION, from: lane.saved, to: lane.seen, applied: reacted });
        lane.saved = lane.seen;
        lane.savedAt = Date.now();
      }
    }
    if (events.length < limit && comparePositions(head, lane.seen) > 0) {
      lane.seen = head;
      if (Date.now() - lane.savedAt > 1000) {
        // Persist a skip over unrelated events now and then, so a restart does not rescan it.
        await advanceCheckpoint(knex, name, { version: VERSION, from: lane.saved, to: head, applied: 0 });
        lane.saved = head;
        lane.savedAt = Date.now();
      }
    }
    return events.length;
  }

  private async reactAll(reactor: Reactor, events: RecordedEvent[]): Promise<void> {
    try {
      await withScope({ idempotencyKey: `reaction:${reactor.name}:${events[0].id}:${events.length}` }, () => reactor.reactBatch!(events, this.options.deps()));
    } catch (error) {
      // Counted against the batch's first event; the lane then reacts one event at a time.
      throw new ReactionFailed(events[0], error);
    }
  }

  private async react(reactor: Reactor, event: RecordedEvent): Promise<void> {
    try {
      await withScope({ idempotencyKey: `reaction:${reactor.name}:${event.id}` }, () => reactor.react(event, this.options.deps()));
    } catch (error) {
      throw new ReactionFailed(event, error);
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
    this.poke();
    // Someone waits: a paced lane reads now too.
    for (const reactor of concerned) this.lanes.get(reactor.name)?.wake();
    for (;;) {
      if (await this.reached(position, concerned)) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  private async reached(position: Position, reactors: Reactor[]): Promise<boolean> {
    if (this.leader) {
      return reactors.every((r) => {
        const lane = this.lanes.get(r.name);
        return !!lane && lane.failures === 0 && comparePositions(lane.seen, position) >= 0;
      });
    }
    const saved = new Map((await readCheckpoints(this.options.knex)).map((row) => [row.name, row.position]));
    for (const reactor of reactors) {
      const checkpoint = saved.get(reactorCheckpoint(reactor.name));
      if (!checkpoint) return false;
      if (comparePositions(checkpoint, position) >= 0) continue;
      const [pending] = await this.options.store.readAll({ from: checkpoint, limit: 1, filter: { eventTypes: [...reactor.handles] } });
      if (pending && comparePositions(pending.position, position) <= 0) return false;
    }
    return true;
  }

  /**
   * `ops reactors retry <name>`: reacts again to each unresolved dead letter (after a fix)
   * under the same scope as the first time, so whatever the failed attempt did commit is
   * not done twice.
   */
  async retryDeadLetters(name: string): Promise<{ resolved: number; remaining: number }> {
    const reactor = this.options.reactors.find((r) => r.name === name);
    if (!reactor) throw new Error(`no reactor named ${name}`);
    let resolved = 0;
    let remaining = 0;
    for (const letter of await openDeadLetters(this.options.knex, reactorCheckpoint(name))) {
      const [event] = await this.options.store.readAll({ from: { commit: letter.position.commit, prepare: letter.position.prepare - 1n }, limit: 1 });
      if (!event || event.id !== letter.eventId) {
        remaining++;
        continue;
      }
      try {
        await this.react(reactor, event);
        await resolveDeadLetter(this.options.knex, letter.id);
        resolved++;
      } catch (error) {
        remaining++;
        this.options.logger.warn({ err: (error as ReactionFailed).cause ?? error, reactor: name, eventId: event.id }, 'dead letter still fails');
      }
    }
    return { resolved, remaining };
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.leadershipTimer) clearInterval(this.leadershipTimer);
    for (const lane of this.lanes.values()) lane.wake();
    await Promise.allSettled(this.loops);
    await this.options.leaderLock.release();
    this.leader = false;
  }
}
