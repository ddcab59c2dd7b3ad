import { expect } from 'chai';
import type { Knex } from 'knex';
import type { RecordedEvent } from '../../../src/platform/eventstore/types';
import type { Database } from '../../../src/platform/infra/database';
import { AGENT_TABLES, agentsProjector } from '../../../projections/agents/agents-read-model';
import { dailyUsage } from '../../../queries/agents/usage';
import { effectiveSkills } from '../../../queries/agents/skills';
import { latestTurns } from '../../../queries/agents/turns';
import { skillAggregate } from '../../../streams/agents/skill';
import { turnAggregate, type TurnOutcome } from '../../../streams/agents/turn';
import { connectTestDatabase } from '../../support/database';

const TENANT = '11111111-1111-4111-8111-111111111111';
let commit = 0n;
const event = (stream: string, type: string, data: unknown, actorId = 'u1'): RecordedEvent =>
  ({
    id: `${++commit}`,
    stream,
    revision: 0n,
    position: { commit, prepare: 0n },
    type,
    data,
    metadata: { tenantId: TENANT, actorId, correlationId: 'c', causationId: 'c', signature: 's' },
    recordedAt: new Date(),
  }) as RecordedEvent;

const outcome = (status: TurnOutcome['status'], extra: Partial<TurnOutcome> = {}): TurnOutcome => ({
  status,
  tokensUsed: 100,
  costUsd: 0.5,
  skillsInjected: [],
  thinkingMode: 'adaptive',
  referencedEntities: [],
  hitlApprovalId: null,
  hitlCheckpointType: null,
  error: null,
  ...extra,
});

function turn(
  executionId: string,
  conversationId: string,
  userId: string,
  end: { type: string; data: unknown } | null,
  usage?: { tokensUsed: number | null; costUsd: number | null },
): RecordedEvent[] {
  const stream = turnAggregate.stream(TENANT, executionId);
  const events = [
    event(stream, 'TurnStarted', {
      executionId,
      conversationId,
      userId,
      agentId: 'a',
      agentType: 'general',
      model: 'builtin/deterministic',
      fallbackModel: null,
      thinkingMode: 'adaptive',
      maxTokens: null,
      maxCostUsd: null,
      userMessageId: 'm',
      attachmentIds: [],
      startedAt: '2026-01-15T10:00:00.000Z',
    }),
  ];
  if (usage)
    events.push(
      event(stream, 'UsageRecorded', {
        userId,
        day: '2026-01-15',
        model: 'builtin/deterministic',
        inputTokens: null,
        outputTokens: null,
        ...usage,
      }),
    );
  if (end) events.push(event(stream, end.type, end.data));
  return events;
}

/** Projection spec: given events → rows, through the projector's own tables. */
describe('agents read model', () => {
  let db: Database;
  let knex: Knex;
  const given = async (events: RecordedEvent[]) =>
    knex.transaction(async (trx) => {
      for (const e of events) await agentsProjector.apply(trx, e);
    });

  before(async () => {
    db = await connectTestDatabase(2);
    knex = db.knex;
    await agentsProjector.createTables(knex);
  });
  after(() => db.close());

  it('a turn is a row from TurnStarted to its end; the latest turn of a conversation comes first', async () => {
    await given([
      ...turn(
        'e1',
        'c1',
        'u1',
        {
          type: 'TurnPaused',
          data: {
            approvalId: 'ap1',
            checkpointType: 'filing_submission',
            outcome: outcome('awaiting_hitl', { hitlApprovalId: 'ap1', hitlCheckpointType: 'filing_submission' }),
            finishedAt: '2026-01-15T10:00:01.000Z',
          },
        },
        { tokensUsed: 100, costUsd: 0.5 },
      ),
      ...turn('e2', 'c1', 'u1', null),
    ]);
    const rows = await latestTurns(knex, TENANT, 'c1', 5);
    expect(rows.map((r) => [r.execution_id, r.status, r.approval_id])).to.deep.equal([
      ['e2', 'running', null],
      ['e1', 'awaiting_hitl', 'ap1'],
    ]);
  });

  it('usage adds up per tenant and user and day; unknown usage counts the turn but no tokens', async () => {
    await given([
      ...turn(
        'e3',
        'c2',
        'u2',
        { type: 'TurnCompleted', data: { outcome: outcome('completed'), finishedAt: '2026-01-15T10:00:02.000Z' } },
        { tokensUsed: 40, costUsd: 0.25 },
      ),
      ...turn(
        'e4',
        'c2',
        'u2',
        {
          type: 'TurnCompleted',
          data: {
            outcome: outcome('completed', { tokensUsed: null, costUsd: null }),
            finishedAt: '2026-01-15T10:00:02.000Z',
          },
        },
        { tokensUsed: null, costUsd: null },
      ),
    ]);
    const usage = await dailyUsage(knex, TENANT, 'u2', '2026-01-15');
    expect(usage.user).to.deep.equal({ tokensUsed: 40, costUsd: 0.25 });
    expect(usage.tenant).to.deep.equal({ tokensUsed: 140, costUsd: 0.75 });
    const row = await knex(AGENT_TABLES.usage).where({ tenant_id: TENANT, user_id: 'u2' }).first();
    expect(row).to.include({ turns: 2, unknown_usage_turns: 1 });
  });

  it('tenant skills override built-in ones by key; a retired key hides the built-in one', async () => {
    await given([
      event(skillAggregate.stream(TENANT, 'spills'), 'SkillDefined', {
        key: 'spills',
        name: 'Spills',
        description: '',
        triggerWords: ['spill'],
        instructions: 'x',
        version: 1,
        definedBy: 'u1',
        definedAt: '2026-01-15T10:00:00.000Z',
      }),
      event(skillAggregate.stream(TENANT, 'well_testing'), 'SkillRetired', {
        key: 'well_testing',
        retiredBy: 'u1',
        retiredAt: '2026-01-15T10:00:00.000Z',
      }),
    ]);
    const keys = (await effectiveSkills(knex, TENANT)).map((s) => `${s.key}${s.builtIn ? '*' : ''}`);
    expect(keys).to.deep.equal(['flaring_authorization*', 'production_reporting*', 'spills']);
  });
});
