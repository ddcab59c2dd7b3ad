import { expect } from 'chai';
import {
  tenantSettingsDecider,
  updateTenantSettingsCommand,
  UpdateTenantSettingsBody,
} from '../../../commands/settings/update-tenant-settings';
import { ValidationFailed } from '../../../src/platform/domain-errors';
import { parse } from '../../../src/platform/http/validation';
import type { TenantSettingsEvent } from '../../../streams/settings/tenant-settings';
import { given } from '../../support/given';

const ADMIN = '11111111-1111-4111-8111-111111111111';
const NOW = '2026-01-15T12:00:00.000Z';

const updated = (
  changes: TenantSettingsEvent['data']['changes'],
  updatedBy = ADMIN,
  updatedAt = NOW,
): TenantSettingsEvent => ({
  type: 'TenantSettingsUpdated',
  data: { changes, updatedBy, updatedAt },
});

describe('tenant settings decider', () => {
  it('records the fields a first write sets, each with its previous (inherited) value', () => {
    given(tenantSettingsDecider)
      .when({
        type: 'UpdateTenantSettings',
        values: { defaultModel: 'openai/gpt-4o', maxTokensPerDay: 500_000 },
        actorId: ADMIN,
      })
      .then([
        updated({ defaultModel: { from: null, to: 'openai/gpt-4o' }, maxTokensPerDay: { from: null, to: 500_000 } }),
      ]);
  });

  it('records only what changed, leaving absent fields as they are', () => {
    given(tenantSettingsDecider, [
      updated({ defaultModel: { from: null, to: 'openai/gpt-4o' }, maxCostUsdPerDay: { from: null, to: 40 } }),
    ])
      .when({
        type: 'UpdateTenantSettings',
        values: { defaultModel: 'openai/gpt-4o', maxCostUsdPerDay: 55.5 },
        actorId: ADMIN,
      })
      .then([updated({ maxCostUsdPerDay: { from: 40, to: 55.5 } })]);
  });

  it('null clears a field back to inheriting', () => {
    given(tenantSettingsDecider, [updated({ fallbackModel: { from: null, to: 'anthropic/claude-haiku-4-5' } })])
      .when({ type: 'UpdateTenantSettings', values: { fallbackModel: null }, actorId: ADMIN })
      .then([updated({ fallbackModel: { from: 'anthropic/claude-haiku-4-5', to: null } })]);
  });

  it('writing the values already in force records nothing', () => {
    given(tenantSettingsDecider, [updated({ maxThinkingMode: { from: null, to: 'disabled' } })])
      .when({
        type: 'UpdateTenantSettings',
        values: { maxThinkingMode: 'disabled', defaultModel: null },
        actorId: ADMIN,
      })
      .thenNothing();
  });

  it('an empty write records nothing', () => {
    given(tenantSettingsDecider).when({ type: 'UpdateTenantSettings', values: {}, actorId: ADMIN }).thenNothing();
  });

  it('folds every update into the values in force and who wrote them last', () => {
    const state = given(tenantSettingsDecider, [
      updated({ defaultModel: { from: null, to: 'openai/gpt-4o' } }),
      updated(
        { maxTokensPerExecution: { from: null, to: 8000 } },
        '22222222-2222-4222-8222-222222222222',
        '2026-01-16T08:00:00.000Z',
      ),
    ]).state;
    expect(state).to.deep.include({
      status: 'configured',
      updatedBy: '22222222-2222-4222-8222-222222222222',
      updatedAt: '2026-01-16T08:00:00.000Z',
    });
    if (state.status !== 'configured') throw new Error('unreachable');
    expect(state.values).to.include({
      defaultModel: 'openai/gpt-4o',
      maxTokensPerExecution: 8000,
      fallbackModel: null,
    });
  });
});

describe('PUT /settings body', () => {
  const parseBody = (body: unknown) => parse(UpdateTenantSettingsBody, body, 'body');
  const issuesOf = (body: unknown) => {
    try {
      parseBody(body);
    } catch (error) {
      if (error instanceof ValidationFailed) return error.issues;
      throw error;
    }
    throw new Error('expected a validation failure');
  };

  it('accepts curated model ids and maps wire names to the command', () => {
    const body = parseBody({
      default_model: 'builtin/deterministic',
      fallback_model: null,
      max_cost_usd_per_day: 12.5,
    });
    expect(updateTenantSettingsCommand(body, ADMIN)).to.deep.equal({
      type: 'UpdateTenantSettings',
      values: { defaultModel: 'builtin/deterministic', fallbackModel: null, maxCostUsdPerDay: 12.5 },
      actorId: ADMIN,
    });
  });

  it('rejects a free-text model with the offending field and an unknown_model type', () => {
    const issues = issuesOf({ default_model: 'gpt-5-turbo-free-text' });
    expect(issues).to.have.length(1);
    expect(issues[0]).to.deep.include({ loc: ['body', 'default_model'], type: 'unknown_model' });
    expect(issuesOf({ fallback_model: 'openai/not-a-model' })[0].loc).to.deep.equal(['body', 'fallback_model']);
  });

  it('rejects non-integer, negative and zero budgets where they make no sense', () => {
    expect(issuesOf({ max_tokens_per_execution: 1.5 })[0].loc).to.deep.equal(['body', 'max_tokens_per_execution']);
    expect(issuesOf({ max_tokens_per_execution: 0 })[0].loc).to.deep.equal(['body', 'max_tokens_per_execution']);
    expect(issuesOf({ max_cost_usd_per_execution: 0 })[0].loc).to.deep.equal(['body', 'max_cost_usd_per_execution']);
    expect(issuesOf({ max_tokens_per_day: -1 })[0].loc).to.deep.equal(['body', 'max_tokens_per_day']);
    expect(issuesOf({ max_cost_usd_per_day: '10' })[0].loc).to.deep.equal(['body', 'max_cost_usd_per_day']);
  });

  it('allows a daily cap of zero (blocks usage for the day)', () => {
    expect(parseBody({ max_tokens_per_day: 0, max_cost_usd_per_day: 0 })).to.deep.equal({
      max_tokens_per_day: 0,
      max_cost_usd_per_day: 0,
    });
  });

  it('names each unknown field instead of ignoring a typo', () => {
    const issues = issuesOf({ default_modle: 'openai/gpt-4o' });
    expect(issues).to.deep.equal([{ loc: ['body', 'default_modle'], msg: 'unknown field', type: 'extra_forbidden' }]);
  });

  it('rejects a thinking-mode ceiling outside disabled/adaptive', () => {
    expect(issuesOf({ max_thinking_mode: 'extended' })[0].loc).to.deep.equal(['body', 'max_thinking_mode']);
  });
});
