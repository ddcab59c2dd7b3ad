import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { loadAggregate } from '../../../src/platform/command-handling/multi-stream-command';
import type { Platform } from '../../../src/platform/platform';
import {
  committedTokens,
  dailyUsageAggregate,
  tenantUsageStream,
  usageDayOf,
  userUsageStream,
} from '../../../streams/agents/daily-usage';
import { type Session, signIn } from '../../support/auth';
import { eventually } from '../../support/eventually';
import type { HttpClient } from '../../support/http';
import { startSecondInstance, startTestPlatform, type TestPlatform } from '../../support/platform';
import { type ChatServer, startChatServer } from './chat-completions-server';

const MODEL = 'local/llama-3.1-8b-instruct';

/**
 * Turns start with one write that reserves the budget in the day's usage streams (taken in
 * turn by one process's writers, `exclusive`) and end with one write; two instances on one
 * database race on those streams only through the append's expected revision. Colleagues'
 * turns split across both must all run, be counted once and settle, and a cap must hold.
 */
describe('turns on two instances of one database', function () {
  this.timeout(180_000);
  let t: TestPlatform;
  let second: Platform;
  let secondApi: HttpClient;
  let chat: ChatServer;
  let tenantId: string;

  before(async function () {
    this.timeout(240_000);
    chat = await startChatServer();
    t = await startTestPlatform({ env: { LOCAL_LLM_BASE_URL: chat.baseUrl } });
    ({ platform: second, api: secondApi } = await startSecondInstance(t, { LOCAL_LLM_BASE_URL: chat.baseUrl }));
    tenantId = randomUUID();
  });
  after(async () => {
    await second?.stop();
    await t?.close();
    await chat?.close();
  });

  /** A turn on a new conversation, through either instance. */
  const execute = async (api: HttpClient, who: Session) => {
    const conversation = (await api.post('/conversations', { agent_id: 'compliance' }, who.headers)).body.id as string;
    return api.post(
      '/execute',
      { conversation_id: conversation, message: 'How are my wells?', model: MODEL, max_tokens: 1000 },
      who.headers,
    );
  };
  const day = () => usageDayOf(new Date());
  const usage = async (stream: string) => (await loadAggregate(t.deps.store, dailyUsageAggregate, stream)).state;

  it('16 turns of 4 colleagues split across both instances all run, each reserved once, and all settle', async () => {
    const users = await Promise.all(Array.from({ length: 4 }, () => signIn(t, { tenantId })));
    chat.fallback = () => ({ text: 'All wells reported.', usage: { prompt_tokens: 90, completion_tokens: 10 } });
    const answers = await Promise.all(
      users.flatMap((user) => Array.from({ length: 4 }, (_, i) => execute(i % 2 === 0 ? t.api : secondApi, user))),
    );
    expect(
      answers.map((a) => a.status),
      answers.map((a) => `${a.status} ${a.text.slice(0, 120)}`).join('\n'),
    ).to.deep.equal(answers.map(() => 200));
    const ids = answers.map((a) => a.body.execution_id as string);
    // The leader's settlement reactor settles every one of them, whichever instance ran it.
    const tenantDay = await eventually(async () => {
      const state = await usage(tenantUsageStream(tenantId, day()));
      return ids.every((id) => state.open[id] === undefined) ? state : null;
    }, 60_000);
    expect(tenantDay.settledTokens).to.equal(16 * 100);
    for (const user of users)
      expect(await usage(userUsageStream(tenantId, user.userId, day()))).to.include({
        settledTokens: 400,
        reservedTokens: 0,
      });
  });

  it("a cap of three turns' worth holds for 12 concurrent turns split across both instances", async () => {
    // A tenant neither instance has read settings of yet: without Redis an instance's settings
    // cache learns of another's change only when its entry expires (docs/settings.md).
    const capped = randomUUID();
    const capper = await signIn(t, { tenantId: capped, roles: ['admin'] });
    const user = await signIn(t, { tenantId: capped });
    expect(
      (await t.api.put(`/settings/user-overrides/${user.userId}`, { max_tokens_per_day: 3000 }, capper.headers)).status,
    ).to.equal(200);
    // Slow turns, so all 12 are in flight together and only the reservations can tell.
    chat.fallback = () => ({
      text: 'All wells reported.',
      delayMs: 1500,
      usage: { prompt_tokens: 900, completion_tokens: 100 },
    });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => execute(i % 2 === 0 ? t.api : secondApi, user)),
    );
    const ran = answers.filter((a) => a.status === 200);
    expect(ran.length, answers.map((a) => `${a.status} ${a.text.slice(0, 120)}`).join('\n')).to.equal(3);
    expect(answers.filter((a) => a.status === 429)).to.have.length(9);
    expect(committedTokens(await usage(userUsageStream(capped, user.userId, day())))).to.equal(3000);
  });
});
