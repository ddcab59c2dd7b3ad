import { createTenant } from '../../../commands/identity/create-tenant';
import { registerUser } from '../../../commands/identity/register-user';
import { findUserByEmail, findUserById } from '../../../queries/identity/user-directory';
import { SYSTEM_ACCOUNTS, SYSTEM_ACCOUNTS_TENANT, SYSTEM_USER_ID } from '../../../streams/identity/system-accounts';
import { DEFAULT_TENANT_ID } from '../../../streams/identity/tenant';
import { Conflict } from '../../platform/domain-errors';
import type { IdentityDeps } from '../../../commands/identity/identity-deps';
import { passwordTooLong } from '../../../commands/identity/passwords';

const actor = { actorId: SYSTEM_USER_ID };

export const BOOTSTRAP_ADMIN_ROLES = ['admin', 'operator', 'reviewer'] as const;

/**
 * Start-up data, idempotent across restarts and racing instances: the
 * default tenant, the four system accounts, and the bootstrap administrator when no user
 * holds its e-mail yet. Development defaults are refused in production by src/platform/config.ts.
 */
/**
 * The default tenant and the system accounts, without the bootstrap administrator: what the
 * operator's command line needs on a database no platform has started on yet.
 */
export async function ensureDefaultTenant(deps: IdentityDeps): Promise<void> {
  await createTenant(deps.handle, { tenantId: DEFAULT_TENANT_ID, name: 'Default tenant' }, actor);
  for (const account of SYSTEM_ACCOUNTS) {
    if (await findUserById(deps.knex, account.userId)) continue;
    await registerUser(
      deps,
      { tenantId: SYSTEM_ACCOUNTS_TENANT, ...account, roles: [], kind: 'system', ifAbsent: true },
      actor,
    );
  }
}

export async function bootstrapIdentity(deps: IdentityDeps): Promise<void> {
  await ensureDefaultTenant(deps);
  const { email, password, fromDefaults } = deps.config.bootstrapAdmin;
  if (await findUserByEmail(deps.knex, email)) return;
  if (passwordTooLong(password))
    throw new Error('BOOTSTRAP_ADMIN_PASSWORD is longer than 72 bytes; bcrypt would truncate it');
  if (fromDefaults)
    deps.logger.warn(
      { email },
      'DEVELOPMENT DEFAULT: bootstrap administrator created with the built-in local password; set BOOTSTRAP_ADMIN_EMAIL and BOOTSTRAP_ADMIN_PASSWORD',
    );
  try {
    await registerUser(
      deps,
      { tenantId: DEFAULT_TENANT_ID, email, displayName: 'Administrator', roles: [...BOOTSTRAP_ADMIN_ROLES], password },
      actor,
    );
    deps.logger.info({ email }, 'bootstrap administrator created');
  } catch (error) {
    // Another instance created it first.
    if (!(error instanceof Conflict)) throw error;
  }
}
