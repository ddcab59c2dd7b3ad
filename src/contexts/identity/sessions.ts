import type { Response } from 'express';
import { setSessionCookie } from './cookies';
import type { IdentityDeps } from '../../../commands/identity/identity-deps';

export interface SessionSubject {
  userId: string;
  tenantId: string;
  email: string;
  displayName: string | null;
  roles: string[];
  tokenVersion: number;
}

/**
 * Mints a 24-hour session for the subject's current roles and token version, sets the
 * cookie and returns the body of POST /auth/token and /auth/invites/redeem (no token).
 */
export async function openSession(deps: IdentityDeps, res: Response, subject: SessionSubject) {
  const { token, expiresIn } = await deps.tokens.issue(
    {
      userId: subject.userId,
      email: subject.email,
      roles: subject.roles,
      tenantId: subject.tenantId,
      tokenVersion: subject.tokenVersion,
    },
    deps.clock(),
  );
  setSessionCookie(res, token);
  return {
    token,
    body: {
      expires_in: expiresIn,
      user_id: subject.userId,
      roles: subject.roles,
      email: subject.email,
      display_name: subject.displayName,
    },
  };
}
