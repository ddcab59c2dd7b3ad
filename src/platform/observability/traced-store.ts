import {
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type NewEvent,
  positionToString,
  type StreamWrite,
} from '../eventstore/types';
import { inSpan, traceCarrier } from './tracing';

/**
 * The event store with a span around every append, whose trace context each appended event
 * carries in its metadata (`traceparent`, W3C Trace Context): a lane that later handles the
 * event continues or links that trace (docs/operations.md#tracing). Applied only when tracing
 * is on, so an untraced platform's events carry no trace fields.
 */
export function traceAppends(store: EventStore): EventStore {
  return {
    ...store,
    append(stream, events, options) {
      return inSpan(
        'append',
        {
          'eventstore.stream': stream,
          'eventstore.event_count': events.length,
          'eventstore.event_types': distinctTypes(events),
          'eventstore.expected_revision': String(options?.expectedRevision ?? 'any'),
        },
        async (span) => {
          const result = await store.append(stream, stamped(events), options);
          span?.setAttributes(outcome(result));
          return result;
        },
      );
    },
    appendMany(writes: StreamWrite[]) {
      return inSpan(
        'append',
        {
          'eventstore.stream': writes.map((w) => w.stream).join(', '),
          'eventstore.event_count': writes.reduce((n, w) => n + w.events.length, 0),
          'eventstore.event_types': distinctTypes(writes.flatMap((w) => w.events)),
        },
        async (span) => {
          const results = await store.appendMany(writes.map((w) => ({ ...w, events: stamped(w.events) })));
          const last = results[results.length - 1];
          if (last) span?.setAttribute('eventstore.position', positionToString(last.position));
          return results;
        },
      );
    },
  };
}

const distinctTypes = (events: readonly NewEvent[]) => [...new Set(events.map((e) => e.type))].join(', ');

const outcome = (result: AppendResult) => ({
  'eventstore.revision': Number(result.nextRevision),
  'eventstore.position': positionToString(result.position),
});

/**
 * The events with the append span's context in their metadata. Events that share one metadata
 * object (every event of a command does) still share one: the store signs and serialises a
 * shared object once.
 */
function stamped(events: NewEvent[]): NewEvent[] {
  const carrier = traceCarrier();
  if (!carrier.traceparent) return events;
  const copies = new Map<EventMetadata, EventMetadata>();
  return events.map((event) => {
    let metadata = copies.get(event.metadata);
    if (!metadata) copies.set(event.metadata, (metadata = { ...event.metadata, ...carrier }));
    return { ...event, metadata };
  });
}
