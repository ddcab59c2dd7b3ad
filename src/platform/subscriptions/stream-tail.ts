import type { Logger } from 'pino';
import type { EventStore, RecordedEvent, Subscription } from '../eventstore/types';
import { detached } from '../observability/tracing';
import { retryDelayMs } from '../infra/backoff';

/**
 * Follows single streams live for SSE readers: replay from the log, then live events, each
 * exactly once and in revision order. One subscription to the store per process fans out to
 * every follower by exact stream name, so fifty open streams cost one reader, not fifty.
 */
export interface StreamTail {
  /**
   * Events of `stream` after revision `after` (null: from the start), then live ones until
   * `signal` aborts. Iteration never ends by itself; the caller stops on a terminal event.
   */
  follow(stream: string, after: bigint | null, signal: AbortSignal): AsyncIterable<RecordedEvent>;
  /** Open followers (for tests and /health details). */
  readonly followers: number;
  stop(): Promise<void>;
}

/** A follower hears each live event of its stream, and `resync` when the live feed may have missed some. */
interface Listener {
  (event: RecordedEvent): void;
  resync(): void;
}

/** First and longest pause before the shared subscription is taken again after it ended (ms). */
const RESUBSCRIBE_BASE_MS = 100;
const RESUBSCRIBE_MAX_MS = 2000;

export function createStreamTail(store: EventStore, logger: Logger): StreamTail {
  const listeners = new Map<string, Set<Listener>>();
  let subscription: Subscription | null = null;
  let starting: Promise<void> | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | null = null;
  let attempt = 0;
  let count = 0;

  const everyListener = () => [...listeners.values()].flatMap((set) => [...set]);

  /**
   * The shared subscription, from the head. When it ends (the database went away) every open
   * follower re-reads its stream from the log, and the subscription is taken again with backoff
   * while anyone follows: nobody hangs on a feed that no longer exists.
   */
  function ensureSubscribed(): Promise<void> {
    if (subscription || stopped) return Promise.resolve();
    // Outside the trace of the request whose follower started it: later followers share it.
    starting ??= detached(async () => {
      const from = await store.headPosition();
      const live = store.subscribeToAll({ from });
      subscription = live;
      attempt = 0;
      // Events committed between the old feed's end and this one's head come from the log.
      for (const listener of everyListener()) listener.resync();
      void (async () => {
        try {
          for await (const event of live) {
            const set = listeners.get(event.stream);
            if (set) for (const listener of set) listener(event);
          }
        } catch (error) {
          logger.warn(
            { err: error },
            'stream tail subscription ended; followers re-read the log and it is taken again',
          );
        } finally {
          if (subscription === live) subscription = null;
          if (!stopped) {
            for (const listener of everyListener()) listener.resync();
            resubscribeLater();
          }
        }
      })();
    }).finally(() => (starting = null));
    return starting;
  }

  function resubscribeLater(): void {
    if (stopped || retry || count === 0) return;
    const delay = retryDelayMs(++attempt, RESUBSCRIBE_BASE_MS, RESUBSCRIBE_MAX_MS);
    retry = setTimeout(() => {
      retry = null;
      ensureSubscribed().catch((error) => {
        logger.warn({ err: error }, 'stream tail could not subscribe; retried');
        resubscribeLater();
      });
    }, delay);
    retry.unref();
  }

  return {
    get followers() {
      return count;
    },

    follow(stream, after, signal) {
      return {
        async *[Symbol.asyncIterator]() {
          const queue: RecordedEvent[] = [];
          let wake: (() => void) | null = null;
          let resync = false;
          const listener: Listener = Object.assign(
            (event: RecordedEvent) => {
              queue.push(event);
              wake?.();
            },
            {
              resync: () => {
                resync = true;
                wake?.();
              },
            },
          );
          const onAbort = () => wake?.();
          // Listen before reading, so an event committed meanwhile is in one of the two.
          let set = listeners.get(stream);
          if (!set) listeners.set(stream, (set = new Set()));
          set.add(listener);
          count++;
          signal.addEventListener('abort', onAbort);
          try {
            await ensureSubscribed().catch((error) => {
              // The live feed comes later; the log answers now.
              logger.warn({ err: error }, 'stream tail could not subscribe; retried');
              resubscribeLater();
            });
            let last = after ?? -1n;
            for (const event of await store.readStream(stream, { from: last + 1n })) {
              if (signal.aborted) return;
              last = event.revision;
              yield event;
            }
            while (!signal.aborted) {
              if (resync) {
                resync = false;
                try {
                  for (const missed of await store.readStream(stream, { from: last + 1n })) {
                    last = missed.revision;
                    yield missed;
                    if (signal.aborted) return;
                  }
                } catch {
                  // The database is still away: read again on the next resync.
                }
              }
              while (queue.length > 0) {
                const event = queue.shift()!;
                if (event.revision <= last) continue;
                if (event.revision > last + 1n) {
                  // The live feed ran ahead of what this follower has: fill the gap from the log.
                  for (const missed of await store.readStream(stream, {
                    from: last + 1n,
                    limit: Number(event.revision - last - 1n),
                  })) {
                    last = missed.revision;
                    yield missed;
                  }
                }
                last = event.revision;
                yield event;
                if (signal.aborted) return;
              }
              await new Promise<void>((resolve) => {
                wake = resolve;
                if (queue.length > 0 || resync || signal.aborted) resolve();
              });
              wake = null;
            }
          } finally {
            signal.removeEventListener('abort', onAbort);
            set.delete(listener);
            if (set.size === 0) listeners.delete(stream);
            count--;
          }
        },
      };
    },

    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      await subscription?.stop();
      subscription = null;
    },
  };
}
