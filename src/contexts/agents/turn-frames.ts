import type { RecordedEvent } from '../../platform/eventstore/types';
import { readTurnEvent, type TurnOutcome } from '../../../streams/agents/turn';

/**
 * How turn events read on the conversation stream: named SSE events whose data
 * is `{event, node, data}`; the frame id `<executionId>:<revision>` lets a reconnect resume
 * right after the last frame it saw. Events that are not frames (TurnStarted, tool and skill
 * details, usage) still advance the revision.
 */
export interface TurnFrame {
  id: string;
  event: 'node_end' | 'done' | 'error';
  data: { event: string; node: string; data: Record<string, unknown> };
  terminal: boolean;
}

export function outcomeWire(executionId: string, outcome: TurnOutcome) {
  return {
    execution_id: executionId,
    status: outcome.status,
    tokens_used: outcome.tokensUsed,
    cost_usd: outcome.costUsd,
    skills_injected: outcome.skillsInjected,
    thinking_mode: outcome.thinkingMode,
    referenced_entities: outcome.referencedEntities.map((e) => ({
      entity_id: e.entityId,
      name: e.name,
      entity_type: e.entityType,
    })),
    hitl_approval_id: outcome.hitlApprovalId,
    hitl_checkpoint_type: outcome.hitlCheckpointType,
    error: outcome.error,
  };
}

export const frameId = (executionId: string, revision: bigint | number) => `${executionId}:${revision}`;

/** `<executionId>:<revision>` back into its parts; null for anything else. */
export function parseFrameId(id: string | undefined): { executionId: string; revision: bigint } | null {
  if (!id) return null;
  const m = /^(.+):(\d{1,18})$/.exec(id);
  return m ? { executionId: m[1], revision: BigInt(m[2]) } : null;
}

export function frameOf(executionId: string, recorded: RecordedEvent): TurnFrame | null {
  const event = readTurnEvent(recorded);
  const id = frameId(executionId, recorded.revision);
  switch (event.type) {
    case 'NodeCompleted': {
      const d = event.data;
      const data: Record<string, unknown> = { status: d.status, tokens_used: d.tokensUsed };
      if (d.message)
        data.message = {
          role: d.message.role,
          content: d.message.content,
          tool_calls: d.message.toolCalls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
        };
      if (d.skillsLoaded) data.skills_loaded = d.skillsLoaded;
      if (d.detail) Object.assign(data, d.detail);
      return { id, event: 'node_end', data: { event: 'node_end', node: d.node, data }, terminal: false };
    }
    case 'TurnCompleted':
    case 'TurnPaused':
      return {
        id,
        event: 'done',
        data: { event: 'done', node: 'done', data: outcomeWire(executionId, event.data.outcome) },
        terminal: true,
      };
    case 'TurnFailed':
      return {
        id,
        event: 'error',
        data: {
          event: 'error',
          node: 'error',
          data: { ...outcomeWire(executionId, event.data.outcome), error: event.data.error },
        },
        terminal: true,
      };
    default:
      return null;
  }
}
