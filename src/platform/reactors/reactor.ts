import type { CommandContext } from '../command-handling/command-types';
import type { RecordedEvent } from '../eventstore/types';

export type { AnyReactor, FactReader, ReactionCommand, Reactor } from '../context-module';

/**
 * The command context of a reaction: the triggering event's tenant and correlation, the
 * event as causation, and an idempotency key derived from the event id and the step (one
 * event may cause several commands; each names its own step).
 */
/** The tenant a recorded event belongs to (its metadata's). */
export const tenantOf = (event: RecordedEvent): string =>
  String((event.metadata as { tenantId?: string }).tenantId ?? '');

/** Who appended a recorded event (its metadata's actor). */
export const actorOf = (event: RecordedEvent): string => String((event.metadata as { actorId?: string }).actorId ?? '');

export function reactionContext(event: RecordedEvent, step: string, actorId?: string): CommandContext {
  const metadata = event.metadata as { tenantId?: string; actorId?: string; correlationId?: string };
  return {
    tenantId: String(metadata.tenantId ?? ''),
    actorId: actorId ?? String(metadata.actorId ?? ''),
    correlationId: metadata.correlationId ?? event.id,
    causationId: event.id,
    idempotencyKey: `reaction:${event.id}:${step}`,
  };
}
