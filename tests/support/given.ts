import { expect } from 'chai';
import type { Decider, DomainEvent } from '../../src/platform/command-handling/decider';

/**
 * Decider tests read as specifications:
 *   given(decider, [events]).when(command).then([events])
 *   given(decider, [events]).when(command).thenThrows(Conflict, /taken/)
 */
export function given<C, S, E extends DomainEvent>(
  decider: Decider<C, S, E>,
  history: E[] = [],
  now: Date = new Date('2026-01-15T12:00:00Z'),
) {
  const state = history.reduce(decider.evolve, decider.initialState);
  return {
    state,
    when(command: C) {
      const run = () => decider.decide(command, state, now);
      return {
        then(expected: E[]) {
          expect(run()).to.deep.equal(expected);
        },
        thenNothing() {
          expect(run()).to.deep.equal([]);
        },
        thenThrows(errorType: new (...args: any[]) => Error, message?: RegExp) {
          let thrown: unknown;
          try {
            run();
          } catch (error) {
            thrown = error;
          }
          expect(thrown, 'decide should throw').to.be.instanceOf(errorType);
          if (message) expect((thrown as Error).message).to.match(message);
        },
        /** For assertions on generated values (ids, hashes): the events themselves. */
        events(): E[] {
          return run();
        },
      };
    },
  };
}

/**
 * Several commands of one aggregate behind one decider, dispatched on `command.type`, so a
 * spec can mix them: `dispatching(projectAggregate, { CreateProject: decideCreateProject, … })`.
 */
export function dispatching<S, E extends DomainEvent, C extends { type: string }>(
  aggregate: { initialState: S; evolve(state: S, event: E): S },
  decides: { [K in C['type']]: (command: Extract<C, { type: K }>, state: S, now: Date) => E[] },
): Decider<C, S, E> {
  return {
    ...aggregate,
    decide: (command, state, now) =>
      (decides as unknown as Record<string, (c: C, s: S, n: Date) => E[]>)[command.type](command, state, now),
  };
}
