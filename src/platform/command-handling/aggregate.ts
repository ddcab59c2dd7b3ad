import type { z, ZodTypeAny } from 'zod';
import type { RecordedEvent } from '../eventstore/types';
import type { DomainEvent } from './decider';
import type { SnapshotPolicy } from './snapshot-policy';

export type { SnapshotPolicy } from './snapshot-policy';

/**
 * One aggregate definition per stream: the stream-name helper, the event
 * catalogue and the fold. A command spreads it and adds its own `decide`:
 *
 *   const decider: Decider<DecideApproval, ApprovalState, ApprovalEvent> = { ...approvalAggregate, decide: decideApproval };
 *
 * Decision state keeps only what decisions need (status, owner, counters, last ids): bulky
 * content lives in read models or its own streams, so folding stays cheap however long the
 * stream grows. Streams that do grow long declare `snapshot` and the command handler reads
 * them from the latest snapshot instead of revision 0.
 */
export interface Aggregate<State, Event extends DomainEvent> {
  /** `<context>.<aggregate>-<tenantId>-<id>`: the only place this stream's name is built. */
  stream(tenantId: string, id: string): string;
  /** Every event type of the stream, for projectors' filters and the audit registry. */
  eventTypes: readonly Event['type'][];
  initialState: State;
  evolve(state: State, event: Event): State;
  /** Reads stored events back: zod parsing, upcasting old shapes. */
  read(event: Pick<RecordedEvent, 'type' | 'data'>): Event;
  snapshot?: SnapshotPolicy<State>;
}

/** The discriminated union `{type, data}` of an event catalogue given as zod schemas. */
export type EventsOf<Schemas extends Record<string, ZodTypeAny>> = {
  [K in keyof Schemas & string]: { type: K; data: z.infer<Schemas[K]> };
}[keyof Schemas & string];

/** `read` for a catalogue of zod schemas: unknown types and malformed data fail loudly. */
export function eventReader<Schemas extends Record<string, ZodTypeAny>>(what: string, schemas: Schemas) {
  return (event: Pick<RecordedEvent, 'type' | 'data'>): EventsOf<Schemas> => {
    const schema = schemas[event.type];
    if (!schema) throw new Error(`not a ${what} event: ${event.type}`);
    return { type: event.type, data: schema.parse(event.data) } as EventsOf<Schemas>;
  };
}
