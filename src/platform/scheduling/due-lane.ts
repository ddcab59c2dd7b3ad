import type { Logger } from 'pino';
import type { PlatformDeps, ScheduledHandler } from '../context-module';
import type { Position, RecordedEvent } from '../eventstore/types';
import { withScope } from '../http/request-scope';
import {
  LaneRuntime,
  type LaneReport,
  type LaneRuntimeOptions,
  type LaneState,
  LeadershipLost,
} from '../projection-runner/lane-runtime';
import { retryDelayMs } from '../infra/backoff';
import type { LeaderLock } from '../projection-runner/leader-lock';
import type { WakeUps } from '../projection-runner/wake-ups';
import { inSpan } from '../observability/tracing';
import type { PlatformMetrics } from '../observability/metrics';
import {
  dueLag,
  dueMessages,
  markDeadLettered,
  markFailed,
  markFired,
  nextDueAt,
  type ScheduledMessage,
} from './schedule';

export type { ScheduledHandler } from '../context-module';

/** Leadership of the due-message lane: arbitrary but fixed, distinct from the other locks. */
export const SCHEDULER_LOCK_KEY = 72_114_003;

const SCHEDULER_ACTOR = 'system:scheduler';
/** Due messages taken per step; a full batch means more are due now. */
const BATCH = 50;
/** Events that make a message due (now or later): the wake-up subscription wakes the lane on them. */
const MAKES_DUE: readonly string[] = ['MessageScheduled', 'ScheduledMessageRetried'];
/** How long a step waits for the schedule's read model to hold a message it heard of (ms). */
const HEARD_WAIT_MS = 2000;
/** First retry delay of a failed firing, and the longest (ms). */
const FIRING_RETRY_BASE_MS = 1000;
const FIRING_RETRY_CAP_MS = 300_000;

type SchedulerLane = LaneState;

/**
 * Fires due messages on the leader, as the third kind of lane of the shared runtime
 * (docs/runtime.md): leadership, the fence, the loop, its backoff when the database cannot be
 * reached and the lag report are the runtime's; this strategy says what one step does. Each
 * step takes the messages whose time has come and runs their handler in a scope keyed by the
 * message, so the commands a handler issues derive the same ids if it runs again (a crash
 * before `ScheduledMessageFired`, a second leader after a fence); then records the firing,
 * which the stream appends only once. The lane is driven by time, not by the log: it has no
 * checkpoint, and a handler that throws is retried in the message's own stream, with backoff:
 * its attempts and next try are events (`ScheduledMessageFailed`), so a message in backoff
 * waits in the table without holding a place among the due ones, and a new leader goes on
 * counting. After `deadLetterAfter` failures (about four minutes with the default 8) the
 * message is dead-lettered: parked, reported by /health, and made due again by `ops schedule retry`.
 */
export class DueMessageLane extends LaneRuntime<SchedulerLane> {
  private ticking: Promise<number> | null = null;
  private readonly handlers: Map<string, ScheduledHandler>;
  private readonly deadLetterAfterFailures: number;
  /** The newest event the subscription read that makes a message due: the next step waits for the table to hold it. */
  private heardAt: Position | null = null;
  /** When the next message falls due, as the last step found it (ms since the epoch, by the platform's clock). */
  private nextDue: number | null = null;

  constructor(
    private readonly options: {
      deps: () => PlatformDeps;
      handlers: ScheduledHandler[];
      leaderLock: LeaderLock;
      logger: Logger;
      tickMs?: number;
      deadLetterAfter?: number;
      /** Retries and dead letters (docs/operations.md#metrics); its backlog is read at scrape time. */
      metrics?: PlatformMetrics;
      /** The subscription every kind of lane shares (`LaneRuntimeOptions.wakeUps`). */
      wakeUps?: WakeUps;
    },
  ) {
    // The deps are filled once the composition root has them: the runtime reads them when it runs.
    const base: LaneRuntimeOptions = {
      get knex() {
        return options.deps().knex;
      },
      get store() {
        return options.deps().store;
      },
      logger: options.logger,
      leaderLock: options.leaderLock,
      idleMs: options.tickMs ?? 1000,
      metrics: options.metrics,
      wakeUps: options.wakeUps,
    };
    super('scheduler', base);
    this.handlers = new Map(options.handlers.map((h) => [h.name, h]));
    this.deadLetterAfterFailures = options.deadLetterAfter ?? 8;
  }

  async start(): Promise<void> {
    // Takes the lead now, not a tick later: /health names a leadership nobody holds.
    await this.startLeading();
  }

  /** One pass over the due messages, if this instance leads (tests call it to avoid waiting for the loop). */
  async tick(): Promise<void> {
    if (!(await this.options.leaderLock.tryAcquire())) return;
    await this.fireOnce();
  }

  protected prepareLanes(): Promise<SchedulerLane[]> {
    const now = { commit: 0n, prepare: 0n };
    return Promise.resolve([
      {
        name: 'scheduler',
        checkpoint: 'scheduler',
        version: 1,
        position: now,
        saved: now,
        savedAt: 0,
        caughtUp: true,
        failures: 0,
        stalls: 0,
        wake: () => undefined,
      },
    ]);
  }

  protected step(): Promise<number> {
    return this.fireOnce();
  }

