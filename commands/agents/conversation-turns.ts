import type { EventStore } from '../../src/platform/eventstore/types';
import { readTurnEvent, turnAggregate } from '../../streams/agents/turn';
import { conversationStream } from '../../streams/conversations/conversation';

/**
 * A conversation's turns, found from the log itself: every message a turn appends carries
 * its `execution_id` (the conversation's bounded reference to the turn), so the latest turns
 * are the ids on the latest messages. Read backwards over a bounded window, this needs no
 * read model and cannot lag behind a turn that just started.
 */
const WINDOW = 200;

export async function recentExecutionIds(
  store: EventStore,
  tenantId: string,
  conversationId: string,
): Promise<string[]> {
  const events = await store.readStream(conversationStream(tenantId, conversationId), {
    direction: 'backwards',
    limit: WINDOW,
  });
  const ids: string[] = [];
  for (const event of events) {
    if (event.type !== 'MessageAppended') continue;
    const id = (event.data as { metadata?: { execution_id?: unknown } | null }).metadata?.execution_id;
    if (typeof id === 'string' && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

/** How a turn ended, from the last event of its stream (null while it runs or when absent). */
export async function turnEnding(
  store: EventStore,
  tenantId: string,
  executionId: string,
): Promise<
  { type: 'TurnCompleted' | 'TurnFailed' } | { type: 'TurnPaused'; approvalId: string; checkpointType: string } | null
> {
  const [last] = await store.readStream(turnAggregate.stream(tenantId, executionId), {
    direction: 'backwards',
    limit: 1,
  });
  if (!last) return null;
  const event = readTurnEvent(last);
  if (event.type === 'TurnPaused')
    return { type: 'TurnPaused', approvalId: event.data.approvalId, checkpointType: event.data.checkpointType };
  if (event.type === 'TurnCompleted' || event.type === 'TurnFailed') return { type: event.type };
  return null;
}
