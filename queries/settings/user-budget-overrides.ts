import type { Knex } from 'knex';
import { USER_OVERRIDES_TABLE } from '../../projections/settings/user-budget-overrides';
import { overrideFromRow, type StoredUserOverride } from './tenant-settings';

/** GET /settings/user-overrides: the tenant's overrides in force, newest change first. */
export async function listUserBudgetOverrides(knex: Knex, tenantId: string): Promise<StoredUserOverride[]> {
  const rows = await knex(USER_OVERRIDES_TABLE)
    .where({ tenant_id: tenantId })
    .orderBy([{ column: 'updated_at', order: 'desc' }, { column: 'user_id' }]);
  return rows.map(overrideFromRow);
}

export async function findUserBudgetOverride(
  knex: Knex,
  tenantId: string,
  userId: string,
): Promise<StoredUserOverride | null> {
  const row = await knex(USER_OVERRIDES_TABLE).where({ tenant_id: tenantId, user_id: userId }).first();
  return row ? overrideFromRow(row) : null;
}
