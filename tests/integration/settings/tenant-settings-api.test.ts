import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { settingsCacheKey } from '../../../src/contexts/settings/settings-cache';
import { tenantSettingsStream } from '../../../streams/settings/tenant-settings';
import { signIn, type Session } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

/** Tenant settings: GET/PUT /settings and the model list. */
describe('tenant settings API', () => {
  let t: TestPlatform;

  before(async () => {
    t = await startTestPlatform({
      env: {
        DEFAULT_LLM_MODEL: 'builtin/deterministic-fast',
        DEFAULT_MAX_TOKENS_PER_EXECUTION: '12345',
        DEFAULT_MAX_COST_PER_EXECUTION: '0.75',
        DEFAULT_THINKING_MODE: 'disabled',
      },
    });
  });
  after(() => t.close());

  async function tenant(): Promise<{ admin: Session; member: Session; tenantId: string }> {
    const tenantId = randomUUID();
    return {
      tenantId,
      admin: await signIn(t, { roles: ['admin'], tenantId }),
      member: await signIn(t, { roles: ['operator'], tenantId }),
    };
  }

  const streamLength = async (tenantId: string) =>
    (await t.deps.store.readStream(tenantSettingsStream(tenantId))).length;

  it('a tenant that never wrote settings inherits every environment default', async () => {
    const { member, tenantId } = await tenant();
    const response = await t.api.get('/settings', member.headers);
    expect(response.status).to.equal(200);
    expect(response.body).to.deep.equal({
      tenant_id: tenantId,
      settings: {
        default_model: null,
        fallback_model: null,
        max_tokens_per_execution: null,
        max_cost_usd_per_execution: null,
        max_tokens_per_day: null,
        max_cost_usd_per_day: null,
        max_thinking_mode: null,
        updated_by: null,
        updated_at: null,
      },
      effective: {
        default_model: 'builtin/deterministic-fast',
        fallback_model: null,
        max_tokens_per_execution: 12345,
        max_cost_usd_per_execution: 0.75,
        max_tokens_per_day: null,
        max_cost_usd_per_day: null,
        max_thinking_mode: 'disabled',
      },
      sources: {
        default_model: 'default',
        fallback_model: 'default',
        max_tokens_per_execution: 'default',
        max_cost_usd_per_execution: 'default',
        max_tokens_per_day: 'default',
        max_cost_usd_per_day: 'default',
        max_thinking_mode: 'default',
      },
      user_override: null,
    });
  });

  it('GET /settings without a session is refused by the gateway', async () => {
    const response = await t.api.get('/settings');
    expect(response.status).to.equal(401);
    expect(response.body).to.have.property('error');
  });

  it('an admin PUT stores the values; every member then sees them as effective, sourced from the tenant', async () => {
    const { admin, member } = await tenant();
    const put = await t.api.put(
      '/settings',
      {
        default_model: 'anthropic/claude-sonnet-4-5',
        fallback_model: 'openai/gpt-4.1-mini',
        max_tokens_per_day: 2_000_000,
        max_cost_usd_per_day: 150.5,
        max_thinking_mode: 'adaptive',
      },
      admin.headers,
    );
    expect(put.status).to.equal(200);
    expect(put.body.settings).to.include({
      default_model: 'anthropic/claude-sonnet-4-5',
      fallback_model: 'openai/gpt-4.1-mini',
      max_tokens_per_day: 2_000_000,
      max_cost_usd_per_day: 150.5,
      updated_by: admin.userId,
    });
    expect(new Date(put.body.settings.updated_at).toISOString()).to.equal(put.body.settings.updated_at);
    const read = await t.api.get('/settings', member.headers);
    expect(read.body).to.deep.equal({ ...put.body, user_override: null });
    expect(read.body.effective).to.include({
      default_model: 'anthropic/claude-sonnet-4-5',
      max_tokens_per_execution: 12345,
      max_thinking_mode: 'adaptive',
    });
    expect(read.body.sources).to.include({
      default_model: 'tenant',
      fallback_model: 'tenant',
      max_tokens_per_day: 'tenant',
      max_tokens_per_execution: 'default',
    });
  });

  it('absent fields are left alone and null clears a field back to the default', async () => {
    const { admin } = await tenant();
    await t.api.put('/settings', { default_model: 'openai/gpt-4o', max_tokens_per_execution: 4000 }, admin.headers);
    const cleared = await t.api.put('/settings', { default_model: null }, admin.headers);
    expect(cleared.status).to.equal(200);
    expect(cleared.body.settings).to.include({ default_model: null, max_tokens_per_execution: 4000 });
    expect(cleared.body.effective).to.include({
      default_model: 'builtin/deterministic-fast',
      max_tokens_per_execution: 4000,
    });
    expect(cleared.body.sources).to.include({ default_model: 'default', max_tokens_per_execution: 'tenant' });
  });

  it('a write is visible on the next GET although the previous read was cached', async () => {
    const { admin, member, tenantId } = await tenant();
    await t.api.get('/settings', member.headers);
    const cachedBefore = await t.deps.cache.get<{ stored: { values: { maxCostUsdPerDay: number | null } } }>(
      settingsCacheKey(tenantId),
    );
    expect(cachedBefore?.stored.values.maxCostUsdPerDay).to.equal(null);
    await t.api.put('/settings', { max_cost_usd_per_day: 12 }, admin.headers);
    const read = await t.api.get('/settings', member.headers);
    expect(read.body.settings.max_cost_usd_per_day).to.equal(12);
    const cachedAfter = await t.deps.cache.get<{ stored: { values: { maxCostUsdPerDay: number | null } } }>(
      settingsCacheKey(tenantId),
    );
    expect(cachedAfter?.stored.values.maxCostUsdPerDay).to.equal(12);
  });

  it('reads are served from the cache under settings:{tenant_id}', async () => {
    const { member, tenantId } = await tenant();
    await t.api.get('/settings', member.headers);
    const key = settingsCacheKey(tenantId);
    const cached = await t.deps.cache.get<Record<string, unknown>>(key);
    expect(cached).to.include({ tenantId });
    // Planting a different value proves the next GET reads the entry, not the database.
    await t.deps.cache.set(
      key,
      {
        ...cached,
        stored: {
          ...(cached!.stored as object),
          values: { ...(cached!.stored as { values: object }).values, maxTokensPerDay: 777 },
        },
      },
      300,
    );
    expect((await t.api.get('/settings', member.headers)).body.settings.max_tokens_per_day).to.equal(777);
    await t.deps.cache.delete(key);
    expect((await t.api.get('/settings', member.headers)).body.settings.max_tokens_per_day).to.equal(null);
  });

  it('a non-admin PUT answers 403 with the backend permission body and changes nothing', async () => {
    const { member, tenantId } = await tenant();
    const response = await t.api.put('/settings', { max_tokens_per_day: 1 }, member.headers);
    expect(response.status).to.equal(403);
    expect(response.body).to.deep.equal({ detail: 'Insufficient permissions' });
    expect(await streamLength(tenantId)).to.equal(0);
  });

  it('a model id not in /settings/model-options is refused with 422 naming the field, and nothing is stored', async () => {
    const { admin, tenantId } = await tenant();
    for (const [field, value] of [
      ['default_model', 'gpt-4o'],
      ['fallback_model', 'a really good model please'],
    ]) {
      const response = await t.api.put('/settings', { max_tokens_per_day: 10, [field]: value }, admin.headers);
      expect(response.status).to.equal(422);
      expect(response.body.detail).to.have.length(1);
      expect(response.body.detail[0]).to.deep.include({ loc: ['body', field], type: 'unknown_model' });
    }
    expect(await streamLength(tenantId)).to.equal(0);
  });

  it('bad values and unknown fields answer 422 in the spec shape', async () => {
    const { admin } = await tenant();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ max_tokens_per_execution: 0 }, 'max_tokens_per_execution'],
      [{ max_cost_usd_per_execution: -1 }, 'max_cost_usd_per_execution'],
      [{ max_tokens_per_day: 10.5 }, 'max_tokens_per_day'],
      [{ max_cost_usd_per_day: 'lots' }, 'max_cost_usd_per_day'],
      [{ max_thinking_mode: 'extended' }, 'max_thinking_mode'],
      [{ default_modle: 'openai/gpt-4o' }, 'default_modle'],
    ];
    for (const [body, field] of cases) {
      const response = await t.api.put('/settings', body, admin.headers);
      expect(response.status, JSON.stringify(body)).to.equal(422);
      expect(response.body.detail[0].loc).to.deep.equal(['body', field]);
      expect(response.body.detail[0]).to.have.keys('loc', 'msg', 'type');
    }
  });

  it("one tenant never sees another tenant's settings", async () => {
    const a = await tenant();
    const b = await tenant();
    await t.api.put('/settings', { default_model: 'openai/o3-mini' }, a.admin.headers);
    const other = await t.api.get('/settings', b.member.headers);
    expect(other.body.tenant_id).to.equal(b.tenantId);
    expect(other.body.settings.default_model).to.equal(null);
  });

  it('writing the same values twice answers 200 and records one change', async () => {
    const { admin, tenantId } = await tenant();
    await t.api.put('/settings', { max_tokens_per_day: 5000 }, admin.headers);
    const again = await t.api.put('/settings', { max_tokens_per_day: 5000 }, admin.headers);
    expect(again.status).to.equal(200);
    expect(await streamLength(tenantId)).to.equal(1);
  });

  it('GET /settings/model-options lists the curated models to any signed-in user', async () => {
    const { member } = await tenant();
    const response = await t.api.get('/settings/model-options', member.headers);
    expect(response.status).to.equal(200);
    expect(response.body).to.be.an('array').that.is.not.empty;
    for (const option of response.body) {
      expect(option).to.have.keys('id', 'label', 'provider', 'context_window', 'notes');
      expect(option.id).to.match(/^[a-z]+\/[A-Za-z0-9.-]+$/);
    }
    expect(response.body.map((o: { id: string }) => o.id)).to.include.members([
      'builtin/deterministic',
      'openai/gpt-4o',
      'anthropic/claude-sonnet-4-5',
    ]);
    expect((await t.api.get('/settings/model-options')).status).to.equal(401);
  });

  it('every model option can be stored as default_model', async () => {
    const { admin, member } = await tenant();
    const options = (await t.api.get('/settings/model-options', member.headers)).body as Array<{ id: string }>;
    for (const { id } of options)
      expect((await t.api.put('/settings', { default_model: id }, admin.headers)).status, id).to.equal(200);
  });
});
