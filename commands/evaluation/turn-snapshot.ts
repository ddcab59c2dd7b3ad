import type { EventStore } from '../../src/platform/eventstore/types';
import { readTurnEvent, turnAggregate, type TurnOutcome } from '../../streams/agents/turn';

/**
 * A turn's events are its frozen snapshot: the
 * turn stream `agents.turn-<tenant>-<execution>` opens with TurnStarted, whose metadata and
 * data name the user who ran it.
 */
export interface TurnSnapshotHead {
  userId: string;
  conversationId: string | null;
}

/** One read of the turn's first event; null when the turn has no events (yet). */
export async function findTurnSnapshot(
  store: Pick<EventStore, 'readStream'>,
  tenantId: string,
  executionId: string,
): Promise<TurnSnapshotHead | null> {
  const [first] = await store.readStream(turnAggregate.stream(tenantId, executionId), { limit: 1 });
  if (!first) return null;
  // The stream name already scopes the tenant; the metadata must agree or it is not ours.
  if (first.metadata.tenantId !== tenantId) return null;
  // Linkage degrades, never fails the capture: an unreadable first event still names its actor.
  const data =
    first.type === 'TurnStarted' && first.data && typeof first.data === 'object'
      ? (first.data as { userId?: unknown; conversationId?: unknown })
      : {};
  return {
    userId: typeof data.userId === 'string' ? data.userId : first.metadata.actorId,
    conversationId: typeof data.conversationId === 'string' ? data.conversationId : null,
  };
}

/** Everything the log holds about a finished turn: its frozen input and what it produced. */
export interface FrozenTurn {
  executionId: string;
  started: Extract<ReturnType<typeof readTurnEvent>, { type: 'TurnStarted' }>['data'];
  outcome: TurnOutcome | null;
  /** The last assistant message the turn produced (the answer graded against). */
  answer: string;
  toolNames: string[];
}

export async function loadFrozenTurn(
  store: Pick<EventStore, 'readStream'>,
  tenantId: string,
  executionId: string,
): Promise<FrozenTurn | null> {
  const events = await store.readStream(turnAggregate.stream(tenantId, executionId));
  let started: FrozenTurn['started'] | null = null;
  let outcome: TurnOutcome | null = null;
  let answer = '';
  const toolNames: string[] = [];
  for (const stored of events) {
    const event = readTurnEvent(stored);
    switch (event.type) {
      case 'TurnStarted':
        started = event.data;
        break;
      case 'NodeCompleted':
        if (event.data.message && event.data.message.role === 'assistant' && event.data.message.content)
          answer = event.data.message.content;
        break;
      case 'ToolCalled':
        toolNames.push(event.data.toolName);
        break;
      case 'TurnCompleted':
      case 'TurnPaused':
      case 'TurnFailed':
        outcome = event.data.outcome;
        break;
      default:
        break;
    }
  }
  if (!started) return null;
  return { executionId, started, outcome, answer, toolNames };
}
