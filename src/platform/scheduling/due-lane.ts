import type { Logger } from 'pino';
import type { PlatformDeps, ScheduledHandler } from '../context-module';
import { withScope } from '../http/request-scope';
import type { LeaderLock } from '../projection-runner/leader-lock';
import { dueMessages, markDeadLettered, markFired, ScheduledMessage } from './schedule';

export type { ScheduledHandler } from '../context-module';

/** Leadership of the due-message lane: arbitrary but fixed, distinct from the other locks. */
export const SCHEDULER_LOCK_KEY = 72_114_003;

const SCHEDULER_ACTOR = 'system:scheduler';

/**
 * Fires due messages on the leader: every tick it takes the messages whose time has come
 * and runs their handler in a scope keyed by the message, so the commands a handler issues
 * derive the same ids if it runs again (a crash before `ScheduledMessageFired`, a second
 * leader after a fence); then records the firing, which the stream appends only once. A
 * handler that throws is retried on later ticks with backoff; after `deadLetterAfter`
 * failures (about four minutes with the default 8) the message is dead-lettered: parked,
 * reported by /health, and made due again by `ops schedule retry`.
 */
export class DueMessageLane {
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private readonly retryAt = new Map<string, { at: number; attempts: number }>();
  private readonly handlers: Map<string, ScheduledHandler>;

  private readonly deadLetterAfter: number;

  constructor(
    private readonly options: { deps: () => PlatformDeps; handlers: ScheduledHandler[]; leaderLock: LeaderLock; logger: Logger; tickMs?: number; deadLetterAfter?: number },
  ) {
    this.handlers = new Map(options.handlers.map((h) => [h.name, h]));
    this.deadLetterAfter = options.deadLetterAfter ?? 8;
  }

  start(): void {
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
    const due = await dueMessages(deps.knex, deps.clock(), 50).catch((err) => {
      logger.warn({ err }, 'due messages could not be read; next tick retries');
      return [];
    });
    for (const message of due) {
      const key = `${message.tenantId}:${message.messageId}`;
      const retry = this.retryAt.get(key);
      if (retry && retry.at > Date.now()) continue;
      const handler = this.handlers.get(message.handler);
      try {
        // A message whose handler this build does not know (retired, or a newer instance's) fails like a throwing one.
        if (!handler) throw new Error(`no handler ${message.handler} is registered`);
        await withScope({ idempotencyKey: `scheduled:${key}` }, () => handler.fire(message, deps));
        await markFired(deps.handle, { tenantId: message.tenantId, actorId: SCHEDULER_ACTOR }, message.messageId);
        this.retryAt.delete(key);
      } catch (err) {
        await this.failed(message, key, (retry?.attempts ?? 0) + 1, err, deps);
      }
    }
  }

  private async failed(message: ScheduledMessage, key: string, attempts: number, err: unknown, deps: PlatformDeps): Promise<void> {
    const { logger } = this.options;
    const fields = { err, handler: message.handler, messageId: message.messageId, attempts };
    if (attempts >= this.deadLetterAfter) {
      try {
        await markDeadLettered(deps.handle, { tenantId: message.tenantId, actorId: SCHEDULER_ACTOR }, message.messageId, attempts, String((err as Error)?.message ?? err));
        this.retryAt.delete(key);
        logger.error(fields, 'scheduled message dead-lettered after repeated failures; `ops schedule retry` makes it due again');
        return;
      } catch (recordErr) {
        logger.error({ ...fields, err: recordErr }, 'dead letter of a scheduled message not recorded; retried later');
      }
    }
    const delay = Math.min(300_000, 1000 * 2 ** Math.min(attempts - 1, 8));
    this.retryAt.set(key, { at: Date.now() + delay, attempts });
    logger.error({ ...fields, retryInMs: delay }, 'scheduled message failed; retried later');
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.ticking;
    await this.options.leaderLock.release();
  }
}
