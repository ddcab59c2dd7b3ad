import type { Logger } from 'pino';
import type { EventStore, RecordedEvent, Subscription } from '../eventstore/types';

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

type Listener = (event: RecordedEvent) => void;

export function createStreamTail(store: EventStore, logger: Logger): StreamTail {
  const listeners = new Map<string, Set<Listener>>();
  let subscription: Subscription | null = null;
  let starting: Promise<void> | null = null;
  let count = 0;

  function ensureSubscribed(): Promise<void> {
    if (subscription) return Promise.resolve();
    starting ??= (async () => {
      const from = await store.headPosition();
      const live = store.subscribeToAll({ from });
      subscription = live;
      void (async () => {
        try {
          for await (const event of live) {
            const set = listeners.get(event.stream);
            if (set) for (const listener of set) listener(event);
          }
        } catch (error) {
          logger.warn({ err: error }, 'stream tail subscription ended; followers re-read on their next wake-up');
        } finally {
          if (subscription === live) subscription = null;
          starting = null;
        }
      })();
    })();
    return starting;
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
          const listener: Listener = (event) => {
            queue.push(event);
            wake?.();
          };
          const onAbort = () => wake?.();
          // Listen before reading, so an event committed meanwhile is in one of the two.
          let set = listeners.get(stream);
          if (!set) listeners.set(stream, (set = new Set()));
          set.add(listener);
          count++;
          signal.addEventListener('abort', onAbort);
          try {
            await ensureSubscribed();
            let last = after ?? -1n;
            for (const event of await store.readStream(stream, { from: last + 1n })) {
              if (signal.aborted) return;
              last = event.revision;
              yield event;
            }
            while (!signal.aborted) {
              while (queue.length > 0) {
                const event = queue.shift()!;
                if (event.revision <= last) continue;
                if (event.revision > last + 1n) {
                  // The live feed ran ahead of what this follower has: fill the gap from the log.
                  for (const missed of await store.readStream(stream, { from: last + 1n, limit: Number(event.revision - last - 1n) })) {
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
                if (queue.length > 0 || signal.aborted) resolve();
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
      await subscription?.stop();
      subscription = null;
    },
  };
}
