import type { CommandContext } from '../command-handling/command-types';
import type { AnyReactor, PlatformDeps, ReactionCommand } from '../context-module';
import { DomainError, ValidationFailed } from '../domain-errors';
import type { Position, RecordedEvent } from '../eventstore/types';
import { withScope } from '../http/request-scope';
import { reactionContext } from './reactor';

export type { ReactionCommand } from '../context-module';

/** Who sends a reaction's commands: the context each step runs under. */
export type ContextFor = (step: string, actorId: string | undefined) => CommandContext;

/**
 * Why a refusal is lasting, or null for one a retry may mend (a concurrent write, an
 * unavailable store) and for anything that is not a domain refusal.
 */
export function lastingRefusal(error: unknown): string | null {
  if (!(error instanceof DomainError) || error.kind === 'conflict' || error.kind === 'unavailable') return null;
  return error instanceof ValidationFailed ? error.issues.map((i) => i.msg).join('; ') : error.message;
}

/**
 * Sends a reaction's commands in order; answers the position of the last write (null when
 * nothing was appended). A route that runs a reaction's commands itself (an administrator's
 * retry) passes its own context for every step.
 */
export async function sendCommands(
  deps: PlatformDeps,
  contextFor: ContextFor,
  commands: readonly ReactionCommand[],
): Promise<Position | null> {
  let last: Position | null = null;
  for (const command of commands) last = (await sendCommand(deps, contextFor, command)) ?? last;
  return last;
}

async function sendCommand(
  deps: PlatformDeps,
  contextFor: ContextFor,
  command: ReactionCommand,
): Promise<Position | null> {
  const context = contextFor(command.step, command.actorId);
  try {
    if (command.operation) {
      await command.operation.send(deps, context);
      return null;
    }
    const writes = command.writes ?? [];
    if (writes.length === 0) return null;
    if (writes.length === 1 && command.retries === undefined) {
      const [w] = writes;
      return (await deps.handle(w.decider, w.stream, w.command, context, w.options)).position;
    }
    const results = await deps.handle.together(writes, context, { retries: command.retries });
    return results.reduce<Position | null>((p, r) => r.position ?? p, null);
  } catch (error) {
    if (error instanceof DomainError && command.expected?.includes(error.kind)) return null;
    const reason = command.whenRefused ? lastingRefusal(error) : null;
    if (reason === null) throw error;
    const instead = command.whenRefused!(reason);
    return instead ? sendCommand(deps, contextFor, instead) : null;
  }
}

/** The scope of a reaction: keyed by its reactor and its event (a batch: its first), never the batch's length. */
const reactionScope = (reactor: AnyReactor, event: RecordedEvent) => ({
  idempotencyKey: `reaction:${reactor.name}:${event.id}`,
});

/** One reaction, as the runtime runs it: load the facts it declares, decide, send the commands. */
export async function runReaction(reactor: AnyReactor, event: RecordedEvent, deps: PlatformDeps): Promise<void> {
  await withScope(reactionScope(reactor, event), async () => {
    const facts: unknown = reactor.facts ? await reactor.facts(event, deps) : undefined;
    const commands = reactor.react(event, facts);
    await sendCommands(deps, (step, actorId) => reactionContext(event, step, actorId), commands);
  });
}

/** A batch reaction (`Reactor.reactBatch`): each command runs in the context of the event it acts for. */
export async function runReactionBatch(
  reactor: AnyReactor,
  events: RecordedEvent[],
  deps: PlatformDeps,
): Promise<void> {
  if (!reactor.reactBatch) throw new Error(`reactor ${reactor.name} reacts one event at a time`);
  const react = reactor.reactBatch;
  await withScope(reactionScope(reactor, events[0]), async () => {
    const facts: unknown = reactor.batchFacts ? await reactor.batchFacts(events, deps) : undefined;
    for (const { cause, command } of react(events, facts))
      await sendCommands(deps, (step, actorId) => reactionContext(cause, step, actorId), [command]);
  });
}
