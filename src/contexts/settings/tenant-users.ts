import type { Knex } from 'knex';
import { USERS_TABLE } from '../../../projections/identity/user-directory';
import { findUserInTenant } from '../../../queries/identity/user-directory';
import { NotFound } from '../../platform/domain-errors';

/**
 * A budget override must name a user of the caller's tenant. The user directory belongs to
 * the identity context; a platform assembled without it (a settings-only test platform)
 * has no directory to check against, and then any user id is accepted.
 */
export function createTenantUserCheck(knex: Knex): (tenantId: string, userId: string) => Promise<void> {
  let directoryPresent = false;
  return async (tenantId, userId) => {
    if (!directoryPresent) {
      directoryPresent = await knex.schema.hasTable(USERS_TABLE);
      if (!directoryPresent) return;
    }
    if (!(await findUserInTenant(knex, tenantId, userId))) throw new NotFound('User not found');
  };
}
