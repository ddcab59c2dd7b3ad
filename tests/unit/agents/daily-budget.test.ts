import { expect } from 'chai';
import { settlementOf } from '../../../commands/agents/budget-settlement';
import {
  decideReserveTurnBudget,
  type ReserveTurnBudget,
  turnReservation,
} from '../../../commands/agents/reserve-turn-budget';
import {
  decideSettleTurnBudget,
  decideSettleTurnBudgets,
  type SettleTurnBudget,
} from '../../../commands/agents/settle-turn-budget';
import { RateLimited, Unavailable } from '../../../src/platform/domain-errors';
import {
  committedTokens,
  type DailyCaps,
  dailyUsageAggregate,
  type DailyUsageEvent,
} from '../../../streams/agents/daily-usage';
import { turnAggregate, type TurnOutcome } from '../../../streams/agents/turn';
import { reactionSpec } from '../../support/reaction-spec';

const NOW = new Date('2026-01-15T12:00:00.000Z');
const at = NOW.toISOString();
const CAPS: DailyCaps = { maxTokensPerDay: 3000, maxCostUsdPerDay: null };
const NONE: DailyCaps = { maxTokensPerDay: null, maxCostUsdPerDay: null };
const fold = (events: DailyUsageEvent[]) => events.reduce(dailyUsageAggregate.evolve, dailyUsageAggregate.initialState);
const reserved = (executionId: string, tokens = 1000, caps: DailyCaps = CAPS, costUsd = 0): DailyUsageEvent => ({
  type: 'UsageReserved',
  data: { executionId, userId: 'u1', tokens, costUsd, caps, reservedAt: at },
});
const settled = (executionId: string, tokens: number, reservedTokens = 1000): DailyUsageEvent => ({
  type: 'UsageSettled',
  data: {
    executionId,
    userId: 'u1',
    tokens,
    costUsd: 0,
    reservedTokens,
    reservedCostUsd: 0,
    basis: 'reported',
    settledAt: at,
  },
});
const reserve = (executionId: string, over: Partial<ReserveTurnBudget> = {}): ReserveTurnBudget => ({
  type: 'ReserveTurnBudget',
  executionId,
  userId: 'u1',
  tokens: 1000,
  costUsd: 0,
  tenantCaps: NONE,
  userCaps: CAPS,
  ...over,
});

/** Given the tenant's and the user's usage of the day, when a turn reserves, then these events (or this refusal). */
function given(tenant: DailyUsageEvent[], user: DailyUsageEvent[]) {
  return {
    when: (command: ReserveTurnBudget) => ({
      then: (expected: { tenant: DailyUsageEvent[]; user: DailyUsageEvent[] }) =>
        expect(decideReserveTurnBudget(command, fold(tenant), fold(user), NOW)).to.deep.equal(expected),
      thenThrows: (type: new (...a: any[]) => Error, message: RegExp) =>
        expect(() => decideReserveTurnBudget(command, fold(tenant), fold(user), NOW)).to.throw(type, message),
    }),
  };
}