  /**
   * Rests until the next message falls due, at most `idleMs`: a message scheduled meanwhile
   * wakes the lane through the subscription every lane shares; while that is down, the lane
   * polls at `idleMs` like any other.
   */
  protected restMs(_lane: SchedulerLane, fired: number): number {
    if (fired >= BATCH) return 0;
    const untilDue = this.nextDue === null ? Infinity : this.nextDue - this.options.deps().clock().getTime();
    return Math.max(0, Math.min(this.idleMs, untilDue));
  }

  /** A message scheduled (or made due again) anywhere: the lane wakes once the page is in. */
  protected wakesFor(_lane: SchedulerLane, event: RecordedEvent): boolean {
    if (!MAKES_DUE.includes(event.type)) return false;
    this.heardAt = event.position;
    return true;
  }

  /** Never called: a failed firing is retried and parked in the message's own stream. */
  protected deadLetter(_lane: SchedulerLane, event: RecordedEvent): Promise<void> {
    return Promise.reject(new Error(`the scheduler parks messages in their streams, not event ${event.id}`));
  }

  protected laneSpecs() {
    return [{ name: 'scheduler', checkpoint: 'scheduler' }];
  }

  /** The scheduler's lag: messages due now, and how long the oldest has waited past its time. */
  async lanesReport(): Promise<LaneReport[]> {
    const deps = this.options.deps();
    const due = await dueLag(deps.knex, deps.clock());
    const waited = due.oldestDueAt ? Math.max(0, Math.round((Date.now() - due.oldestDueAt.getTime()) / 100) / 10) : 0;
    const lane = this.lanes.get('scheduler');
    return [
      {
        name: 'scheduler',
        kind: 'scheduler',
        lag_events: due.due,
        lag_seconds: waited,
        subscribed: this.subscribed(),
        failures: lane && this.leader ? lane.stalls : 0,
      },
    ];
  }

  private fireOnce(): Promise<number> {
    this.ticking ??= this.fireDue().finally(() => (this.ticking = null));
    return this.ticking;
  }

  /** Fires what is due now; a failure to read them is the runtime's stall (retried with backoff). */
  private async fireDue(): Promise<number> {
    const { leaderLock } = this.options;
    const deps = this.options.deps();
    const handlers = [...this.handlers.keys()];
    const heard = this.heardAt;
    this.heardAt = null;
    // The table is a read model: a message the subscription brought is read once it holds it
    // (a wait that times out leaves it to the next poll).
    if (heard) await deps.projections.waitFor(heard, HEARD_WAIT_MS, MAKES_DUE);
    // One instant for both reads: a message falling due between them would be in neither.
    const now = deps.clock();
    const due = await dueMessages(deps.knex, now, BATCH, handlers);
    this.nextDue = due.length < BATCH ? ((await nextDueAt(deps.knex, now, handlers))?.getTime() ?? null) : null;
    for (const message of due) {
      // Fenced: a lost lock stops the lane before the next message.
      if (!leaderLock.isHeld()) throw new LeadershipLost("the scheduler lock's session is gone");
      const key = `${message.tenantId}:${message.messageId}`;
      const handler = this.handlers.get(message.handler)!;
      try {
        // A trace of its own: a message fires long after (a day after) the request that scheduled it.
        await inSpan(
          `scheduled message ${message.handler}`,
          {
            'scheduled.handler': message.handler,
            'scheduled.message_id': message.messageId,
            'scheduled.due_at': message.dueAt,
            'scheduled.attempt': (message.attempts ?? 0) + 1,
            'tenant.id': message.tenantId,
          },
          async () => {
            await withScope({ idempotencyKey: `scheduled:${key}` }, () => handler.fire(message, deps));
            await markFired(deps.handle, { tenantId: message.tenantId, actorId: SCHEDULER_ACTOR }, message.messageId);
          },
          { root: true },
        );
      } catch (err) {
        await this.failed(message, (message.attempts ?? 0) + 1, err, deps).catch((recordErr) =>
          this.options.logger.error(
            { err: recordErr, messageId: message.messageId },
            'failure of a scheduled message not recorded; the next tick tries it again',
          ),
        );
      }
    }
    return due.length;
  }

  private async failed(message: ScheduledMessage, attempts: number, err: unknown, deps: PlatformDeps): Promise<void> {
    const { logger } = this.options;
    const context = { tenantId: message.tenantId, actorId: SCHEDULER_ACTOR };
    const error = String((err as Error)?.message ?? err);
    const fields = { err, handler: message.handler, messageId: message.messageId, attempts };
    this.options.metrics?.laneFailed('scheduler', 'scheduler', attempts >= this.deadLetterAfterFailures);
    if (attempts >= this.deadLetterAfterFailures) {
      await markDeadLettered(deps.handle, context, message.messageId, attempts, error);
      logger.error(
        fields,
        'scheduled message dead-lettered after repeated failures; `ops schedule retry` makes it due again',
      );
      return;
    }
    const delay = retryDelayMs(attempts, FIRING_RETRY_BASE_MS, FIRING_RETRY_CAP_MS);
    await markFailed(deps.handle, context, message.messageId, error, new Date(deps.clock().getTime() + delay));
    logger.error({ ...fields, retryInMs: delay }, 'scheduled message failed; retried later');
  }

  async stop(): Promise<void> {
    await this.stopLeading(async () => {
      await this.ticking;
    });
  }
}
