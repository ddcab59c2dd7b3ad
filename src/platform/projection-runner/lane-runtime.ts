import type { Knex } from 'knex';
import type { Logger } from 'pino';
import {
  comparePositions,
  type EventStore,
  type Position,
  positionToString,
  type RecordedEvent,
} from '../eventstore/types';
import { CheckpointMoved, markCheckpoint, readCheckpoint, readCheckpoints } from './checkpoints';
import type { LeaderLock } from './leader-lock';
import { inSpan, linksToEvents, logTraceFields, tracingOn } from '../observability/tracing';
import type { PlatformMetrics } from '../observability/metrics';
import { type WakeListener, WakeUps } from './wake-ups';
import { retryDelayMs } from '../infra/backoff';

/**
 * The one processing runtime under projections and reactors (docs/runtime.md), as Emmett runs
 * projectors and reactors as two kinds of one processor: leadership, the lane loop, the retry
 * and dead-letter path, the fence, and the lag report live here once; a kind says only how a
 * lane prepares, what one step does, and how it parks an event it cannot handle.
 */
export type LaneKind = 'projection' | 'reactor' | 'scheduler';

/** What every lane holds, whatever it runs. */
export interface LaneState {
  /** The projector's or reactor's name. */
  name: string;
  /** Its row in the checkpoint table (reactors under a prefix). */
  checkpoint: string;
  version: number;
  /** The event types it handles; absent: all. */
  eventTypes?: readonly string[];
  /** How far the lane has seen the log (may run ahead of `saved` over skipped stretches). */
  position: Position;
  /** Where the stored checkpoint stands: the compare-and-set's source. */
  saved: Position;
  savedAt: number;
  /** True once the lane reached the head of the log. */
  caughtUp: boolean;
  /** Consecutive failures of the handler itself: while > 0 the lane takes one event at a time. */
  failures: number;
  /** Consecutive failures to reach the log or the database: retried with backoff, never dead-lettered. */
  stalls: number;
  /** Wakes the lane's loop early (new events, stop); during a step, its next rest is skipped. */
  wake: () => void;
  /** A wake came during a step: the lane goes on at once instead of resting. */
  woken?: boolean;
}

/** A failure of a lane's own handler (`apply`, `react`): only these count toward dead-lettering. */
export class HandlerFailed extends Error {
  readonly name = 'HandlerFailed';
  constructor(
    readonly events: RecordedEvent[],
    readonly cause: unknown,
  ) {
    super(String((cause as Error)?.message ?? cause));
  }
  /** The failed batch's `trace_id` and `span_id`, for the lane's log line about it (tracing on). */
  trace: Record<string, string> = {};
}

/** This instance lost its lock: its lanes stop before handling another batch. */
export class LeadershipLost extends Error {
  readonly name = 'LeadershipLost';
}

/** The longest wait before a lane retries after the database could not be reached (ms). */
const STALL_RETRY_CAP_MS = 2000;
/** The longest wait before a lane retries an event its handler failed on (ms). */
const FAILURE_RETRY_CAP_MS = 30_000;

export interface LaneRuntimeOptions {
  knex: Knex;
  store: EventStore;
  logger: Logger;
  leaderLock: LeaderLock;
  /** Longest pause between polls when no wake-up arrives. */
  idleMs?: number;
  /** Attempts at one event before it goes to the dead-letter table. */
  deadLetterAfter?: number;
  /** First retry delay; doubles per failure. */
  retryBaseMs?: number;
  /** How often an instance that does not lead tries to take the lock (ms). */
  leadershipRetryMs?: number;
  /** Batch times, retries and dead letters (docs/operations.md#metrics); lag is read from `lanesReport`. */
  metrics?: PlatformMetrics;
  /**
   * The live subscription every kind of lane shares (the composition root makes one); absent,
   * the runtime follows the log on a subscription of its own.
   */
  wakeUps?: WakeUps;
}

/** Events the tail holds at most when nobody sizes it (the projection runner: twice its batch). */
export const TAIL_EVENTS = 2000;

/** One lane as /health reports it. */
export interface LaneReport {
  name: string;
  kind: LaneKind;
  /** Events it handles between its position and the head of the log (capped at `LAG_COUNT_CAP`). */
  lag_events: number;
  /** Age of the oldest of those events (s); 0 when none is pending. */
  lag_seconds: number;
  /** Whether its wake-up subscription is up; null for a lane that polls. */
  subscribed: boolean | null;
  /** Consecutive failures of its handler or of reading the log. */
  failures: number;
}

/** Lag counts stop here: enough to see a lane is far behind without counting the whole log. */
export const LAG_COUNT_CAP = 100_000;