describe('daily budget: reservations', () => {
  it("a turn reserves its budget in the tenant's and the user's stream, recording the caps applied", () => {
    given([], [])
      .when(reserve('e1'))
      .then({ tenant: [reserved('e1', 1000, NONE)], user: [reserved('e1')] });
  });

  it("reservations count before any turn ends: with a cap of three turns' worth the fourth is refused (429)", () => {
    const three = [reserved('e1'), reserved('e2'), reserved('e3')];
    given([], three)
      .when(reserve('e4'))
      .thenThrows(RateLimited, /your daily token cap is exhausted \(3000 of 3000\)/);
  });

  it('the one in-flight overshoot: a turn is admitted while committed usage is below the cap, even if its reservation crosses it', () => {
    given([], [reserved('e1'), reserved('e2')])
      .when(reserve('e3', { tokens: 5000 }))
      .then({ tenant: [reserved('e3', 5000, NONE)], user: [reserved('e3', 5000)] });
    given([], [reserved('e1'), reserved('e2'), reserved('e3', 5000)])
      .when(reserve('e4'))
      .thenThrows(RateLimited, /7000 of 3000/);
  });

  it('settled usage replaces the reservation: a turn that used little makes room', () => {
    given([], [reserved('e1'), reserved('e2'), reserved('e3'), settled('e1', 200)])
      .when(reserve('e4'))
      .then({ tenant: [reserved('e4', 1000, NONE)], user: [reserved('e4')] });
  });

  it('the tenant cap is the aggregate ceiling over its users', () => {
    given([reserved('x1', 2000, { maxTokensPerDay: 2000, maxCostUsdPerDay: null })], [])
      .when(reserve('e1', { tenantCaps: { maxTokensPerDay: 2000, maxCostUsdPerDay: null }, userCaps: null }))
      .thenThrows(RateLimited, /daily token cap of the tenant exhausted/);
  });

  it('a cost cap refuses the same way', () => {
    const costCaps = { maxTokensPerDay: null, maxCostUsdPerDay: 1 };
    given([], [reserved('e1', 10, costCaps, 1)])
      .when(reserve('e2', { userCaps: costCaps, costUsd: 0.5 }))
      .thenThrows(RateLimited, /your daily cost cap is exhausted \(\$1\.0000 of \$1\)/);
  });

  it('caps never fail open: unreadable settings apply the caps the streams applied last', () => {
    const tenantDay = [reserved('e1', 1000, NONE), reserved('e2', 1000, NONE), reserved('e3', 1000, NONE)];
    given(tenantDay, [reserved('e1'), reserved('e2'), reserved('e3')])
      .when(reserve('e4', { tenantCaps: 'last-known', userCaps: 'last-known' }))
      .thenThrows(RateLimited, /your daily token cap is exhausted \(3000 of 3000\)/);
    given([], [])
      .when(reserve('e1', { tenantCaps: 'last-known', userCaps: 'last-known' }))
      .thenThrows(Unavailable, /no tenant daily cap is known/);
  });

  it('a retried reservation of the same turn appends nothing', () => {
    given([reserved('e1', 1000, NONE)], [reserved('e1')])
      .when(reserve('e1'))
      .then({ tenant: [], user: [] });
  });

  it('a turn reserves its per-turn ceilings, or an estimate from its prompt without them', () => {
    expect(
      turnReservation({ model: 'builtin/compliance', maxTokensPerExecution: 4000, maxCostUsdPerExecution: 0.5 }, 20),
    ).to.deep.equal({ tokens: 4000, costUsd: 0.5 });
    expect(
      turnReservation({ model: 'builtin/compliance', maxTokensPerExecution: null, maxCostUsdPerExecution: null }, 20),
    ).to.deep.equal({ tokens: 1040, costUsd: 0 });
  });
});

describe('daily budget: settlement', () => {
  const settle = (over: Partial<SettleTurnBudget> = {}): SettleTurnBudget => ({
    type: 'SettleTurnBudget',
    executionId: 'e1',
    userId: 'u1',
    day: '2026-01-15',
    tokensUsed: 250,
    costUsd: 0.01,
    ...over,
  });
  const settledAs = (
    tokens: number,
    costUsd: number,
    basis: 'reported' | 'reservation' | 'released',
  ): DailyUsageEvent => ({
    type: 'UsageSettled',
    data: {
      executionId: 'e1',
      userId: 'u1',
      tokens,
      costUsd,
      reservedTokens: 1000,
      reservedCostUsd: 0.5,
      basis,
      settledAt: at,
    },
  });
  const open = fold([reserved('e1', 1000, CAPS, 0.5)]);

  it('a finished turn settles what it used', () => {
    expect(decideSettleTurnBudget(settle(), open, NOW)).to.deep.equal([settledAs(250, 0.01, 'reported')]);
    expect(committedTokens(fold([reserved('e1', 1000, CAPS, 0.5), settledAs(250, 0.01, 'reported')]))).to.equal(250);
  });

  it('a turn whose usage is unknown settles at its reservation, never 0', () => {
    expect(decideSettleTurnBudget(settle({ tokensUsed: null, costUsd: null }), open, NOW)).to.deep.equal([
      settledAs(1000, 0.5, 'reservation'),
    ]);
    expect(decideSettleTurnBudget(settle({ costUsd: null }), open, NOW)).to.deep.equal([
      settledAs(250, 0.5, 'reservation'),
    ]);
  });

  it('a turn settles once; a turn that reserved nothing settles nothing', () => {
    expect(
      decideSettleTurnBudget(settle(), fold([reserved('e1', 1000, CAPS, 0.5), settledAs(250, 0.01, 'reported')]), NOW),
    ).to.deep.equal([]);
    expect(decideSettleTurnBudget(settle(), fold([]), NOW)).to.deep.equal([]);
  });

  it('given three open turns, when a batch settles two of them, one settled already and one twice, then each open one settles once, in order', () => {
    const state = fold([
      reserved('e1', 1000, CAPS, 0.5),
      reserved('e2', 1000, CAPS, 0.5),
      reserved('e3', 1000, CAPS, 0.5),
      { ...settledAs(250, 0.01, 'reported') },
    ]);
    const events = decideSettleTurnBudgets(
      {
        type: 'SettleTurnBudgets',
        settlements: [
          settle({ executionId: 'e3' }),
          settle(),
          settle({ executionId: 'e2', tokensUsed: null, costUsd: null }),
          settle({ executionId: 'e3' }),
        ],
      },
      state,
      NOW,
    );
    expect(
      events.map((e) => [
        e.data.executionId,
        (e.data as { tokens: number }).tokens,
        (e.data as { basis: string }).basis,
      ]),
    ).to.deep.equal([
      ['e3', 250, 'reported'],
      ['e2', 1000, 'reservation'],
    ]);
    expect(
      fold([
        reserved('e1', 1000, CAPS, 0.5),
        reserved('e2', 1000, CAPS, 0.5),
        reserved('e3', 1000, CAPS, 0.5),
        settledAs(250, 0.01, 'reported'),
        ...events,
      ]).open,
    ).to.deep.equal({});
  });
});

