import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { type Session, signIn } from '../../support/auth';
import { eventually } from '../../support/eventually';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { type ChatServer, startChatServer } from '../agents/chat-completions-server';

const MODEL = 'local/llama-3.1-8b-instruct';

/** The value of the first sample of `name` whose labels include `labels` (null: none). */
function sample(text: string, name: string, labels: Record<string, string>): number | null {
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : null;
}

/** The product's own metrics, moved by the product's own requests: a turn, its spend, an assessment. */
describe('product metrics through the real platform', function () {
  this.timeout(120_000);
  let t: TestPlatform;
  let chat: ChatServer;
  let admin: Session;
  const tenantId = randomUUID();

  before(async function () {
    this.timeout(180_000);
    chat = await startChatServer();
    t = await startTestPlatform({ env: { LOCAL_LLM_BASE_URL: chat.baseUrl } });
    admin = await signIn(t, { tenantId, roles: ['admin'] });
  });
  after(async () => {
    await t?.close();
    await chat?.close();
  });

  const scrape = async () => (await fetch(`${t.internalUrl}/metrics`)).text();

  it('a compliance assessment is timed by scope and status', async () => {
    expect((await t.api.post('/compliance/assess', {}, admin.headers)).status).to.equal(200);
    const text = await scrape();
    expect(sample(text, 'compliance_run_duration_seconds_count', { scope: 'portfolio', status: 'complete' })).to.equal(
      1,
    );
    expect(sample(text, 'compliance_entities_assessed_total', { scope: 'portfolio' })).to.be.a('number');
  });

  it("an agent turn counts by status and tenant, its tokens by model and provider, and its share of the tenant's daily cap", async () => {
    expect((await t.api.put('/settings', { max_tokens_per_day: 1_000_000 }, admin.headers)).status).to.equal(200);
    const conversation = (await t.api.post('/conversations', { agent_id: 'compliance' }, admin.headers)).body.id;
    const turn = await t.api.post(
      '/execute',
      { conversation_id: conversation, message: 'hello', model: MODEL, max_tokens: 1000 },
      admin.headers,
    );
    expect(turn.status).to.equal(200);
    const text = await scrape();
    expect(sample(text, 'agent_turns_total', { status: 'completed', tenant: tenantId })).to.equal(1);
    const tokens = { model: MODEL, provider: 'local', tenant: tenantId };
    expect(sample(text, 'model_tokens_total', { ...tokens, direction: 'input' })).to.be.greaterThan(0);
    expect(sample(text, 'model_tokens_total', { ...tokens, direction: 'output' })).to.be.greaterThan(0);
    const share = await eventually(async () =>
      sample(await scrape(), 'tenant_daily_budget_used_ratio', { tenant: tenantId, cap: 'tokens' }),
    );
    expect(share).to.be.greaterThan(0).and.lessThan(0.01);
  });
});
