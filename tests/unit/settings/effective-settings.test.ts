import { expect } from 'chai';
import pino from 'pino';
import sinon from 'sinon';
import { loadConfig } from '../../../src/platform/config';
import { ValidationFailed } from '../../../src/platform/domain-errors';
import { createMemoryCache } from '../../../src/platform/infra/cache';
import {
  effectiveTenantSettings,
  environmentDefaults,
  resolveEffectiveSettings,
  resolveTurnSettings,
} from '../../../src/contexts/settings/effective-settings';
import { INHERIT_ALL, type TenantSettingsValues } from '../../../streams/settings/fields';
import { MODEL_IDS, MODEL_OPTIONS } from '../../../src/platform/infra/llm/model-options';
import { settingsCacheKey } from '../../../src/contexts/settings/settings-cache';
import { clampThinkingMode } from '../../../src/platform/infra/llm/thinking-mode';

const config = loadConfig({
  NODE_ENV: 'test',
  DEFAULT_LLM_MODEL: 'openai/gpt-4o-mini',
  DEFAULT_MAX_TOKENS_PER_EXECUTION: '30000',
  DEFAULT_MAX_COST_PER_EXECUTION: '1.5',
  DEFAULT_THINKING_MODE: 'adaptive',
});
const defaults = environmentDefaults(config);
const TENANT = 'tenant-a';
const USER = 'user-1';

const stored = (values: Partial<TenantSettingsValues>): TenantSettingsValues => ({ ...INHERIT_ALL, ...values });

