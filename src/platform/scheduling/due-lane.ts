import type { Logger } from 'pino';
import type { PlatformDeps } from '../context-module';
import { withScope } from '../http/request-scope';
import type { LeaderLock } from '../projection-runner/leader-lock';
import { dueMessages, markFired, ScheduledMessage } from './schedule';

/** What a context does when one of its scheduled messages falls due. */
export interface ScheduledHandler {
  name: string;
  fire(message: ScheduledMessage, deps: PlatformDeps): Promise<void>;
}

/** Leadership of the due-message lane: arbitrary but fixed, distinct from the other locks. */
export const SCHEDULER_LOCK_KEY = 72_114_003;

const SCHEDULER_ACTOR = 'system:scheduler';

/**
 * Fires due messages on the leader: every tick it takes the messages whose time has come
 * and runs their handler in a scope keyed by the message, so the commands a handler issues
 * derive the same ids if it runs again (a crash before `ScheduledMessageFired`, a second
 * leader after a fence); then records the firing, which the stream appends only once. A
 * handler that throws is retried on later ticks with backoff.
 */
export class DueMessageLane {
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private readonly retryAt = new Map<string, { at: number; attempts: number }>();
  private readonly handlers: Map<string, ScheduledHandler>;

  constructor(
    private readonly options: { deps: () => PlatformDeps; handlers: ScheduledHandler[]; leaderLock: LeaderLock; logger: Logger; tickMs?: number },
  ) {
    this.handlers = new Map(options.handlers.map((h) => [h.name, h]));
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
      if (!handler) {
        logger.error({ handler: message.handler, messageId: message.messageId }, 'no handler for a scheduled message; it stays due');
        this.retryAt.set(key, { at: Date.now() + 60_000, attempts: (retry?.attempts ?? 0) + 1 });
        continue;
      }
      try {
        await withScope({ idempotencyKey: `scheduled:${key}` }, () => handler.fire(message, deps));
        await markFired(deps.handle, { tenantId: message.tenantId, actorId: SCHEDULER_ACTOR }, message.messageId);
        this.retryAt.delete(key);
      } catch (err) {
        const attempts = (retry?.attempts ?? 0) + 1;
        const delay = Math.min(300_000, 1000 * 2 ** Math.min(attempts - 1, 8));
        this.retryAt.set(key, { at: Date.now() + delay, attempts });
        logger.error({ err, handler: message.handler, messageId: message.messageId, attempts, retryInMs: delay }, 'scheduled message failed; retried later');
      }
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.ticking;
    await this.options.leaderLock.release();
  }
}
