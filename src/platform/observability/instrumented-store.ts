import { type EventStore, type NewEvent, WrongExpectedRevisionError } from '../eventstore/types';
import type { PlatformMetrics } from './metrics';

/**
 * The event store as the platform hands it out: every append counted and timed once here,
 * whoever appends (commands, reactors, imports) and whichever store is configured. Everything
 * else passes through untouched, optional methods included, so callers that test for one
 * (`store.measureLag?`) see what the store has.
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
  const append: EventStore['append'] = (stream, events, options) =>
    timed(events, () => store.append(stream, events, options));
  const appendMany: EventStore['appendMany'] = (writes) =>
    timed(
      writes.flatMap((w) => w.events),
      () => store.appendMany(writes),
    );
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'append') return append;
      if (property === 'appendMany') return appendMany;
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