export abstract class LaneRuntime<L extends LaneState> {
  protected readonly lanes = new Map<string, L>();
  protected running = false;
  protected leader = false;
  private loops: Promise<void>[] = [];
  private leadershipTimer: NodeJS.Timeout | null = null;
  private leading: Promise<void> | null = null;
  protected readonly idleMs: number;
  protected readonly deadLetterAfter: number;
  protected readonly retryBaseMs: number;
  /** The one subscription that wakes the lanes: joined while this instance leads. */
  protected readonly wakeUps: WakeUps;
  private readonly listener: WakeListener;
  private readonly heardLanes = new Set<L>();

  constructor(
    protected readonly kind: LaneKind,
    protected readonly base: LaneRuntimeOptions,
  ) {
    this.idleMs = base.idleMs ?? 1000;
    this.deadLetterAfter = base.deadLetterAfter ?? 5;
    this.retryBaseMs = base.retryBaseMs ?? 250;
    // Read when it subscribes: a runtime's store may be filled after it is made (the scheduler's deps).
    const follow = {
      get store() {
        return base.store;
      },
      logger: base.logger,
      tailEvents: TAIL_EVENTS,
    };
    this.wakeUps = base.wakeUps ?? new WakeUps(follow);
    this.listener = {
      onEvent: (event) => this.heard(event),
      // Up again or down: every lane reads the store for what it may have missed (a paced one at its pace).
      onChange: () => {
        for (const lane of this.lanes.values()) this.wakeForNewEvents(lane);
      },
      urgent: () => this.urgent(),
      onPush: () => this.pushed(),
    };
  }

  /** The lanes to run once this instance leads, each at its stored position. */
  protected abstract prepareLanes(): Promise<L[]>;
  /** Handles the lane's next batch; answers how many events it handled. */
  protected abstract step(lane: L): Promise<number>;
  /** How long the lane rests after a step that handled `handled` events (0: go on at once). */
  protected abstract restMs(lane: L, handled: number): number;
  /** Moves the checkpoint past `event` and records it as a dead letter, in one transaction. */
  protected abstract deadLetter(lane: L, event: RecordedEvent, cause: unknown): Promise<void>;
  /** The checkpoint names and event types of every lane this runner runs (leader or not). */
  protected abstract laneSpecs(): Array<{ name: string; checkpoint: string; eventTypes?: readonly string[] }>;
  /** Called as leadership starts (after the lanes are prepared) and ends. */
  protected onLead(): void {}
  protected onRelinquish(): void {}
  /** A lane moved: waiters may check again. */
  protected moved(_lane: L): void {}
  /** Someone waits on a lane of this runtime: the subscription should not gather. */
  protected urgent(): boolean {
    return false;
  }
  /** The subscription pushed another 256 events into the shared tail. */
  protected pushed(): void {}
  /** Wakes a lane now (a kind that paces its lanes also drops the pending pace). */
  protected hurry(lane: L): void {
    lane.wake();
  }

  /**
   * The subscription read `event`: the lanes that handle its type wake once the page is in
   * (a page's events all arrive before a `setImmediate` runs), so a lane takes it as one batch.
   */
  private heard(event: RecordedEvent): void {
    for (const lane of this.lanes.values()) if (this.wakesFor(lane, event)) this.heardLanes.add(lane);
    if (this.heardLanes.size === 0 || this.wakePending) return;
    this.wakePending = true;
    setImmediate(() => {
      this.wakePending = false;
      const lanes = [...this.heardLanes];
      this.heardLanes.clear();
      for (const lane of lanes) this.wakeForNewEvents(lane);
    });
  }
  private wakePending = false;

  /** Whether an event the subscription read wakes the lane: by default, when the lane handles its type. */
  protected wakesFor(lane: L, event: RecordedEvent): boolean {
    return !lane.eventTypes || lane.eventTypes.includes(event.type);
  }

  /** New events for the lane arrived: wake it (a paced lane within its pace). */
  protected wakeForNewEvents(lane: L): void {
    this.hurry(lane);
  }

  /** Whether the wake-up subscription is up, on the leader; null elsewhere (no lane runs here). */
  protected subscribed(): boolean | null {
    return this.leader ? this.wakeUps.up : null;
  }

  get isLeader(): boolean {
    return this.leader;
  }

  /** Starts trying to lead: now, then every few seconds (a follower takes over from a stopped leader). */
  protected async startLeading(): Promise<void> {
    this.running = true;
    this.base.leaderLock.onLost?.((reason) => this.relinquish(reason));
    await this.tryLead();
    // A database fault while taking the lead leaves no half-led lanes: let go, try again next tick.
    const retry = () =>
      this.tryLead().catch((error: Error) => this.relinquish(`taking the lead failed: ${error.message}`));
    this.leadershipTimer = setInterval(() => void retry(), this.base.leadershipRetryMs ?? 2000);
    this.leadershipTimer.unref();
  }

