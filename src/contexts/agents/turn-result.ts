import type { PlatformDeps } from '../../platform/context-module';
import { readTurnEvent, TERMINAL_TURN_EVENTS, turnAggregate } from '../../../streams/agents/turn';
import { outcomeWire } from './turn-frames';
import type { ExecutionResult } from './turn-preparation';

/**
 * The execution result of a turn rebuilt from its stream, for a retried POST /execute
 * (same Idempotency-Key): waits for the turn's terminal event, then answers as the first
 * request did, without running anything again.
 */
export async function resultOfTurn(
  deps: Pick<PlatformDeps, 'streamTail'>,
  tenantId: string,
  executionId: string,
  timeoutMs: number,
): Promise<ExecutionResult | null> {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), timeoutMs);
  const messages: ExecutionResult['messages'] = [];
  let conversationId = '';
  try {
    for await (const recorded of deps.streamTail.follow(
      turnAggregate.stream(tenantId, executionId),
      null,
      stop.signal,
    )) {
      const event = readTurnEvent(recorded);
      if (event.type === 'TurnStarted') conversationId = event.data.conversationId;
      if (event.type === 'NodeCompleted' && event.data.node === 'initial_llm_call' && event.data.message) {
        const m = event.data.message;
        messages.push({
          role: m.role,
          content: m.content,
          tool_calls: m.toolCalls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
        });
      }
      if (event.type === 'ToolReturned') messages.push({ role: 'tool', content: event.data.content, tool_calls: [] });
      if ((TERMINAL_TURN_EVENTS as readonly string[]).includes(event.type)) {
        const outcome = (event as Extract<typeof event, { type: 'TurnCompleted' | 'TurnPaused' | 'TurnFailed' }>).data
          .outcome;
        return { ...outcomeWire(executionId, outcome), conversation_id: conversationId, messages };
      }
    }
    return null;
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
}
