import { expect } from 'chai';
import sinon from 'sinon';
import { randomUUID } from 'node:crypto';
import { budgetSettlementReactor } from '../../../commands/agents/budget-settlement';
import { runReaction, runReactionBatch } from '../../../src/platform/reactors/reaction';
import { reserveTurnBudget } from '../../../commands/agents/reserve-turn-budget';
import { settleTurnBudget } from '../../../commands/agents/settle-turn-budget';
import {
  committedTokens,
  dailyUsageAggregate,
  type DailyUsageState,
  tenantUsageStream,
  usageDayOf,
  userUsageStream,
} from '../../../streams/agents/daily-usage';
import { TERMINAL_TURN_EVENTS, turnAggregate } from '../../../streams/agents/turn';
import { invalidateTenantSettings } from '../../../src/contexts/settings/settings-cache';
import { loadAggregate } from '../../../src/platform/command-handling/multi-stream-command';
import { type Session, signIn } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { RateLimited } from '../../../src/platform/domain-errors';
import { type ChatServer, startChatServer } from './chat-completions-server';

const MODEL = 'local/llama-3.1-8b-instruct';

/**
 * Daily caps decided on the write side, over HTTP: turns reserve their
 * budget in the usage streams before they start, so concurrent turns see each other.
 */
describe('daily budgets under concurrency', function () {
  this.timeout(120_000);
  let t: TestPlatform;
  let chat: ChatServer;
  let tenantId: string;
  let admin: Session;

  before(async function () {
    this.timeout(180_000);
    chat = await startChatServer();
    t = await startTestPlatform({ env: { LOCAL_LLM_BASE_URL: chat.baseUrl, PROJECTION_WAIT_MS: '20000' } });
    tenantId = randomUUID();
    admin = await signIn(t, { tenantId, roles: ['admin'] });
    // The tests play the leader's settlement reaction themselves (`settle`), at the moment
    // they choose: a running reactor would settle a turn before the next request and free
    // its room earlier than the test expects.
    await t.deps.reactors.stop();
  });
  after(async () => {
    await t?.close();
    await chat?.close();
  });
  afterEach(() => sinon.restore());

  const newConversation = async (who: Session) =>
    (await t.api.post('/conversations', { agent_id: 'compliance' }, who.headers)).body.id as string;
  const execute = async (who: Session, body: Record<string, unknown> = {}) =>
    t.api.post(
      '/execute',
      {
        conversation_id: await newConversation(who),
        message: 'How are my wells?',
        model: MODEL,
        max_tokens: 1000,
        ...body,
      },
      who.headers,
    );
  const cappedUser = async (tokensPerDay: number) => {
    const user = await signIn(t, { tenantId });
    expect(
      (await t.api.put(`/settings/user-overrides/${user.userId}`, { max_tokens_per_day: tokensPerDay }, admin.headers))
        .status,
    ).to.equal(200);
    return user;
  };
  const usage = async (userId: string) =>
    (await loadAggregate(t.deps.store, dailyUsageAggregate, userUsageStream(tenantId, userId, usageDayOf(new Date()))))
      .state;
  /** What the reactor runner does on the leader: each turn's terminal event through the settlement reaction. */
  const settle = async (executionIds: string[]) => {
    for (const id of executionIds) {
      const events = await t.deps.store.readStream(turnAggregate.stream(tenantId, id));
      for (const e of events)
        if ((TERMINAL_TURN_EVENTS as readonly string[]).includes(e.type))
          await runReaction(budgetSettlementReactor, e, t.deps);
    }
  };

  it("a cap of three turns' worth and 12 concurrent turns: at most 3 run, the rest answer 429 before they begin", async () => {
    const user = await cappedUser(3000);
    // Every turn uses exactly its 1000-token reservation, slowly, so all 12 are in flight together.
    chat.fallback = () => ({
      text: 'All wells reported.',
      delayMs: 1500,
      usage: { prompt_tokens: 900, completion_tokens: 100 },
    });
    const answers = await Promise.all(Array.from({ length: 12 }, () => execute(user)));
    const ran = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    expect(ran.length, answers.map((a) => `${a.status} ${a.text.slice(0, 120)}`).join('\n')).to.equal(3);
    expect(refused).to.have.length(9);
    for (const r of refused) expect(r.body.detail).to.match(/your daily token cap is exhausted \(3000 of 3000\)/);
    expect(ran.map((a) => a.body.status)).to.deep.equal(['completed', 'completed', 'completed']);
    const state = await usage(user.userId);
    expect(Object.keys(state.open)).to.have.length(3);
    expect(committedTokens(state)).to.equal(3000);
    // Settled at what they used (1000 each), the day stays full: the next turn is refused too.
    await settle(ran.map((a) => a.body.execution_id));
    expect((await usage(user.userId)).settledTokens).to.equal(3000);
    expect((await execute(user)).status).to.equal(429);
  });

  it('settlement replaces a reservation by the usage: a turn that used little makes room; a settlement replayed counts once', async () => {
    const user = await cappedUser(2000);
    chat.fallback = () => ({ text: 'ok', usage: { prompt_tokens: 90, completion_tokens: 10 } });
    const first = await execute(user);
    const second = await execute(user);
    expect([first.status, second.status]).to.deep.equal([200, 200]);
    expect((await execute(user)).status, 'two reservations of 1000 fill the day').to.equal(429);
    await settle([first.body.execution_id, second.body.execution_id]);
    await settle([first.body.execution_id]);
    const state = await usage(user.userId);
    expect(state).to.include({ settledTokens: 200, reservedTokens: 0 });
    expect((await execute(user)).status).to.equal(200);
  });

  it('a turn whose provider reports no usage settles at its reservation, never 0', async () => {
    const user = await cappedUser(10_000);
    chat.fallback = () => ({ text: 'ok', usage: null });
    const turn = await execute(user);
    expect(turn.status).to.equal(200);
    expect(turn.body.tokens_used).to.equal(null);
    await settle([turn.body.execution_id]);
    expect((await usage(user.userId)).settledTokens).to.equal(1000);
  });

  it('a turn refused for a foreign attachment reserves nothing (the reservation, the message and the start are one write)', async () => {
    const user = await cappedUser(1000);
    const refused = await execute(user, { attachment_ids: [randomUUID()] });
    expect(refused.status).to.equal(422);
    expect(await usage(user.userId)).to.include({ reservedTokens: 0, settledTokens: 0 });
    chat.fallback = () => ({ text: 'ok' });
    expect((await execute(user)).status).to.equal(200);
  });

  it('caps never fail open: with settings unreadable, the caps from the log (then the last applied) still refuse', async () => {
    const user = await cappedUser(1000);
    chat.fallback = () => ({ text: 'ok', usage: { prompt_tokens: 900, completion_tokens: 100 } });
    expect((await execute(user)).status).to.equal(200);
    // A corrupt settings cache entry: the turn runs degraded on environment defaults (no daily caps)…
    await invalidateTenantSettings(t.deps, tenantId);
    const corrupt = sinon.stub(t.deps.cache, 'get').resolves({ corrupt: true } as never);
    const degraded = await execute(user);
    expect(corrupt.calledWith(`settings:${tenantId}`)).to.equal(true);
    expect(degraded.status, '…but the caps are read from the settings streams').to.equal(429);
    // …and with the settings streams unreadable too, the caps the usage streams applied last.
    const readStream = t.deps.store.readStream.bind(t.deps.store);
    const unreadable = sinon
      .stub(t.deps.store, 'readStream')
      .callsFake((stream: string, options?: any) =>
        stream.startsWith('settings.') ? Promise.reject(new Error('settings unreadable')) : readStream(stream, options),
      );
    const blind = await execute(user);
    expect(unreadable.args.some(([stream]) => String(stream).startsWith('settings.user-override-'))).to.equal(true);
    expect(blind.status).to.equal(429);
    expect(blind.body.detail).to.match(/your daily token cap is exhausted/);
    const tenantDay = (
      await loadAggregate(t.deps.store, dailyUsageAggregate, tenantUsageStream(tenantId, usageDayOf(new Date())))
    ).state;
    expect(tenantDay.lastCaps).to.deep.equal({ maxTokensPerDay: null, maxCostUsdPerDay: null });
  });
  it("colleagues' turns at the same moment all run: 16 concurrent turns of 4 users of one tenant, none answers 409, all settle", async () => {
    const users = await Promise.all(Array.from({ length: 4 }, () => signIn(t, { tenantId })));
    chat.fallback = () => ({ text: 'All wells reported.', usage: { prompt_tokens: 90, completion_tokens: 10 } });
    const answers = await Promise.all(users.flatMap((user) => Array.from({ length: 4 }, () => execute(user))));
    expect(
      answers.map((a) => a.status),
      answers.map((a) => `${a.status} ${a.text.slice(0, 120)}`).join('\n'),
    ).to.deep.equal(answers.map(() => 200));
    const ids = answers.map((a) => a.body.execution_id as string);
    // The settlement reactions of all of them at once, too: none is refused.
    await Promise.all(ids.map((id) => settle([id])));
    const tenantDay = (
      await loadAggregate(t.deps.store, dailyUsageAggregate, tenantUsageStream(tenantId, usageDayOf(new Date())))
    ).state;
    for (const id of ids) expect(tenantDay.open[id]).to.equal(undefined);
    for (const user of users) expect(await usage(user.userId)).to.include({ settledTokens: 400, reservedTokens: 0 });
  });

  it('a batch of finished turns of two users settles in one write; the same ends replayed in another batch settle nothing again', async () => {
    const users = await Promise.all(Array.from({ length: 2 }, () => signIn(t, { tenantId })));
    chat.fallback = () => ({ text: 'ok', usage: { prompt_tokens: 90, completion_tokens: 10 } });
    const answers = await Promise.all(users.flatMap((user) => Array.from({ length: 3 }, () => execute(user))));
    expect(answers.map((a) => a.status)).to.deep.equal(answers.map(() => 200));
    const ends = [];
    for (const answer of answers)
      ends.push(
        ...(await t.deps.store.readStream(turnAggregate.stream(tenantId, answer.body.execution_id))).filter((e) =>
          (TERMINAL_TURN_EVENTS as readonly string[]).includes(e.type),
        ),
      );
    const tenantStream = tenantUsageStream(tenantId, usageDayOf(new Date()));
    const before = (await t.deps.store.readStream(tenantStream)).length;
    await runReactionBatch(budgetSettlementReactor, ends, t.deps);
    const settledNow = (await t.deps.store.readStream(tenantStream)).slice(before);
    expect(settledNow.map((e) => e.type)).to.deep.equal(answers.map(() => 'UsageSettled'));
    expect(new Set(settledNow.map((e) => String(e.position.commit))).size, 'one write').to.equal(1);
    for (const user of users) expect(await usage(user.userId)).to.include({ settledTokens: 300, reservedTokens: 0 });
    await runReactionBatch(budgetSettlementReactor, ends.slice(2), t.deps);
    await settle([answers[0].body.execution_id]);
    expect((await t.deps.store.readStream(tenantStream)).length).to.equal(before + answers.length);
    for (const user of users) expect(await usage(user.userId)).to.include({ settledTokens: 300, reservedTokens: 0 });
  });

  it('60 reservations and their 60 settlements racing in one tenant all land, each counted once', async () => {
    const users = Array.from({ length: 6 }, () => randomUUID());
    const turns = Array.from({ length: 60 }, (_, i) => ({
      executionId: randomUUID(),
      userId: users[i % users.length],
    }));
    const context = { tenantId, actorId: 'bench' };
    const days = await Promise.all(
      turns.map((turn) =>
        reserveTurnBudget(t.deps, context, {
          type: 'ReserveTurnBudget',
          ...turn,
          tokens: 10,
          costUsd: 0,
          tenantCaps: { maxTokensPerDay: null, maxCostUsdPerDay: null },
          userCaps: null,
        }),
      ),
    );
    await Promise.all(
      turns.map((turn, i) =>
        settleTurnBudget(t.deps, context, {
          type: 'SettleTurnBudget',
          ...turn,
          day: days[i],
          tokensUsed: 7,
          costUsd: 0,
        }),
      ),
    );
    for (const userId of users)
      expect(await usage(userId)).to.deep.include({ settledTokens: 70, reservedTokens: 0, open: {} });
  });

  it('a reservation written by another replica is seen: the usage state read before is brought up to date from the stream', async () => {
    const userId = randomUUID();
    const context = { tenantId, actorId: 'test' };
    const caps = { maxTokensPerDay: 1000, maxCostUsdPerDay: null };
    const reserve = () =>
      reserveTurnBudget(t.deps, context, {
        type: 'ReserveTurnBudget',
        executionId: randomUUID(),
        userId,
        tokens: 500,
        costUsd: 0,
        tenantCaps: { maxTokensPerDay: null, maxCostUsdPerDay: null },
        userCaps: caps,
      });
    await reserve();
    // Another process reserves the rest of the user's day behind this one's back.
    const stream = userUsageStream(tenantId, userId, usageDayOf(new Date()));
    const before = (await t.deps.store.readStream(stream)).length;
    await t.deps.store.append(
      stream,
      [
        {
          id: randomUUID(),
          type: 'UsageReserved',
          data: {
            executionId: randomUUID(),
            userId,
            tokens: 500,
            costUsd: 0,
            caps,
            reservedAt: new Date().toISOString(),
          },
          metadata: { tenantId, actorId: 'replica', correlationId: 'replica', causationId: 'replica' },
        },
      ],
      { expectedRevision: BigInt(before - 1) },
    );
    const refused = await reserve().then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).to.be.instanceOf(RateLimited);
    const state: DailyUsageState = await usage(userId);
    expect(committedTokens(state)).to.equal(1000);
  });
});