  private tryLead(): Promise<void> {
    this.leading ??= this.lead().finally(() => (this.leading = null));
    return this.leading;
  }

  private async lead(): Promise<void> {
    if (this.leader || !this.running) return;
    await Promise.allSettled(this.loops);
    if (!(await this.base.leaderLock.tryAcquire())) return;
    this.leader = true;
    let lanes: L[];
    try {
      lanes = await this.prepareLanes();
    } catch (error) {
      // The database went away while preparing: give the lock back and try again on the next tick.
      this.base.logger.warn({ err: error }, `${this.kind} lanes could not be prepared; leadership retried`);
      this.relinquish('preparing the lanes failed');
      return;
    }
    this.lanes.clear();
    for (const lane of lanes) {
      this.keepWakes(lane);
      this.lanes.set(lane.name, lane);
    }
    this.wakeUps.join(this.listener);
    this.onLead();
    this.loops = lanes.map((lane) => this.runLane(lane));
  }

  /**
   * Fenced: the lock's session is gone (or its probe failed), so another instance may already
   * lead. Every lane stops before its next batch; the leadership timer tries to take the lock again.
   */
  protected relinquish(reason: string): void {
    if (!this.leader) return;
    this.base.logger.warn({ reason }, `${this.kind} leadership lost: lanes stop until this instance leads again`);
    this.leader = false;
    for (const lane of this.lanes.values()) this.hurry(lane);
    void this.wakeUps.leave(this.listener);
    this.onRelinquish();
    void this.base.leaderLock.release();
  }

