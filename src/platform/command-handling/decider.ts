import type { RecordedEvent } from '../eventstore/types';
import type { SnapshotPolicy } from './snapshot-policy';

/** What a decider emits: the handler adds metadata (tenant, actor, correlation, signature). */
export interface DomainEvent<T extends string = string, D = unknown> {
  type: T;
  data: D;
}

/**
 * A pure aggregate: `evolve` folds events into state, `decide` turns a command
 * and the current state into new events or throws a domain error. No I/O; time and ids
 * arrive as arguments. A command's decider is its stream's aggregate definition
 * (streams/<context>/) spread with the command's own `decide`.
 */
export interface Decider<Command, State, Event extends DomainEvent> {
  initialState: State;
  evolve(state: State, event: Event): State;
  decide(command: Command, state: State, now: Date): Event[];
  /** Reads stored events back (zod parsing, upcasting old shapes). Default: as stored. */
  read?(event: RecordedEvent): Event;
  /** Long streams are read from their latest snapshot (see Aggregate). */
  snapshot?: SnapshotPolicy<State>;
}

export function fold<State, Event extends DomainEvent>(
  decider: Pick<Decider<unknown, State, Event>, 'initialState' | 'evolve'>,
  events: Event[],
): State {
  return events.reduce(decider.evolve, decider.initialState);
}

/**
 * The decider of a list of commands on one stream: each is decided on the state the ones
 * before it left, and all their events are appended in one write. Its fold is the original
 * decider's, so a remembered state is shared with the single commands.
 */
export function inSequence<Command, State, Event extends DomainEvent>(
  decider: Decider<Command, State, Event>,
): Decider<readonly Command[], State, Event> {
  return {
    ...decider,
    decide(commands, state, now) {
      const events: Event[] = [];
      for (const command of commands) {
        const decided = decider.decide(command, state, now);
        events.push(...decided);
        state = decided.reduce(decider.evolve, state);
      }
      return events;
    },
  };
}

/** Exhaustiveness guard for `switch (command.type)` in deciders. */
export function assertNever(value: never): never {
  throw new Error(`unhandled case: ${JSON.stringify(value)}`);
}
