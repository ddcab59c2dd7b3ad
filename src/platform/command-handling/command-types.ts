import type { Decider, DomainEvent } from './decider';
import type { Position } from '../eventstore/types';

/*
 * The command handler as its callers see it, apart from its implementation
 * (`createCommandHandler`, command-handler.ts): what the handler itself uses (reservations,
 * multi-stream writes) and what runs commands (reactors, the scheduler) name these types
 * without importing the handler, so no import cycle runs through it.
 */

/** Who issues a command; becomes every appended event's metadata. */
export interface CommandContext {
  tenantId: string;
  actorId: string;
  correlationId?: string;
  causationId?: string;
  /**
   * The request's `Idempotency-Key`: event ids derive from it, so a retried request
   * appends nothing new and answers from the state the first one left.
   */
  idempotencyKey?: string;
  /** Extra audit metadata on every appended event, e.g. `{action: 'platform_settings.update'}`. */
  metadata?: Record<string, unknown>;
}

/**
 * Uniqueness decided on the write side: values the command claims for its stream (or gives
 * up), appended in the same atomic multi-stream write as the stream's own events.
 */
export interface CommandOptions {
  reserve?: ReservationKey[];
  release?: ReservationKey[];
}

export interface CommandResult<State, Event> {
  state: State;
  /** What this command appended (empty when it decided nothing or replayed a retry). */
  events: Event[];
  position: Position | null;
  /** True when an Idempotency-Key matched a command already applied. */
  replayed?: boolean;
}

/** One command for `handle.together`: what `handle` takes, but the context. */
export interface Decision<Command, State, Event extends DomainEvent> {
  decider: Decider<Command, State, Event>;
  stream: string;
  command: Command;
  options?: CommandOptions;
  /**
   * A hot stream many writers of this process race on (a tenant's daily usage): they take
   * turns, each deciding and appending while the others wait, so they never conflict with each
   * other; writers in other processes still can, and the retries answer those.
   */
  exclusive?: boolean;
}

/** What a remembered state depends on: an aggregate's fold (its deciders share it). */
export type StateFold<State> = Pick<Decider<unknown, State, any>, 'initialState' | 'evolve' | 'read'>;

export interface CommandHandler {
  <Command, State, Event extends DomainEvent>(
    decider: Decider<Command, State, Event>,
    stream: string,
    command: Command,
    context: CommandContext,
    options?: CommandOptions,
  ): Promise<CommandResult<State, Event>>;
  /** Several commands on different streams, each decided as `handle` decides it, appended in one atomic write. */
  together<const Decisions extends readonly Decision<any, any, any>[]>(
    decisions: Decisions,
    context: CommandContext,
    /** `retries`: conflicts with other processes tolerated (hot streams take more); the handler's by default. */
    options?: { retries?: number },
  ): Promise<{
    -readonly [K in keyof Decisions]: Decisions[K] extends Decision<any, infer State, infer Event>
      ? CommandResult<State, Event>
      : never;
  }>;
  /**
   * The state this process remembers of `stream` under `fold`, while the store's head is still
   * its revision as far as this process knows; else null. For a decision across streams
   * (`appendAtomically`) that then proves it with a check in its append.
   */
  recall<State>(fold: StateFold<State>, stream: string): { state: State; revision: bigint | null } | null;
  /** Remembers a state read or decided, true at `revision`, for the next decision on the stream. */
  remember<State>(fold: StateFold<State>, stream: string, state: State, revision: bigint | null): void;
}

/** A value a command claims or gives up, its stream named by `reservationStream` (reservation.ts). */
export interface ReservationKey {
  context: string;
  tenantId: string;
  kind: string;
  value: string;
  /** Human name for the conflict message, e.g. "e-mail address". */
  label: string;
}
