import { randomUUID } from 'node:crypto';
import { z } from '../../src/platform/openapi/describe';
import type { Decider } from '../../src/platform/command-handling/decider';
import { NotFound } from '../../src/platform/domain-errors';
import type { IdentityDeps } from './identity-deps';
import { hashOneTimeToken } from './onetime-secrets';
import { hashPassword, MAX_PASSWORD_BYTES, MIN_PASSWORD_LENGTH, passwordTooLong } from './passwords';
import { findOpenToken } from '../../queries/identity/onetime-tokens';
import type { TokenPurpose } from '../../streams/identity/onetime-token';
import {
  type ExistingUser,
  isActiveAdmin,
  passwordSecretName,
  userEvolution,
  type UserEvent,
  type UserState,
  userStream,
} from '../../streams/identity/user';
import { grantAdminSeat } from './admin-seats';
import { runOneTimeTokenCommand, TOKEN_NOT_FOUND } from './onetime-token-commands';

/** A password the platform will store: 8+ characters, at most 72 bytes (bcrypt's limit). */
export const NewPassword = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `password must be at least ${MIN_PASSWORD_LENGTH} characters`)
  .refine((p) => !passwordTooLong(p), `password must be at most ${MAX_PASSWORD_BYTES} bytes`)
  // The byte check bounds the length too (a character is at least one byte).
  .openapi({ maxLength: MAX_PASSWORD_BYTES });

export const RedeemInput = z.object({ token: z.string().min(1).max(512), password: NewPassword });

/** The user side of a redemption: the token must still be one of the user's open ones. */
export interface CompleteOneTimeToken {
  type: 'CompleteOneTimeToken';
  tokenHash: string;
  purpose: TokenPurpose;
  passwordRef: string;
}

export function decideCompleteOneTimeToken(command: CompleteOneTimeToken, state: UserState): UserEvent[] {
  if (state.status === 'none' || !state.openTokens.includes(command.tokenHash)) throw new NotFound(TOKEN_NOT_FOUND);
  const { tokenHash, passwordRef } = command;
  if (command.purpose === 'invite') {
    if (state.status !== 'invited') throw new NotFound(TOKEN_NOT_FOUND);
    return [
      { type: 'InviteAccepted', data: { tokenHash } },
      { type: 'PasswordSet', data: { passwordRef } },
    ];
  }
  if (state.status !== 'active') throw new NotFound(TOKEN_NOT_FOUND);
  return [
    { type: 'PasswordResetRedeemed', data: { tokenHash } },
    { type: 'PasswordSet', data: { passwordRef } },
    // Sessions opened with the old password since the reset was issued end here too.
    { type: 'TokenVersionBumped', data: { tokenVersion: state.tokenVersion + 1, reason: 'password_reset' } },
  ];
}

const decider: Decider<CompleteOneTimeToken, UserState, UserEvent> = {
  ...userEvolution,
  decide: decideCompleteOneTimeToken,
};

/**
 * POST /auth/invites/redeem. The token stream decides single use before any bcrypt work,
 * so losers of a race cost nothing; then the password is stored and the user updated.
 */
export async function redeemOneTimeToken(
  deps: IdentityDeps,
  input: z.infer<typeof RedeemInput>,
): Promise<{ tenantId: string; user: ExistingUser }> {
  const tokenHash = hashOneTimeToken(input.token);
  const open = await findOpenToken(deps.knex, tokenHash, deps.clock());
  if (!open) throw new NotFound(TOKEN_NOT_FOUND);
  const context = { tenantId: open.tenant_id, actorId: open.user_id };
  await runOneTimeTokenCommand(deps.handle, { type: 'RedeemOneTimeToken', tokenHash }, context);
  const passwordRef = randomUUID();
  await deps.secrets.put(passwordSecretName(passwordRef), await hashPassword(input.password, deps.config.bcryptCost));
  let result;
  try {
    const command: CompleteOneTimeToken = {
      type: 'CompleteOneTimeToken',
      tokenHash,
      purpose: open.purpose,
      passwordRef,
    };
    result = await deps.handle(decider, userStream(open.tenant_id, open.user_id), command, context);
  } catch (error) {
    await deps.secrets.delete(passwordSecretName(passwordRef)).catch(() => undefined);
    throw error;
  }
  deps.resolver.invalidate(open.user_id);
  // An invite with the admin role makes an active admin: the seat follows the user event.
  if (isActiveAdmin(result.state)) await grantAdminSeat(deps, open.user_id, context);
  return { tenantId: open.tenant_id, user: result.state as ExistingUser };
}
