import { randomUUID } from 'node:crypto';
import { createTenant } from '../../commands/identity/create-tenant';
import { registerUser } from '../../commands/identity/register-user';
import { identityDeps } from '../../commands/identity/identity-deps';
import { SYSTEM_USER_ID } from '../../streams/identity/system-accounts';
import { DEFAULT_TENANT_ID } from '../../streams/identity/tenant';
import type { TestPlatform } from './platform';

/**
 * A real session: an active user created through the identity commands in the given
 * tenant (created when new), and a token minted by the platform's own token service, so
 * the real gateway verifies and resolves it. Skips bcrypt and POST /auth/token for speed;
 * tests of login itself go through HTTP.
 */
export type Role = 'admin' | 'operator' | 'reviewer' | 'power_user';

export const DEFAULT_TENANT = DEFAULT_TENANT_ID;

export interface Session {
  userId: string;
  tenantId: string;
  email: string;
  roles: Role[];
  token: string;
  /** `{authorization: 'Bearer …'}` for the public listener. */
  headers: Record<string, string>;
}

export async function signIn(
  t: TestPlatform,
  options: { roles?: Role[]; tenantId?: string; email?: string } = {},
): Promise<Session> {
  const deps = identityDeps(t.deps);
  const userId = randomUUID();
  const roles = options.roles ?? ['operator'];
  const tenantId = options.tenantId ?? DEFAULT_TENANT;
  const email = (options.email ?? `user-${userId.slice(0, 8)}@example.com`).toLowerCase();
  const actor = { actorId: SYSTEM_USER_ID };
  await createTenant(deps.handle, { tenantId, name: `Tenant ${tenantId.slice(0, 8)}` }, actor);
  await registerUser(
    deps,
    { tenantId, userId, email, displayName: `Test ${roles.join('+') || 'no-role'} user`, roles },
    actor,
  );
  const { token } = await deps.tokens.issue({ userId, email, roles, tenantId, tokenVersion: 0 }, deps.clock());
  return { userId, tenantId, email, roles, token, headers: { authorization: `Bearer ${token}` } };
}
