import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { Conflict } from '../domain/errors';
import { EventStore, Position, RecordedEvent, WrongExpectedRevisionError } from '../eventstore/types';
import type { Decider, DomainEvent } from './decider';

/** Who issues a command; becomes every appended event's metadata. */
export interface CommandContext {
  tenantId: string;
  actorId: string;
  correlationId?: string;
  causationId?: string;
  /** Extra audit metadata on every appended event, e.g. `{action: 'platform_settings.update'}`. */
  metadata?: Record<string, unknown>;
}

export interface ProjectionWaiter {
  waitFor(position: Position, timeoutMs: number): Promise<boolean>;
}

export interface CommandHandlerDeps {
  store: EventStore;
  projections: ProjectionWaiter;
  logger: Logger;
  clock?: () => Date;
  retries?: number;
  projectionWaitMs?: number;
}

export interface CommandResult<State, Event> {
  state: State;
  /** What this command appended (empty when it decided nothing). */
  events: Event[];
  position: Position | null;
}

export type CommandHandler = <Command, State, Event extends DomainEvent>(
  decider: Decider<Command, State, Event>,
  stream: string,
  command: Command,
  context: CommandContext,
) => Promise<CommandResult<State, Event>>;

/**
 * Load, fold, decide, append with the revision read; on a concurrent write, try again from
 * the top (bounded), then wait until projections hold the write so a GET right after the
 * command sees it.
 */
export function createCommandHandler(deps: CommandHandlerDeps): CommandHandler {
  const { store, projections, logger } = deps;
  const clock = deps.clock ?? (() => new Date());
  const retries = deps.retries ?? 3;
  const waitMs = deps.projectionWaitMs ?? 5000;

  return async function handle<Command, State, Event extends DomainEvent>(
    decider: Decider<Command, State, Event>,
    stream: string,
    command: Command,
    context: CommandContext,
  ): Promise<CommandResult<State, Event>> {
    const read = decider.read ?? ((e: RecordedEvent) => ({ type: e.type, data: e.data }) as Event);
    const correlationId = context.correlationId ?? randomUUID();
    for (let attempt = 0; ; attempt++) {
      const stored = await store.readStream(stream);
      const state = stored.map(read).reduce(decider.evolve, decider.initialState);
      const events = decider.decide(command, state, clock());
      if (events.length === 0) return { state, events, position: null };
      const expectedRevision = stored.length > 0 ? stored[stored.length - 1].revision : 'no_stream';
      try {
        const result = await store.append(
          stream,
          events.map((event) => ({
            id: randomUUID(),
            type: event.type,
            data: event.data,
            metadata: {
              ...context.metadata,
              tenantId: context.tenantId,
              actorId: context.actorId,
              correlationId,
              causationId: context.causationId ?? correlationId,
            },
          })),
          { expectedRevision },
        );
        const caughtUp = await projections.waitFor(result.position, waitMs);
        if (!caughtUp) logger.warn({ stream, waitMs }, 'projections did not reach the write in time; a read may lag');
        return { state: events.reduce(decider.evolve, state), events, position: result.position };
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        if (attempt >= retries) throw new Conflict('the record was changed concurrently; please retry');
      }
    }
  };
}
