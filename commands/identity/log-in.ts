import { z } from 'zod';
import { Unauthenticated } from '../../src/platform/domain-errors';
import type { IdentityDeps } from './identity-deps';
import { findUserByEmail, type UserRow } from '../../queries/identity/user-directory';
import { passwordSecretName } from '../../streams/identity/user';

/**
 * POST /auth/token. A login changes no state, so it appends nothing. Unknown e-mail,
 * wrong password, invited, disabled and system accounts all get the same answer after
 * the same bcrypt work.
 */
export const LogInInput = z.object({ email: z.string().max(320), password: z.string().max(1024) });

export const BAD_CREDENTIALS = 'Invalid email or password';

export async function logIn(deps: IdentityDeps, input: z.infer<typeof LogInInput>): Promise<UserRow> {
  const row = await findUserByEmail(deps.knex, input.email.trim());
  const loginable = row && row.status === 'active' && row.kind === 'person' && row.password_ref;
  const storedHash = loginable ? await deps.secrets.get(passwordSecretName(row.password_ref!)) : null;
  const ok = await deps.verifyPassword(input.password, storedHash);
  if (!ok || !row) throw new Unauthenticated(BAD_CREDENTIALS);
  return row;
}
