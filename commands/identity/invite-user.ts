import { newId } from '../../src/platform/command-handling/idempotency';
import { z } from 'zod';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import { claim, release } from '../../src/platform/command-handling/reservation';
import { Conflict } from '../../src/platform/domain-errors';
import type { IdentityDeps } from './identity-deps';
import { newOneTimeToken } from './onetime-secrets';
import { INVITE_TTL_MS } from '../../streams/identity/onetime-token';
import { ROLES } from '../../streams/identity/permissions';
import { userEvolution, type UserEvent, type UserState, userStream } from '../../streams/identity/user';
import { emailReservation } from './email-reservation';
import { runOneTimeTokenCommand } from './onetime-token-commands';

/** POST /auth/admin/users: a user in status `invited` with a 7-day invite token. */
export const InviteUserInput = z
  .object({
    email: z.string().trim().email().max(320),
    display_name: z.string().trim().max(200).nullable().optional(),
    roles: z
      .array(z.enum(ROLES))
      .max(ROLES.length * 2)
      .default([]),
  })
  .strict();

export interface InviteUser {
  type: 'InviteUser';
  userId: string;
  email: string;
  displayName: string | null;
  roles: (typeof ROLES)[number][];
  tokenHash: string;
  expiresAt: string;
}

export function decideInviteUser(command: InviteUser, state: UserState): UserEvent[] {
  if (state.status !== 'none') throw new Conflict('User already exists');
  const { userId, email, displayName, roles, tokenHash, expiresAt } = command;
  return [
    {
      type: 'UserInvited',
      data: { userId, email: email.toLowerCase(), displayName, roles: [...new Set(roles)], tokenHash, expiresAt },
    },
  ];
}

const decider: Decider<InviteUser, UserState, UserEvent> = { ...userEvolution, decide: decideInviteUser };

export async function inviteUser(deps: IdentityDeps, input: z.infer<typeof InviteUserInput>, context: CommandContext) {
  const userId = newId(context.tenantId, 'identity.user');
  // A retried invite (same Idempotency-Key) finds its user already written. The invite token
  // was shown once and cannot be shown again (it is stored only as a hash), and a fresh one
  // would not be the one the user holds: say so instead of answering with a second secret.
  if ((await deps.store.readStream(userStream(context.tenantId, userId), { limit: 1 })).length > 0) {
    throw new Conflict(
      'This invite request was already processed; its token is shown only once. Issue a password reset for the user to get a new link.',
    );
  }
  const { token, tokenHash } = newOneTimeToken();
  const expiresAt = new Date(deps.clock().getTime() + INVITE_TTL_MS).toISOString();
  const reservation = emailReservation(input.email);
  await claim(deps.handle, reservation, userId, context);
  try {
    // The token stream first: a user event never names a token that cannot be redeemed.
    await runOneTimeTokenCommand(
      deps.handle,
      { type: 'IssueOneTimeToken', tokenHash, purpose: 'invite', tenantId: context.tenantId, userId, expiresAt },
      context,
    );
    const command: InviteUser = {
      type: 'InviteUser',
      userId,
      email: input.email,
      displayName: input.display_name ?? null,
      roles: input.roles,
      tokenHash,
      expiresAt,
    };
    const { state } = await deps.handle(decider, userStream(context.tenantId, userId), command, context);
    return { userId, state, token, expiresAt };
  } catch (error) {
    await release(deps.handle, reservation, userId, context).catch(() => undefined);
    throw error;
  }
}