describe('agents.budget-settlement reaction', () => {
  const stream = turnAggregate.stream('t1', 'e1');
  const outcome = (status: TurnOutcome['status'], tokensUsed: number | null, costUsd: number | null): TurnOutcome => ({
    status,
    tokensUsed,
    costUsd,
    skillsInjected: [],
    thinkingMode: 'adaptive',
    referencedEntities: [],
    hitlApprovalId: null,
    hitlCheckpointType: null,
    error: null,
  });

  it('a completed turn settles the usage its outcome reports', () => {
    reactionSpec(settlementOf)
      .given({ stream, type: 'TurnCompleted', data: { outcome: outcome('completed', 420, 0.002), finishedAt: at } })
      .then({ executionId: 'e1', tokensUsed: 420, costUsd: 0.002 });
  });

  it('a failed turn with unknown usage settles as unknown (then at its reservation)', () => {
    reactionSpec(settlementOf)
      .given({
        stream,
        type: 'TurnFailed',
        data: { error: 'deadline', outcome: outcome('error', null, null), finishedAt: at },
      })
      .then({ executionId: 'e1', tokensUsed: null, costUsd: null });
  });

  it('a paused turn settles too: its budget is spent until the reviewer decides', () => {
    reactionSpec(settlementOf)
      .given({
        stream,
        type: 'TurnPaused',
        data: {
          approvalId: 'a1',
          checkpointType: 'filing_review',
          outcome: { ...outcome('awaiting_hitl', 90, 0), hitlApprovalId: 'a1', hitlCheckpointType: 'filing_review' },
          finishedAt: at,
        },
      })
      .then({ executionId: 'e1', tokensUsed: 90, costUsd: 0 });
  });

  it('an end that names its reservation settles it as named (no read of the turn start); one that names none settles nothing', () => {
    const reservation = { userId: 'u1', day: '2026-01-15' };
    reactionSpec(settlementOf)
      .given({
        stream,
        type: 'TurnCompleted',
        data: { outcome: outcome('completed', 420, 0.002), finishedAt: at, reservation },
      })
      .then({ executionId: 'e1', tokensUsed: 420, costUsd: 0.002, reservation });
    reactionSpec(settlementOf)
      .given({
        stream,
        type: 'TurnCompleted',
        data: { outcome: outcome('completed', 420, 0.002), finishedAt: at, reservation: null },
      })
      .then({ executionId: 'e1', tokensUsed: 420, costUsd: 0.002, reservation: null });
  });

  it('progress events settle nothing', () => {
    reactionSpec(settlementOf)
      .given({ stream, type: 'ToolCalled', data: { toolCallId: 'c1', toolName: 'graph_context', args: {} } })
      .thenNothing();
  });
});
