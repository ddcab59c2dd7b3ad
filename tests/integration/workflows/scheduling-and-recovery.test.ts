import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { dailyAssessmentMessage } from '../../../commands/compliance/daily-assessment';
import { decideStartTurn, startTurn } from '../../../commands/agents/start-turn';
import { decideFinishTurn } from '../../../commands/agents/finish-turn';
import { scheduleTurnDeadlineReactor } from '../../../commands/agents/turn-deadline';
import { runReaction } from '../../../src/platform/reactors/reaction';
import { DueMessageLane } from '../../../src/platform/scheduling/due-lane';
import {
  deadLetteredMessages,
  retryScheduled,
  scheduleMessage,
  SCHEDULE_TABLE,
} from '../../../src/platform/scheduling/schedule';
import { frameOf } from '../../../src/contexts/agents/turn-frames';
import { turnAggregate } from '../../../streams/agents/turn';
import { signIn } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { createWell } from '../checklists/graph-fixture';
import { eventually } from '../../support/eventually';

/** Scheduled messages on the leader, and work that survives a stop between steps. */
describe('scheduling and recovery', () => {
  describe('turn deadlines and the daily assessment', () => {
    let t: TestPlatform;
    before(async () => {
      t = await startTestPlatform({ env: { AGENT_TURN_TIMEOUT_MS: '1000', COMPLIANCE_ASSESS_AT: '02:00' } });
    });
    after(() => t.close());

    it('a turn still running past AGENT_TURN_TIMEOUT_MS is finished as error by the scheduler, with a terminal frame', async () => {
      const tenantId = randomUUID();
      const executionId = randomUUID();
      // A turn whose process died right after it started: nothing else will ever finish it.
      await startTurn(
        t.deps,
        { tenantId, actorId: 'u1' },
        {
          executionId,
          conversationId: randomUUID(),
          userId: 'u1',
          agentId: 'a',
          agentType: 'general',
          model: 'builtin/deterministic',
          fallbackModel: null,
          thinkingMode: 'standard',
          maxTokens: null,
          maxCostUsd: null,
          userMessageId: randomUUID(),
          attachmentIds: [],
        },
      );
      const failed = await eventually(async () => {
        const events = await t.deps.store.readStream(turnAggregate.stream(tenantId, executionId));
        return events.find((e) => e.type === 'TurnFailed') ?? null;
      }, 30_000);
      expect((failed.data as { error: string }).error).to.match(/deadline/);
      expect(frameOf(executionId, failed)).to.include({ event: 'error', terminal: true });
      const usage = (await t.deps.store.readStream(turnAggregate.stream(tenantId, executionId))).find(
        (e) => e.type === 'UsageRecorded',
      );
      expect(usage?.data).to.include({ tokensUsed: null, costUsd: null });
      // Fired once: the message is marked, and firing again appends nothing.
      await eventually(
        async () =>
          (await t.deps
            .knex(SCHEDULE_TABLE)
            .where({ tenant_id: tenantId, message_id: `turn-deadline-${executionId}` })
            .whereNotNull('fired_at')
            .first()) ?? null,
      );
      const fired = (
        await t.deps.store.readAll({ limit: 100_000, filter: { eventTypes: ['ScheduledMessageFired'] } })
      ).filter((e) => (e.data as { messageId: string }).messageId === `turn-deadline-${executionId}`);
      expect(fired).to.have.length(1);
      const ends = (await t.deps.store.readStream(turnAggregate.stream(tenantId, executionId))).filter(
        (e) => e.type === 'TurnFailed',
      );
      expect(ends).to.have.length(1);
    });

    it('a turn that ended before its TurnStarted reaction ran gets no deadline', async () => {
      const tenantId = randomUUID();
      const executionId = randomUUID();
      const now = new Date();
      const start = decideStartTurn(
        {
          type: 'StartTurn',
          turn: {
            executionId,
            conversationId: randomUUID(),
            userId: 'u1',
            agentId: 'a',
            agentType: 'general',
            model: 'builtin/deterministic',
            fallbackModel: null,
            thinkingMode: 'standard',
            maxTokens: null,
            maxCostUsd: null,
            userMessageId: randomUUID(),
            attachmentIds: [],
          },
        },
        turnAggregate.initialState,
        now,
      );
      const end = decideFinishTurn(
        {
          type: 'FinishTurn',
          outcome: {
            status: 'completed',
            tokensUsed: null,
            costUsd: null,
            skillsInjected: [],
            thinkingMode: 'standard',
            referencedEntities: [],
            hitlApprovalId: null,
            hitlCheckpointType: null,
            error: null,
          },
          usage: {
            userId: 'u1',
            model: 'builtin/deterministic',
            inputTokens: null,
            outputTokens: null,
            tokensUsed: null,
            costUsd: null,
          },
        },
        start.reduce(turnAggregate.evolve, turnAggregate.initialState),
        now,
      );
      // Started and ended in one write, so the platform's own reactor never sees it running either.
      const metadata = { tenantId, actorId: 'u1', correlationId: 'c', causationId: 'c' };
      await t.deps.store.append(
        turnAggregate.stream(tenantId, executionId),
        [...start, ...end].map((e) => ({ type: e.type, data: e.data, metadata })),
      );
      const [first] = await t.deps.store.readStream(turnAggregate.stream(tenantId, executionId), { limit: 1 });
      await runReaction(scheduleTurnDeadlineReactor, first, t.deps);
      expect(
        await t.deps
          .knex(SCHEDULE_TABLE)
          .where({ tenant_id: tenantId, message_id: `turn-deadline-${executionId}` })
          .first(),
      ).to.equal(undefined);
    });

    it('the next daily assessment is scheduled at COMPLIANCE_ASSESS_AT; when due, every tenant is assessed and the following one scheduled', async () => {
      const pending = await t.deps
        .knex(SCHEDULE_TABLE)
        .where({ handler: 'compliance.daily-assessment' })
        .whereNull('fired_at');
      expect(pending).to.have.length(1);
      expect(new Date(pending[0].due_at).toISOString()).to.match(/T02:00:00\.000Z$/);

      const tenantId = randomUUID();
      const admin = await signIn(t, { roles: ['admin'], tenantId });
      await createWell(t, admin);
      const due = new Date(Date.now() - 1000);
      await scheduleMessage(t.deps.handle, { tenantId: 'platform', actorId: 'test' }, dailyAssessmentMessage(due));
      await eventually(
        async () =>
          (await t.deps
            .knex(SCHEDULE_TABLE)
            .where({ message_id: dailyAssessmentMessage(due).messageId })
            .whereNotNull('fired_at')
            .first()) ?? null,
        30_000,
      );
      const matrix = await t.api.get('/compliance/matrix?page_size=200', admin.headers);
      expect(matrix.body.rows.length).to.be.greaterThan(0);
      expect(Object.values(matrix.body.rows[0].domains)).to.not.deep.equal(['grey', 'grey', 'grey', 'grey', 'grey']);
    });

    it('a message whose handler keeps failing is dead-lettered: it stops firing, /health says degraded, and a retry after the fix fires it once', async () => {
      const tenantId = randomUUID();
      const messageId = `flaky-${randomUUID()}`;
      let broken = true;
      const calls: string[] = [];
      // A lane of its own with a handler of the test's (the platform's lane does not know it and leaves it alone for a minute).
      const lane = new DueMessageLane({
        deps: () => t.deps,
        handlers: [
          {
            name: 'test.flaky',
            fire: async (m) => {
              calls.push(m.messageId);
              if (broken) throw new Error('the service it calls is down');
            },
          },
        ],
        leaderLock: { tryAcquire: async () => true, isHeld: () => true, release: async () => undefined },
        logger: t.deps.logger,
        deadLetterAfter: 2,
      });
      await scheduleMessage(
        t.deps.handle,
        { tenantId, actorId: 'test' },
        { messageId, dueAt: new Date(Date.now() - 1000).toISOString(), handler: 'test.flaky', payload: {} },
      );
      await lane.tick();
      expect(calls).to.have.length(1);
      await new Promise((r) => setTimeout(r, 1100)); // the first retry waits 1 s
      await lane.tick();
      expect(calls).to.have.length(2);
      const parked = (await deadLetteredMessages(t.deps.knex)).find((m) => m.messageId === messageId);
      expect(parked).to.include({ handler: 'test.flaky', attempts: 2, error: 'the service it calls is down' });
      const health = await (await fetch(`${t.publicUrl}/health`)).json();
      expect(health).to.include({ status: 'degraded' });
      expect(health.degraded_scheduled_handlers).to.deep.equal(['test.flaky']);
      // Parked: later ticks leave it alone.
      await lane.tick();
      expect(calls).to.have.length(2);

      broken = false;
      expect(await retryScheduled(t.deps.handle, { tenantId, actorId: 'ops' }, messageId)).to.equal(true);
      await lane.tick();
      expect(calls).to.have.length(3);
      const row = await t.deps.knex(SCHEDULE_TABLE).where({ tenant_id: tenantId, message_id: messageId }).first();
      expect(row.fired_at).to.not.equal(null);
      expect(row.dead_lettered_at).to.equal(null);
      expect((await (await fetch(`${t.publicUrl}/health`)).json()).degraded_scheduled_handlers).to.equal(undefined);
      await lane.stop();
    });

    it('the scheduler is a lane of the shared runtime: a lost lock stops it before the next message, and it fires again once it leads again', async () => {
      const tenantId = randomUUID();
      const fired: string[] = [];
      let held = true;
      const lost: Array<(reason: string) => void> = [];
      const lock = {
        tryAcquire: async () => held,
        isHeld: () => held,
        release: async () => undefined,
        onLost: (listener: (reason: string) => void) => void lost.push(listener),
      };
      const lane = new DueMessageLane({
        deps: () => t.deps,
        handlers: [{ name: 'test.fenced', fire: async (m) => void fired.push(m.messageId) }],
        leaderLock: lock,
        logger: t.deps.logger,
        tickMs: 100,
      });
      const due = async (messageId: string) =>
        scheduleMessage(
          t.deps.handle,
          { tenantId, actorId: 'test' },
          { messageId, dueAt: new Date(Date.now() - 1000).toISOString(), handler: 'test.fenced', payload: {} },
        );
      await lane.start();
      expect(lane.isLeader).to.equal(true);
      await due('first');
      await eventually(async () => fired.includes('first'), 5_000);
      // The probe found the lock gone: the runtime stops the lane at once.
      held = false;
      for (const listener of lost) listener('probe failed');
      expect(lane.isLeader).to.equal(false);
      await due('while-not-leading');
      await new Promise((r) => setTimeout(r, 500));
      expect(fired).to.deep.equal(['first']);
      // The lock is free again: the runtime's leadership timer takes it and the lane fires.
      held = true;
      await eventually(async () => fired.includes('while-not-leading'), 10_000);
      expect((await lane.lanesReport()).map((l) => l.kind)).to.deep.equal(['scheduler']);
      await lane.stop();
    });

    it('given a scheduler that would poll once a minute, a message scheduled now fires at once and one due shortly fires at its time: the lane rests until the next due time and wakes on the subscription every lane shares', async () => {
      const tenantId = randomUUID();
      const fired = new Map<string, number>();
      const lane = new DueMessageLane({
        deps: () => t.deps,
        handlers: [{ name: 'test.woken', fire: async (m) => void fired.set(m.messageId, Date.now()) }],
        leaderLock: { tryAcquire: async () => true, isHeld: () => true, release: async () => undefined },
        logger: t.deps.logger,
        tickMs: 60_000,
      });
      const schedule = (messageId: string, dueAt: Date) =>
        scheduleMessage(
          t.deps.handle,
          { tenantId, actorId: 'test' },
          { messageId, dueAt: dueAt.toISOString(), handler: 'test.woken', payload: {} },
        );
      await lane.start();
      await eventually(async () => (await lane.lanesReport())[0].subscribed === true, 5_000);
      await schedule('now', new Date(Date.now() - 1000));
      await eventually(async () => fired.has('now'), 5_000);
      const dueAt = new Date(Date.now() + 700);
      await schedule('soon', dueAt);
      await eventually(async () => fired.has('soon'), 5_000);
      expect(fired.get('soon')!).to.be.at.least(dueAt.getTime());
      await lane.stop();
    });

    it('fifty messages in backoff do not hold back another due message, and their attempts survive a change of leader', async () => {
      const tenantId = randomUUID();
      const fired: string[] = [];
      const lockOf = () => ({ tryAcquire: async () => true, isHeld: () => true, release: async () => undefined });
      const laneOf = () =>
        new DueMessageLane({
          deps: () => t.deps,
          handlers: [
            {
              name: 'test.down',
              fire: async () => {
                throw new Error('the service it calls is down');
              },
            },
            { name: 'test.fine', fire: async (m) => void fired.push(m.messageId) },
          ],
          leaderLock: lockOf(),
          logger: t.deps.logger,
          deadLetterAfter: 2,
        });
      const early = new Date(Date.now() - 60_000).toISOString();
      const failing = Array.from({ length: 50 }, (_, i) => `down-${i}-${randomUUID()}`);
      for (const messageId of failing)
        await scheduleMessage(
          t.deps.handle,
          { tenantId, actorId: 'test' },
          { messageId, dueAt: early, handler: 'test.down', payload: {} },
        );
      const first = laneOf();
      await first.tick();
      await first.stop();
      // Due after the fifty, which now wait in backoff.
      const fine = `fine-${randomUUID()}`;
      await scheduleMessage(
        t.deps.handle,
        { tenantId, actorId: 'test' },
        { messageId: fine, dueAt: new Date(Date.now() - 1000).toISOString(), handler: 'test.fine', payload: {} },
      );
      const second = laneOf();
      await second.tick();
      expect(fired).to.deep.equal([fine]);
      // The new leader goes on counting: one more failure each parks the fifty (deadLetterAfter 2).
      await new Promise((r) => setTimeout(r, 1100));
      await second.tick();
      const parked = (await deadLetteredMessages(t.deps.knex)).filter((m) => m.tenantId === tenantId);
      expect(parked.map((m) => m.messageId).sort()).to.deep.equal([...failing].sort());
      expect(parked.every((m) => m.attempts === 2)).to.equal(true);
      await second.stop();
    });
  });
  it('a submit whose reaction never ran (the platform stopped between the steps) opens its approval after a restart on the same database', async () => {
    const first = await startTestPlatform();
    const url = first.deps.config.databaseUrl!;
    const tenantId = randomUUID();
    const operator = await signIn(first, { roles: ['operator'], tenantId });
    const admin = await signIn(first, { roles: ['admin'], tenantId });
    const well = await createWell(first, admin);
    const created = (
      await first.api.post(
        '/checklists',
        { template_id: 'form_pr', entity_id: well.api, entity_type: 'well', domain: 'production' },
        operator.headers,
      )
    ).body;
    for (let i = 0; i < created.items.length; i++)
      await first.api.patch(`/checklists/${created.checklist_id}/items/${i}`, { status: 'complete' }, operator.headers);
    // The crash: the reactors stop before the submission reaches them.
    await first.deps.reactors.stop();
    const submitted = await first.api.post(`/checklists/${created.checklist_id}/submit`, {}, operator.headers);
    const approvalId = submitted.body.pending_approval_id;
    expect((await first.api.get(`/approvals/${approvalId}`, admin.headers)).status).to.equal(404);
    await first.close();

    const second = await startTestPlatform({ env: { DATABASE_URL: url } });
    try {
      const again = await signIn(second, { roles: ['reviewer'], tenantId });
      const approval = await eventually(async () => {
        const got = await second.api.get(`/approvals/${approvalId}`, again.headers);
        return got.status === 200 ? got.body : null;
      });
      expect(approval).to.include({ status: 'pending', checkpoint_type: 'filing_submission' });
      expect(approval.payload).to.include({ kind: 'filing', checklist_id: created.checklist_id });
    } finally {
      await second.close();
    }
  });
});
