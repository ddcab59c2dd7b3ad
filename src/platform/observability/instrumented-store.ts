import { type EventStore, type NewEvent, WrongExpectedRevisionError } from '../eventstore/types';
import type { PlatformMetrics } from './metrics';

/**
 * The event store as the platform hands it out: every append counted and timed once here,
 * whoever appends (commands, reactors, imports) and whichever store is configured. Every other
 * member is the store's own, optional methods included (callers that test for one,
 * `store.measureLag?`, see what the store has). A plain object rather than a Proxy, so a test
 * that stubs `append` on it (sinon) replaces this layer's method and can still call it.
 */
export function instrumentStore(store: EventStore, metrics: PlatformMetrics): EventStore {
  async function timed<T>(events: readonly NewEvent[], append: () => Promise<T>): Promise<T> {
    const end = metrics.appendDuration.startTimer();
    try {
      const result = await append();
      metrics.appends.inc({ result: 'ok' });
      metrics.appendEvents.observe(events.length);
      metrics.observeEvents(events);
      return result;
    } catch (error) {
      const conflict = error instanceof WrongExpectedRevisionError;
      if (conflict) metrics.concurrencyConflicts.inc();
      metrics.appends.inc({ result: conflict ? 'conflict' : 'error' });
      throw error;
    } finally {
      end();
    }
  }
  const wrapped: Record<string, unknown> = {};
  const source = store as unknown as Record<string, unknown>;
  for (let level: object | null = store; level && level !== Object.prototype; level = Object.getPrototypeOf(level)) {
    for (const key of Object.getOwnPropertyNames(level)) {
      if (key === 'constructor' || key in wrapped) continue;
      const value = source[key];
      if (typeof value === 'function') wrapped[key] = (value as (...args: unknown[]) => unknown).bind(store);
      else Object.defineProperty(wrapped, key, { get: () => source[key], enumerable: true });
    }
  }
  const instrumented: Pick<EventStore, 'append' | 'appendMany'> = {
    append: (stream, events, options) => timed(events, () => store.append(stream, events, options)),
    appendMany: (writes) =>
      timed(
        writes.flatMap((w) => w.events),
        () => store.appendMany(writes),
      ),
  };
  return Object.assign(wrapped, instrumented) as unknown as EventStore;
}
