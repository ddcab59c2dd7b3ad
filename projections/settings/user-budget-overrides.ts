import type { Projector } from '../../src/platform/projection-runner/projector';
import { readUserBudgetOverrideEvent } from '../../streams/settings/user-budget-override';

/** The overrides in force, one row per (tenant, user); a deleted override has no row. */
export const USER_OVERRIDES_TABLE = 'settings_user_budget_overrides';

export const userBudgetOverridesProjector: Projector = {
  name: 'settings_user_budget_overrides',
  consistency: 'inline',
  version: 1,
  tables: [USER_OVERRIDES_TABLE],
  eventTypes: ['UserBudgetOverrideUpserted', 'UserBudgetOverrideDeleted'],
  async createTables(knex) {
    await knex.schema.createTable(USER_OVERRIDES_TABLE, (t) => {
      t.text('tenant_id').notNullable();
      t.text('user_id').notNullable();
      t.bigInteger('max_tokens_per_day');
      t.double('max_cost_usd_per_day');
      t.text('updated_by').notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.primary(['tenant_id', 'user_id']);
    });
  },
  async apply(trx, event) {
    const tenantId = event.metadata.tenantId;
    const parsed = readUserBudgetOverrideEvent(event);
    switch (parsed.type) {
      case 'UserBudgetOverrideUpserted': {
        const { data } = parsed;
        await trx(USER_OVERRIDES_TABLE)
          .insert({
            tenant_id: tenantId,
            user_id: data.userId,
            max_tokens_per_day: data.maxTokensPerDay,
            max_cost_usd_per_day: data.maxCostUsdPerDay,
            updated_by: data.updatedBy,
            updated_at: data.updatedAt,
          })
          .onConflict(['tenant_id', 'user_id'])
          .merge();
        break;
      }
      case 'UserBudgetOverrideDeleted':
        await trx(USER_OVERRIDES_TABLE).where({ tenant_id: tenantId, user_id: parsed.data.userId }).delete();
        break;
    }
  },
};
