import { expect } from 'chai';
import { frameOf, parseFrameId } from '../../../src/contexts/agents/turn-frames';
import type { RecordedEvent } from '../../../src/platform/eventstore/types';

const recorded = (revision: bigint, type: string, data: unknown): RecordedEvent =>
  ({
    id: 'x',
    stream: 'agents.turn-t-e1',
    revision,
    position: { commit: 1n, prepare: 1n },
    type,
    data,
    metadata: {} as any,
    recordedAt: new Date(),
  }) as RecordedEvent;

const outcome = {
  status: 'completed',
  tokensUsed: 10,
  costUsd: 0,
  skillsInjected: ['s'],
  thinkingMode: 'adaptive',
  referencedEntities: [{ entityId: 'w1', name: 'W 1', entityType: 'Well' }],
  hitlApprovalId: null,
  hitlCheckpointType: null,
  error: null,
};

describe('turn frames on the conversation stream', () => {
  it('a completed node is a node_end frame {event, node, data} with snake_case fields, id <execution>:<revision>', () => {
    const frame = frameOf(
      'e1',
      recorded(4n, 'NodeCompleted', {
        node: 'tool_node',
        status: 'ok',
        tokensUsed: null,
        message: { role: 'tool', content: 'x', toolCalls: [{ id: 'c', name: 'load_skill', args: { skill_key: 's' } }] },
        skillsLoaded: ['s'],
        detail: { tools: [] },
      }),
    );
    expect(frame).to.deep.equal({
      id: 'e1:4',
      event: 'node_end',
      terminal: false,
      data: {
        event: 'node_end',
        node: 'tool_node',
        data: {
          status: 'ok',
          tokens_used: null,
          message: {
            role: 'tool',
            content: 'x',
            tool_calls: [{ id: 'c', name: 'load_skill', args: { skill_key: 's' } }],
          },
          skills_loaded: ['s'],
          tools: [],
        },
      },
    });
  });

  it('the end of a turn is a terminal done (completed or paused) or error frame; other events are not frames', () => {
    const done = frameOf('e1', recorded(9n, 'TurnCompleted', { outcome, finishedAt: '2026-01-01T00:00:00Z' }))!;
    expect(done).to.deep.include({ event: 'done', terminal: true });
    expect(done.data.data).to.deep.include({
      execution_id: 'e1',
      status: 'completed',
      skills_injected: ['s'],
      referenced_entities: [{ entity_id: 'w1', name: 'W 1', entity_type: 'Well' }],
    });
    const failed = frameOf(
      'e1',
      recorded(9n, 'TurnFailed', {
        error: 'budget',
        outcome: { ...outcome, status: 'error', error: 'budget' },
        finishedAt: '2026-01-01T00:00:00Z',
      }),
    )!;
    expect(failed).to.deep.include({ event: 'error', terminal: true });
    expect(failed.data.data.error).to.equal('budget');
    expect(frameOf('e1', recorded(1n, 'ToolCalled', { toolCallId: 'c', toolName: 'x', args: {} }))).to.equal(null);
  });

  it('Last-Event-ID parses back to the execution and revision; anything else is ignored', () => {
    expect(parseFrameId('0b6c-aa:12')).to.deep.equal({ executionId: '0b6c-aa', revision: 12n });
    expect(parseFrameId('e1:rejected')).to.equal(null);
    expect(parseFrameId(undefined)).to.equal(null);
  });
});
