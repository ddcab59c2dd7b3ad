import { expect } from 'chai';
import { deleteUserBudgetOverrideDecider } from '../../../commands/settings/delete-user-budget-override';
import {
  UpsertUserBudgetOverrideBody,
  upsertUserBudgetOverrideCommand,
  upsertUserBudgetOverrideDecider,
} from '../../../commands/settings/upsert-user-budget-override';
import { NotFound, ValidationFailed } from '../../../src/platform/domain-errors';
import { parse } from '../../../src/platform/http/validation';
import type { BudgetCaps } from '../../../streams/settings/fields';
import type { UserBudgetOverrideEvent } from '../../../streams/settings/user-budget-override';
import { given } from '../../support/given';

const ADMIN = '11111111-1111-4111-8111-111111111111';
const USER = '33333333-3333-4333-8333-333333333333';
const NOW = '2026-01-15T12:00:00.000Z';

const upserted = (
  maxTokensPerDay: number | null,
  maxCostUsdPerDay: number | null,
  previous: BudgetCaps | null = null,
): UserBudgetOverrideEvent => ({
  type: 'UserBudgetOverrideUpserted',
  data: { userId: USER, maxTokensPerDay, maxCostUsdPerDay, previous, updatedBy: ADMIN, updatedAt: NOW },
});

describe('user budget override deciders', () => {
  it('creates an override with the caps given', () => {
    given(upsertUserBudgetOverrideDecider)
      .when(upsertUserBudgetOverrideCommand(USER, { max_tokens_per_day: 20_000 }, ADMIN))
      .then([upserted(20_000, null)]);
  });

  it('an absent field keeps the stored cap; null clears it', () => {
    given(upsertUserBudgetOverrideDecider, [upserted(20_000, 5)])
      .when(upsertUserBudgetOverrideCommand(USER, { max_cost_usd_per_day: 7.5 }, ADMIN))
      .then([upserted(20_000, 7.5, { maxTokensPerDay: 20_000, maxCostUsdPerDay: 5 })]);
    given(upsertUserBudgetOverrideDecider, [upserted(20_000, 5)])
      .when(upsertUserBudgetOverrideCommand(USER, { max_tokens_per_day: null, max_cost_usd_per_day: 5 }, ADMIN))
      .then([upserted(null, 5, { maxTokensPerDay: 20_000, maxCostUsdPerDay: 5 })]);
  });

  it('the same caps again record nothing', () => {
    given(upsertUserBudgetOverrideDecider, [upserted(20_000, 5)])
      .when(upsertUserBudgetOverrideCommand(USER, { max_tokens_per_day: 20_000 }, ADMIN))
      .thenNothing();
  });

  it('never stores an override without any cap', () => {
    given(upsertUserBudgetOverrideDecider, [upserted(20_000, null)])
      .when(upsertUserBudgetOverrideCommand(USER, { max_tokens_per_day: null }, ADMIN))
      .thenThrows(ValidationFailed);
  });

  it('an override can be set again after it was deleted, starting from nothing', () => {
    const deleted: UserBudgetOverrideEvent = {
      type: 'UserBudgetOverrideDeleted',
      data: {
        userId: USER,
        previous: { maxTokensPerDay: 1, maxCostUsdPerDay: null },
        deletedBy: ADMIN,
        deletedAt: NOW,
      },
    };
    given(upsertUserBudgetOverrideDecider, [upserted(1, null), deleted])
      .when(upsertUserBudgetOverrideCommand(USER, { max_cost_usd_per_day: 3 }, ADMIN))
      .then([upserted(null, 3, null)]);
  });

  it('deleting records the caps that were in force', () => {
    given(deleteUserBudgetOverrideDecider, [upserted(20_000, 5)])
      .when({ type: 'DeleteUserBudgetOverride', userId: USER, actorId: ADMIN })
      .then([
        {
          type: 'UserBudgetOverrideDeleted',
          data: {
            userId: USER,
            previous: { maxTokensPerDay: 20_000, maxCostUsdPerDay: 5 },
            deletedBy: ADMIN,
            deletedAt: NOW,
          },
        },
      ]);
  });

  it('deleting a missing or already deleted override is not found', () => {
    given(deleteUserBudgetOverrideDecider)
      .when({ type: 'DeleteUserBudgetOverride', userId: USER, actorId: ADMIN })
      .thenThrows(NotFound);
    const deleted: UserBudgetOverrideEvent = {
      type: 'UserBudgetOverrideDeleted',
      data: {
        userId: USER,
        previous: { maxTokensPerDay: 1, maxCostUsdPerDay: null },
        deletedBy: ADMIN,
        deletedAt: NOW,
      },
    };
    given(deleteUserBudgetOverrideDecider, [upserted(1, null), deleted])
      .when({ type: 'DeleteUserBudgetOverride', userId: USER, actorId: ADMIN })
      .thenThrows(NotFound);
  });
});

describe('PUT /settings/user-overrides body', () => {
  const issuesOf = (body: unknown) => {
    try {
      parse(UpsertUserBudgetOverrideBody, body, 'body');
    } catch (error) {
      if (error instanceof ValidationFailed) return error.issues;
      throw error;
    }
    throw new Error('expected a validation failure');
  };

  it('needs at least one cap set, naming both fields', () => {
    for (const body of [{}, { max_tokens_per_day: null }, { max_tokens_per_day: null, max_cost_usd_per_day: null }]) {
      const issues = issuesOf(body);
      expect(issues.map((i) => i.loc)).to.deep.equal([
        ['body', 'max_tokens_per_day'],
        ['body', 'max_cost_usd_per_day'],
      ]);
      expect(issues[0].type).to.equal('missing');
    }
  });

  it('rejects negative and fractional token caps', () => {
    expect(issuesOf({ max_tokens_per_day: -5 })[0].loc).to.deep.equal(['body', 'max_tokens_per_day']);
    expect(issuesOf({ max_tokens_per_day: 2.5 })[0].loc).to.deep.equal(['body', 'max_tokens_per_day']);
    expect(issuesOf({ max_cost_usd_per_day: -0.01 })[0].loc).to.deep.equal(['body', 'max_cost_usd_per_day']);
  });
});