describe('effective settings', () => {
  it('environment defaults come from DEFAULT_* and leave unnamed ones unlimited', () => {
    expect(defaults).to.deep.equal({
      defaultModel: 'openai/gpt-4o-mini',
      fallbackModel: null,
      maxTokensPerExecution: 30000,
      maxCostUsdPerExecution: 1.5,
      maxTokensPerDay: null,
      maxCostUsdPerDay: null,
      maxThinkingMode: 'adaptive',
    });
  });

  it('refuses a DEFAULT_LLM_MODEL outside the curated list at start', () => {
    expect(() => loadConfig({ NODE_ENV: 'test', DEFAULT_LLM_MODEL: 'someone/else' })).to.throw(/DEFAULT_LLM_MODEL/);
  });

  it('a tenant value wins over the environment and says so in sources', () => {
    const { effective, sources } = effectiveTenantSettings(
      stored({ defaultModel: 'anthropic/claude-sonnet-4-5', maxTokensPerDay: 1_000_000 }),
      defaults,
    );
    expect(effective).to.include({
      defaultModel: 'anthropic/claude-sonnet-4-5',
      maxTokensPerDay: 1_000_000,
      maxTokensPerExecution: 30000,
    });
    expect(sources).to.include({
      defaultModel: 'tenant',
      maxTokensPerDay: 'tenant',
      maxTokensPerExecution: 'default',
      fallbackModel: 'default',
    });
  });

  it('a turn: request model → tenant → environment', () => {
    const base = { tenantId: TENANT, userId: USER, userOverride: null, defaults };
    expect(resolveTurnSettings({ ...base, stored: INHERIT_ALL }).model).to.equal('openai/gpt-4o-mini');
    const tenant = resolveTurnSettings({ ...base, stored: stored({ defaultModel: 'openai/gpt-4.1' }) });
    expect(tenant.model).to.equal('openai/gpt-4.1');
    expect(tenant.sources.model).to.equal('tenant');
    const request = resolveTurnSettings({
      ...base,
      stored: stored({ defaultModel: 'openai/gpt-4.1' }),
      request: { model: 'builtin/deterministic' },
    });
    expect(request.model).to.equal('builtin/deterministic');
    expect(request.sources.model).to.equal('request');
  });

  it('a request may tighten a budget but never raise it above the tenant or environment value', () => {
    const base = {
      tenantId: TENANT,
      userId: USER,
      userOverride: null,
      defaults,
      stored: stored({ maxTokensPerExecution: 8000 }),
    };
    const lower = resolveTurnSettings({ ...base, request: { maxTokens: 2000, maxCostUsd: 0.25 } });
    expect(lower).to.include({ maxTokensPerExecution: 2000, maxCostUsdPerExecution: 0.25 });
    expect(lower.sources).to.include({ maxTokensPerExecution: 'request', maxCostUsdPerExecution: 'request' });
    const higher = resolveTurnSettings({ ...base, request: { maxTokens: 50_000, maxCostUsd: 99 } });
    expect(higher).to.include({ maxTokensPerExecution: 8000, maxCostUsdPerExecution: 1.5 });
    expect(higher.sources).to.include({ maxTokensPerExecution: 'tenant', maxCostUsdPerExecution: 'default' });
  });

  it('a request model outside the curated list is a 422 on the model field', () => {
    expect(() =>
      resolveTurnSettings({
        tenantId: TENANT,
        userId: USER,
        userOverride: null,
        defaults,
        stored: INHERIT_ALL,
        request: { model: 'free text' },
      }),
    )
      .to.throw(ValidationFailed)
      .with.property('issues')
      .that.deep.equals([
        {
          loc: ['body', 'model'],
          msg: '"free text" is not a model id from /settings/model-options',
          type: 'unknown_model',
        },
      ]);
  });

  it('thinking mode: request → project → ceiling, clamped to the tenant ceiling, never rejected', () => {
    const base = { tenantId: TENANT, userId: USER, userOverride: null, defaults };
    expect(resolveTurnSettings({ ...base, stored: INHERIT_ALL })).to.include({
      thinkingMode: 'adaptive',
      thinkingModeClamped: false,
    });
    const fromProject = resolveTurnSettings({
      ...base,
      stored: INHERIT_ALL,
      request: { projectThinkingMode: 'disabled' },
    });
    expect(fromProject).to.include({ thinkingMode: 'disabled' });
    expect(fromProject.sources.thinkingMode).to.equal('project');
    const capped = resolveTurnSettings({
      ...base,
      stored: stored({ maxThinkingMode: 'disabled' }),
      request: { thinkingMode: 'adaptive' },
    });
    expect(capped).to.include({ thinkingMode: 'disabled', thinkingModeCeiling: 'disabled', thinkingModeClamped: true });
    expect(capped.sources.thinkingMode).to.equal('tenant');
    const unknown = resolveTurnSettings({ ...base, stored: INHERIT_ALL, request: { thinkingMode: 'turbo' } });
    expect(unknown).to.include({ thinkingMode: 'adaptive', thinkingModeClamped: true });
  });

  it('clampThinkingMode keeps modes at or below the ceiling', () => {
    expect(clampThinkingMode('disabled', 'adaptive')).to.deep.equal({ mode: 'disabled', clamped: false });
    expect(clampThinkingMode('adaptive', 'adaptive')).to.deep.equal({ mode: 'adaptive', clamped: false });
    expect(clampThinkingMode('adaptive', 'disabled')).to.deep.equal({ mode: 'disabled', clamped: true });
  });

  it('daily caps: the tenant aggregate and the user override are both handed to the turn', () => {
    const turn = resolveTurnSettings({
      tenantId: TENANT,
      userId: USER,
      defaults,
      stored: stored({ maxTokensPerDay: 1_000_000, maxCostUsdPerDay: 200 }),
      userOverride: { maxTokensPerDay: 50_000, maxCostUsdPerDay: null },
    });
    expect(turn.tenantDailyCaps).to.deep.equal({ maxTokensPerDay: 1_000_000, maxCostUsdPerDay: 200 });
    expect(turn.userDailyCaps).to.deep.equal({ maxTokensPerDay: 50_000, maxCostUsdPerDay: null });
  });

  it("resolveEffectiveSettings reads the cached snapshot and picks the caller's override", async () => {
    const cache = createMemoryCache();
    await cache.set(
      settingsCacheKey(TENANT),
      {
        tenantId: TENANT,
        stored: {
          values: stored({ defaultModel: 'anthropic/claude-haiku-4-5' }),
          updatedBy: 'admin',
          updatedAt: '2026-01-01T00:00:00.000Z',
        },
        overrides: {
          [USER]: {
            userId: USER,
            maxTokensPerDay: 10,
            maxCostUsdPerDay: null,
            updatedBy: 'admin',
            updatedAt: '2026-01-01T00:00:00.000Z',
          },
        },
      },
      300,
    );
    const knex = sinon.stub().throws(new Error('the database must not be read on a cache hit'));
    const turn = await resolveEffectiveSettings(
      { knex: knex as never, cache, config, logger: pino({ level: 'silent' }) },
      { tenantId: TENANT, userId: USER },
    );
    expect(turn).to.include({ model: 'anthropic/claude-haiku-4-5', degraded: false });
    expect(turn.userDailyCaps).to.deep.equal({ maxTokensPerDay: 10, maxCostUsdPerDay: null });
    expect(knex.called).to.equal(false);
  });

  it('a failed settings read degrades to the environment defaults and logs a warning', async () => {
    const cache = createMemoryCache();
    const logger = pino({ level: 'silent' });
    const warn = sinon.spy(logger, 'warn');
    const knex = sinon.stub().throws(new Error('connection refused'));
    const turn = await resolveEffectiveSettings(
      { knex: knex as never, cache, config, logger },
      { tenantId: TENANT, userId: USER, request: { maxTokens: 100 } },
    );
    expect(turn).to.include({
      degraded: true,
      model: 'openai/gpt-4o-mini',
      maxTokensPerExecution: 100,
      maxCostUsdPerExecution: 1.5,
    });
    expect(turn.userDailyCaps).to.equal(null);
    expect(warn.calledOnce).to.equal(true);
  });

  it('the curated list holds builtin, openai and anthropic models, all fields strings', () => {
    expect(MODEL_IDS).to.include('builtin/deterministic');
    for (const provider of ['builtin', 'openai', 'anthropic'])
      expect(MODEL_OPTIONS.some((m) => m.provider === provider)).to.equal(true);
    for (const option of MODEL_OPTIONS) {
      expect(option.id.startsWith(`${option.provider}/`)).to.equal(true);
      for (const value of Object.values(option)) expect(value).to.be.a('string');
    }
    expect(new Set(MODEL_IDS).size).to.equal(MODEL_IDS.length);
  });
});
