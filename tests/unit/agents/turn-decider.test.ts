import { expect } from 'chai';
import { decideFinishTurn, type FinishTurn } from '../../../commands/agents/finish-turn';
import { decideRecordTurnProgress, type RecordTurnProgress } from '../../../commands/agents/record-turn-progress';
import { decideStartTurn, type StartTurn } from '../../../commands/agents/start-turn';
import { Conflict, NotFound } from '../../../src/platform/domain-errors';
import { turnAggregate, type TurnEvent, type TurnOutcome } from '../../../streams/agents/turn';
import { given } from '../../support/given';

type Command = StartTurn | RecordTurnProgress | FinishTurn;
const decider = {
  ...turnAggregate,
  decide(command: Command, state: Parameters<typeof decideStartTurn>[1], now: Date): TurnEvent[] {
    switch (command.type) {
      case 'StartTurn':
        return decideStartTurn(command, state, now);
      case 'RecordTurnProgress':
        return decideRecordTurnProgress(command, state);
      case 'FinishTurn':
        return decideFinishTurn(command, state, now);
    }
  },
};

const now = new Date('2026-01-15T12:00:00Z');
const turn: StartTurn['turn'] = {
  executionId: 'e1',
  conversationId: 'c1',
  userId: 'u1',
  agentId: 'default',
  agentType: 'general',
  model: 'builtin/deterministic',
  fallbackModel: null,
  thinkingMode: 'adaptive',
  maxTokens: 1000,
  maxCostUsd: 1,
  userMessageId: 'm1',
  attachmentIds: [],
};
const started: TurnEvent = { type: 'TurnStarted', data: { ...turn, startedAt: now.toISOString() } };
const node: TurnEvent = {
  type: 'NodeCompleted',
  data: { node: 'system_prompt_node', status: 'ok', tokensUsed: 12, message: null, skillsLoaded: null, detail: null },
};
const outcome = (status: TurnOutcome['status'], extra: Partial<TurnOutcome> = {}): TurnOutcome => ({
  status,
  tokensUsed: 40,
  costUsd: 0,
  skillsInjected: [],
  thinkingMode: 'adaptive',
  referencedEntities: [],
  hitlApprovalId: null,
  hitlCheckpointType: null,
  error: null,
  ...extra,
});
const usage = {
  userId: 'u1',
  model: 'builtin/deterministic',
  inputTokens: 30,
  outputTokens: 10,
  tokensUsed: 40,
  costUsd: 0,
};
const usageEvent: TurnEvent = { type: 'UsageRecorded', data: { ...usage, day: '2026-01-15' } };

describe('agent turn decider', () => {
  it('starting a turn records TurnStarted with the time', () => {
    given(decider).when({ type: 'StartTurn', turn }).then([started]);
  });

  it('starting the same turn again for the same conversation and user is a no-op; another owner is a conflict', () => {
    given(decider, [started]).when({ type: 'StartTurn', turn }).thenNothing();
    given(decider, [started])
      .when({ type: 'StartTurn', turn: { ...turn, userId: 'u2' } })
      .thenThrows(Conflict);
  });

  it('progress is recorded while the turn runs, refused on an unknown or ended turn', () => {
    given(decider, [started])
      .when({ type: 'RecordTurnProgress', events: [node as any] })
      .then([node]);
    given(decider)
      .when({ type: 'RecordTurnProgress', events: [node as any] })
      .thenThrows(NotFound);
    const done: TurnEvent = {
      type: 'TurnCompleted',
      data: { outcome: outcome('completed'), finishedAt: now.toISOString() },
    };
    given(decider, [started, usageEvent, done])
      .when({ type: 'RecordTurnProgress', events: [node as any] })
      .thenThrows(Conflict, /already ended/);
  });

  it('finishing records usage (dated by UTC day) then exactly one terminal event chosen by the outcome', () => {
    const finishedAt = now.toISOString();
    given(decider, [started])
      .when({ type: 'FinishTurn', outcome: outcome('completed'), usage })
      .then([
        usageEvent,
        { type: 'TurnCompleted', data: { outcome: outcome('completed'), finishedAt, reservation: null } },
      ]);
    const paused = outcome('awaiting_hitl', { hitlApprovalId: 'a1', hitlCheckpointType: 'filing_submission' });
    given(decider, [started])
      .when({ type: 'FinishTurn', outcome: paused, usage })
      .then([
        usageEvent,
        {
          type: 'TurnPaused',
          data: {
            approvalId: 'a1',
            checkpointType: 'filing_submission',
            outcome: paused,
            finishedAt,
            reservation: null,
          },
        },
      ]);
    const failed = outcome('error', { error: 'token budget exceeded' });
    given(decider, [started])
      .when({ type: 'FinishTurn', outcome: failed, usage })
      .then([
        usageEvent,
        {
          type: 'TurnFailed',
          data: { error: 'token budget exceeded', outcome: failed, finishedAt, reservation: null },
        },
      ]);
  });

  it('given a turn that reserved on a day, then its end names that reservation (the settlement reads nothing back)', () => {
    const reservedOn: TurnEvent = {
      type: 'TurnStarted',
      data: { ...turn, budgetDay: '2026-01-15', startedAt: now.toISOString() },
    };
    given(decider, [reservedOn])
      .when({ type: 'FinishTurn', outcome: outcome('completed'), usage })
      .then([
        usageEvent,
        {
          type: 'TurnCompleted',
          data: {
            outcome: outcome('completed'),
            finishedAt: now.toISOString(),
            reservation: { userId: turn.userId, day: '2026-01-15' },
          },
        },
      ]);
  });

  it('a turn finishes once', () => {
    const done: TurnEvent = {
      type: 'TurnFailed',
      data: { error: 'x', outcome: outcome('error', { error: 'x' }), finishedAt: now.toISOString() },
    };
    given(decider, [started, usageEvent, done])
      .when({ type: 'FinishTurn', outcome: outcome('completed'), usage })
      .thenThrows(Conflict);
  });

  it('state tracks the nodes completed and the pause', () => {
    const paused: TurnEvent = {
      type: 'TurnPaused',
      data: {
        approvalId: 'a1',
        checkpointType: 'filing_submission',
        outcome: outcome('awaiting_hitl', { hitlApprovalId: 'a1', hitlCheckpointType: 'filing_submission' }),
        finishedAt: now.toISOString(),
      },
    };
    const { state } = given(decider, [started, node, node, usageEvent, paused]);
    expect(state).to.deep.include({
      status: 'awaiting_hitl',
      nodesCompleted: 2,
      lastNode: 'system_prompt_node',
      approvalId: 'a1',
    });
  });
});
