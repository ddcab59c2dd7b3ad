import type { CommandContext } from '../command-handling/command-handler';
import type { Config } from '../config';
import type { PlatformDeps } from '../context-module';
import type { RecordedEvent } from '../eventstore/types';

/**
 * A process manager on the log (Emmett's workflows, Wolverine's sagas): a named,
 * fenced, checkpointed subscription, run like a projection lane on the leader, whose handler
 * turns one event into commands on other aggregates. A route never writes a second aggregate
 * after its own command: what must follow elsewhere is a reactor.
 *
 * Replays are safe because every command a reactor issues runs under `reactionContext`, whose
 * idempotency key derives from the triggering event's id: after a crash between a command and
 * the checkpoint, the replayed command derives the same event ids and appends nothing twice.
 */
export interface Reactor {
  /** Checkpoint name, `<context>.<reaction>` (e.g. `connectors.secret-cleanup`). */
  name: string;
  /** Event types it reacts to; the runner skips every other event without calling it. */
  handles: readonly string[];
  react(event: RecordedEvent, deps: PlatformDeps): Promise<void>;
  /**
   * Optional: reacts to several events at once (a batch the lane read), for a reactor whose
   * commands find their work done in their streams' state when replayed, whatever batch they
   * come in. Its commands run under a `reactionContext` of an event of the batch (the first,
   * for one write for the batch; each its own, for a command per event). After a failure the
   * lane goes back to `react`, one event at a time, to find the event that fails.
   */
  reactBatch?(events: RecordedEvent[], deps: PlatformDeps): Promise<void>;
  /**
   * Optional: a reactor nobody waits for (no route's `waitFor` names its types, or one that
   * does accepts the pace) waits this many ms after each batch that was not full, where a lane
   * reads again at once after reacting: its batches hold what happened meanwhile (an event and
   * its sequel arrive together), and it reads and moves its checkpoint once per pace, not once
   * per few events.
   */
  paceMs?(config: Config): number;
}

/**
 * The command context of a reaction: the triggering event's tenant and correlation, the
 * event as causation, and an idempotency key derived from the event id and the step (one
 * event may cause several commands; each names its own step).
 */
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