  /**
   * Rests the lane for `ms`, or until woken. A wake that came while the lane was busy (new
   * events heard during a step, a stop, a lost lock) is kept and ends the next rest at once:
   * lost, it would leave the lane resting a whole `idleMs` with work waiting.
   */
  protected sleep(lane: L, ms: number): Promise<void> {
    const woken = lane.woken || !this.running || !this.leader;
    lane.woken = false;
    if (woken) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.keepWakes(lane);
        resolve();
      };
      const timer = setTimeout(done, ms);
      lane.wake = done;
    });
  }

  /** While the lane is busy, a wake is kept for its next rest. */
  private keepWakes(lane: L): void {
    lane.wake = () => void (lane.woken = true);
  }

  /**
   * One batch of a lane in a span of its own (a trace per batch: a batch gathers events of many
   * requests), linked to the traces of the events it handles (docs/operations.md#tracing).
   * A step that found nothing runs without one.
   */
  protected inBatch<T>(lane: L, events: readonly RecordedEvent[], fn: () => Promise<T>): Promise<T> {
    if (events.length === 0 || !tracingOn()) return fn();
    return inSpan(
      `${this.kind} batch ${lane.name}`,
      {
        'lane.kind': this.kind,
        'lane.name': lane.name,
        'lane.event_count': events.length,
        'lane.from': positionToString(events[0].position),
        'lane.to': positionToString(events[events.length - 1].position),
      },
      async () => {
        try {
          return await fn();
        } catch (error) {
          // The lane logs the failure after the span ended: the line names the batch's trace.
          if (error instanceof HandlerFailed) error.trace = logTraceFields();
          throw error;
        }
      },
      { root: true, links: linksToEvents(events) },
    );
  }

  /** A lane's name in log lines: `projector` or `reactor`. */
  private who(lane: L): Record<string, string> {
    return { [this.kind === 'projection' ? 'projector' : this.kind]: lane.name };
  }

  /** The loop every lane runs while this instance leads. */
  private async runLane(lane: L): Promise<void> {
    const { logger, knex } = this.base;
    while (this.running && this.leader) {
      try {
        const started = performance.now();
        const handled = await this.step(lane);
        this.base.metrics?.laneBatch(this.kind, lane.name, handled, (performance.now() - started) / 1000);
        lane.stalls = 0;
        const rest = this.restMs(lane, handled);
        if (rest > 0) await this.sleep(lane, rest);
      } catch (error) {
        if (error instanceof LeadershipLost) {
          this.relinquish(error.message);
          return;
        }
        if (error instanceof CheckpointMoved) {
          // Another runner moved this stretch: take its checkpoint and carry on if still leading.
          const stored = await readCheckpoint(knex, lane.checkpoint).catch(() => undefined);
          if (stored) lane.position = lane.saved = stored.position;
          logger.warn(
            { ...this.who(lane), at: positionToString(lane.position) },
            'checkpoint moved under this lane: batch rolled back',
          );
          if (!this.base.leaderLock.isHeld()) this.relinquish('checkpoint moved and the lock is gone');
          continue;
        }
        const failed = error instanceof HandlerFailed ? error : null;
        if (failed) lane.failures++;
        else lane.stalls++;
        if (failed && failed.events.length === 1 && lane.failures >= this.deadLetterAfter) {
          const [event] = failed.events;
          try {
            await this.deadLetter(lane, event, failed.cause);
            this.base.metrics?.laneDeadLetter(this.kind, lane.name);
            logger.error(
              {
                ...this.who(lane),
                eventId: event.id,
                type: event.type,
                stream: event.stream,
                attempts: lane.failures,
                ...failed.trace,
              },
              'event moved to the dead-letter table; the lane goes on (`ops … retry` after a fix)',
            );
            lane.position = lane.saved = event.position;
            lane.failures = 0;
            this.moved(lane);
          } catch (err) {
            logger.error({ err, ...this.who(lane) }, 'dead letter not recorded; retried');
            await this.sleep(lane, this.retryBaseMs);
          }
          continue;
        }
        this.base.metrics?.laneRetry(this.kind, lane.name, failed ? 'handler' : 'stall');
        const attempt = Math.max(lane.failures, lane.stalls, 1);
        const delay = retryDelayMs(attempt, this.retryBaseMs, failed ? FAILURE_RETRY_CAP_MS : STALL_RETRY_CAP_MS);
        const cause = failed ? failed.cause : error;
        logger.error(
          {
            err: cause,
            ...this.who(lane),
            at: positionToString(lane.position),
            attempt,
            retryInMs: delay,
            ...failed?.trace,
          },
          failed
            ? `${this.kind} batch failed; retried from the same event`
            : `${this.kind} lane could not read or write; retried`,
        );
        await markCheckpoint(knex, lane.checkpoint, 'failed', String((cause as Error)?.message ?? cause)).catch(
          () => undefined,
        );
        await this.sleep(lane, delay);
      }
    }
  }

  /**
   * Each lane's lag behind the head of the log, in events it handles and in seconds: from its
   * live position on the leader, from its stored checkpoint elsewhere.
   */
  async lanesReport(): Promise<LaneReport[]> {
    const { store, knex } = this.base;
    const specs = this.laneSpecs();
    if (specs.length === 0) return [];
    const stored = this.leader ? null : new Map((await readCheckpoints(knex)).map((row) => [row.name, row.position]));
    const subscribed = this.subscribed();
    return Promise.all(
      specs.map(async (spec) => {
        const lane = this.leader ? this.lanes.get(spec.name) : undefined;
        const from = lane?.position ?? stored?.get(spec.checkpoint);
        const filter = spec.eventTypes ? { eventTypes: [...spec.eventTypes] } : undefined;
        const lag =
          from && store.measureLag ? await store.measureLag(from, filter, LAG_COUNT_CAP) : { events: 0, oldest: null };
        const lagSeconds = lag.oldest ? Math.max(0, Math.round((Date.now() - lag.oldest.getTime()) / 100) / 10) : 0;
        return {
          name: spec.name,
          kind: this.kind,
          lag_events: lag.events,
          lag_seconds: lagSeconds,
          subscribed,
          failures: lane ? Math.max(lane.failures, lane.stalls) : 0,
        };
      }),
    );
  }

  /**
   * On an instance that does not run these lanes: each lane's stored checkpoint has reached
   * `position`, or no event it handles lies between its checkpoint and `position` (the leader
   * saves a skip over events a lane ignores only now and then).
   */
  protected async storedReached(
    position: Position,
    lanes: ReadonlyArray<{ checkpoint: string; eventTypes?: readonly string[] }>,
  ): Promise<boolean> {
    if (!(await this.visible(position))) return false;
    const saved = new Map((await readCheckpoints(this.base.knex)).map((row) => [row.name, row.position]));
    for (const lane of lanes) {
      const checkpoint = saved.get(lane.checkpoint);
      if (!checkpoint) return false;
      if (comparePositions(checkpoint, position) >= 0) continue;
      if (!lane.eventTypes) return false;
      const [pending] = await this.base.store.readAll({
        from: checkpoint,
        limit: 1,
        filter: { eventTypes: [...lane.eventTypes] },
      });
      if (pending && comparePositions(pending.position, position) <= 0) return false;
    }
    return true;
  }

  /**
   * Whether readers of the log can see `position` yet (the visible log is a prefix of the
   * order). Not yet (an older transaction still open): no lane can have read it, and a read
   * from a checkpoint before it answers nothing, which proves nothing.
   */
  protected async visible(position: Position): Promise<boolean> {
    return comparePositions(await this.base.store.headPosition(), position) >= 0;
  }

  protected async stopLeading(beforeRelease?: () => Promise<void>): Promise<void> {
    this.running = false;
    if (this.leadershipTimer) clearInterval(this.leadershipTimer);
    for (const lane of this.lanes.values()) this.hurry(lane);
    await this.wakeUps.leave(this.listener);
    await beforeRelease?.();
    await Promise.allSettled(this.loops);
    await this.base.leaderLock.release();
    this.leader = false;
  }
}
