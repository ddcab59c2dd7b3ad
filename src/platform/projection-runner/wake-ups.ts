import type { Logger } from 'pino';
import type { EventStore, Subscription } from '../eventstore/types';
import { LogTail } from './log-tail';

export interface WakeUpsOptions {
  store: EventStore;
  logger: Logger;
  /** Bounds of the shared tail. */
  tailEvents: number;
  tailBytes?: number;
  /** How long the subscription lets appends gather before reading them (asked each time). */
  gatherMs: () => number;
  /** The subscription pushed events (called once per page, see `push`). */
  onEvents: () => void;
  /** The subscription came up or went down: lanes should read the store now. */
  onChange: () => void;
  /** First and longest pause before subscribing again (ms). */
  retryBaseMs?: number;
  retryMaxMs?: number;
}

/**
 * The one live subscription that wakes the lanes (docs/runtime.md) and fills the tail they
 * share at the head of the log. It never gives up: when the subscription ends (the database
 * went away) the tail is dropped, so no lane is told "nothing new" for positions nobody has
 * seen; lanes poll the store meanwhile, and the subscription comes back with backoff.
 */
export class WakeUps {
  private subscription: Subscription | null = null;
  private current: LogTail | null = null;
  private following: Promise<void> | null = null;
  private stopped = true;
  private pause: { timer: NodeJS.Timeout; resolve: () => void } | null = null;
  private pushed = 0;

  constructor(private readonly options: WakeUpsOptions) {}

  /** The tail, while the subscription is up; null while it is down (lanes read the store). */
  get tail(): LogTail | null {
    return this.current;
  }

  get up(): boolean {
    return this.current !== null;
  }

  /** Starts following the log, unless it already does. */
  start(onPush: () => void): void {
    this.stopped = false;
    this.following ??= this.follow(onPush).finally(() => (this.following = null));
  }

  hurry(): void {
    this.subscription?.hurry?.();
  }

  private async follow(onPush: () => void): Promise<void> {
    const { store, logger } = this.options;
    const base = this.options.retryBaseMs ?? 100;
    const max = this.options.retryMaxMs ?? 2000;
    let attempt = 0;
    while (!this.stopped) {
      try {
        const head = await store.headPosition();
        attempt = 0;
        const subscription = store.subscribeToAll({ from: head, gatherMs: this.options.gatherMs });
        this.subscription = subscription;
        this.current = new LogTail(head, this.options.tailEvents, this.options.tailBytes);
        if (this.stopped) break;
        this.options.onChange();
        for await (const event of subscription) {
          this.current?.push(event);
          this.options.onEvents();
          if (++this.pushed % 256 === 0) onPush();
        }
      } catch (error) {
        if (!this.stopped)
          logger.warn({ err: error }, 'wake-up subscription ended; lanes poll the store until it is back');
      }
      this.current = null;
      this.subscription = null;
      if (this.stopped) break;
      this.options.onChange();
      const delay = Math.min(max, base * 2 ** Math.min(attempt++, 10));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.pause = null;
          resolve();
        }, delay);
        this.pause = { timer, resolve };
      });
    }
    this.current = null;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.pause) {
      clearTimeout(this.pause.timer);
      this.pause.resolve();
    }
    await this.subscription?.stop();
    await this.following;
  }
}
