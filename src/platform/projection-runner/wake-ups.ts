import type { Logger } from 'pino';
import type { EventStore, RecordedEvent, Subscription } from '../eventstore/types';
import { LogTail } from './log-tail';
import { retryDelayMs } from '../infra/backoff';

/**
 * How long the subscription lets appends gather before it reads them, while no listener has
 * someone waiting (a command in `waitFor`, a reader catching up): one read of the log then
 * serves a burst (at 1,300 commands/s, about six) instead of one read per append. A waiter
 * hurries it, so a command never waits for the gathering; other instances hear of appends
 * through a NOTIFY sent at most every 10 ms anyway.
 */
const WAKE_GATHER_MS = 5;

/** A runtime that follows the log through the shared subscription (a kind of lane). */
export interface WakeListener {
  /**
   * One event the subscription read. A page's events come one per microtask, before any timer
   * or I/O callback: a listener that wakes its lanes in a `setImmediate` sees the whole page.
   */
  onEvent(event: RecordedEvent): void;
  /** The subscription came up or went down: lanes should read the store now. */
  onChange(): void;
  /** Someone waits on this listener's lanes: the subscription reads without gathering. */
  urgent?(): boolean;
  /** Called every 256 events pushed into the tail (its reader lets it forget what was passed). */
  onPush?(): void;
}

export interface WakeUpsOptions {
  store: EventStore;
  logger: Logger;
  /** Bounds of the shared tail. */
  tailEvents: number;
  tailBytes?: number;
  /** First and longest pause before subscribing again (ms). */
  retryBaseMs?: number;
  retryMaxMs?: number;
}

/**
 * The one live subscription that wakes every lane of every kind (docs/runtime.md) and fills
 * the tail the projection lanes share at the head of the log. It runs while any runtime that
 * leads listens, and never gives up: when the subscription ends (the database went away) the
 * tail is dropped, so no lane is told "nothing new" for positions nobody has seen; lanes poll
 * the store meanwhile, and the subscription comes back with backoff.
 */
export class WakeUps {
  private subscription: Subscription | null = null;
  private current: LogTail | null = null;
  private following: Promise<void> | null = null;
  private pause: { timer: NodeJS.Timeout; resolve: () => void } | null = null;
  private pushed = 0;
  private readonly listeners = new Set<WakeListener>();
  /** Leavers waiting for the subscription to end; a new listener releases them too. */
  private leaving: Array<() => void> = [];

  constructor(private readonly options: WakeUpsOptions) {}

  /** The tail, while the subscription is up; null while it is down (lanes read the store). */
  get tail(): LogTail | null {
    return this.current;
  }

  get up(): boolean {
    return this.current !== null;
  }

  /** Adds a listener and follows the log, unless it already does. */
  join(listener: WakeListener): void {
    this.listeners.add(listener);
    for (const release of this.leaving.splice(0)) release();
    this.follow();
  }

  /** Removes a listener; the last one out ends the subscription and waits for it to end. */
  leave(listener: WakeListener): Promise<void> {
    this.listeners.delete(listener);
    if (this.listeners.size > 0 || !this.following) return Promise.resolve();
    if (this.pause) {
      clearTimeout(this.pause.timer);
      this.pause.resolve();
    }
    return new Promise<void>((resolve) => {
      this.leaving.push(resolve);
      void this.subscription?.stop();
    });
  }

  hurry(): void {
    this.subscription?.hurry?.();
  }

  private get stopped(): boolean {
    return this.listeners.size === 0;
  }

  private follow(): void {
    this.following ??= this.run().finally(() => {
      this.following = null;
      for (const release of this.leaving.splice(0)) release();
      // A listener that joined as the loop was ending: follow again for it.
      if (!this.stopped) this.follow();
    });
  }

  private async run(): Promise<void> {
    const { store, logger } = this.options;
    const base = this.options.retryBaseMs ?? 100;
    const max = this.options.retryMaxMs ?? 2000;
    const gatherMs = () => ([...this.listeners].some((l) => l.urgent?.()) ? 0 : WAKE_GATHER_MS);
    let attempt = 0;
    while (!this.stopped) {
      try {
        const head = await store.headPosition();
        attempt = 0;
        const subscription = store.subscribeToAll({ from: head, gatherMs });
        this.subscription = subscription;
        if (this.stopped) break;
        this.current = new LogTail(head, this.options.tailEvents, this.options.tailBytes);
        this.changed();
        for await (const event of subscription) {
          this.current?.push(event);
          for (const listener of this.listeners) listener.onEvent(event);
          if (++this.pushed % 256 === 0) for (const listener of this.listeners) listener.onPush?.();
        }
      } catch (error) {
        if (!this.stopped)
          logger.warn({ err: error }, 'wake-up subscription ended; lanes poll the store until it is back');
      }
      this.current = null;
      this.subscription = null;
      if (this.stopped) break;
      this.changed();
      const delay = retryDelayMs(++attempt, base, max);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.pause = null;
          resolve();
        }, delay);
        this.pause = { timer, resolve };
      });
    }
    await this.subscription?.stop();
    this.current = null;
    this.subscription = null;
  }

  private changed(): void {
    for (const listener of this.listeners) listener.onChange();
  }
}
