import type { Logger } from 'pino';
import type { PlatformDeps, ScheduledHandler } from '../context-module';
import { withScope } from '../http/request-scope';
import type { LeaderLock } from '../projection-runner/leader-lock';
import { inSpan } from '../observability/tracing';
import type { PlatformMetrics } from '../observability/metrics';
import { dueLag, dueMessages, markDeadLettered, markFailed, markFired, type ScheduledMessage } from './schedule';

export type { ScheduledHandler } from '../context-module';

/** Leadership of the due-message lane: arbitrary but fixed, distinct from the other locks. */
export const SCHEDULER_LOCK_KEY = 72_114_003;

const SCHEDULER_ACTOR = 'system:scheduler';

/**
 * Fires due messages on the leader: every tick it takes the messages whose time has come
 * and runs their handler in a scope keyed by the message, so the commands a handler issues
 * derive the same ids if it runs again (a crash before `ScheduledMessageFired`, a second
 * leader after a fence); then records the firing, which the stream appends only once. A
 * handler that throws is retried on later ticks with backoff; its attempts and next try are
 * events of the message's stream (`ScheduledMessageFailed`), so a message in backoff waits in
 * the table without holding a place among the due ones, and a new leader goes on counting.
 * After `deadLetterAfter` failures (about four minutes with the default 8) the message is
 * dead-lettered: parked, reported by /health, and made due again by `ops schedule retry`.
 */
export class DueMessageLane {
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private readonly handlers: Map<string, ScheduledHandler>;

  private readonly deadLetterAfter: number;

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
    },
  ) {
    this.handlers = new Map(options.handlers.map((h) => [h.name, h]));
    this.deadLetterAfter = options.deadLetterAfter ?? 8;
  }

  async start(): Promise<void> {
    // Takes the lead now, not a tick later: /health names a leadership nobody holds.
    await this.options.leaderLock.tryAcquire();
    this.timer = setInterval(() => void this.tick(), this.options.tickMs ?? 1000);
    this.timer.unref();
  }

  /** One pass over the due messages (tests call it to avoid waiting for the timer). */
  tick(): Promise<void> {
    this.ticking ??= this.fireDue().finally(() => (this.ticking = null));
    return this.ticking;
  }

  private async fireDue(): Promise<void> {
    const { logger, leaderLock } = this.options;
    if (!(await leaderLock.tryAcquire())) return;
    const deps = this.options.deps();
    const due = await dueMessages(deps.knex, deps.clock(), 50, [...this.handlers.keys()]).catch((err) => {
      logger.warn({ err }, 'due messages could not be read; next tick retries');
      return [];
    });
    for (const message of due) {
      // Fenced: a lost lock stops the lane before the next message.
      if (!leaderLock.isHeld()) return;
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
          logger.error(
            { err: recordErr, messageId: message.messageId },
            'failure of a scheduled message not recorded; the next tick tries it again',
          ),
        );
      }
    }
  }

  private async failed(message: ScheduledMessage, attempts: number, err: unknown, deps: PlatformDeps): Promise<void> {
    const { logger } = this.options;
    const context = { tenantId: message.tenantId, actorId: SCHEDULER_ACTOR };
    const error = String((err as Error)?.message ?? err);
    const fields = { err, handler: message.handler, messageId: message.messageId, attempts };
    this.options.metrics?.laneFailed('scheduler', 'scheduler', attempts >= this.deadLetterAfter);
    if (attempts >= this.deadLetterAfter) {
      await markDeadLettered(deps.handle, context, message.messageId, attempts, error);
      logger.error(
        fields,
        'scheduled message dead-lettered after repeated failures; `ops schedule retry` makes it due again',
      );
      return;
    }
    const delay = Math.min(300_000, 1000 * 2 ** Math.min(attempts - 1, 8));
    await markFailed(deps.handle, context, message.messageId, error, new Date(deps.clock().getTime() + delay));
    logger.error({ ...fields, retryInMs: delay }, 'scheduled message failed; retried later');
  }

  /** Messages due now and how long the oldest has waited past its time (for /health). */
  async lag(): Promise<{ due: number; oldestDueAt: Date | null }> {
    const deps = this.options.deps();
    return dueLag(deps.knex, deps.clock());
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.ticking;
    await this.options.leaderLock.release();
  }
}
