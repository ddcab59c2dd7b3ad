import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import { Conflict, NotFound } from '../../src/platform/domain-errors';
import type { IdentityDeps } from './identity-deps';
import { newOneTimeToken } from './onetime-secrets';
import { RESET_TTL_MS } from '../../streams/identity/onetime-token';
import { userEvolution, type UserEvent, type UserState, userStream } from '../../streams/identity/user';
import { runOneTimeTokenCommand } from './onetime-token-commands';
import { voidTokenStreams } from './void-user-tokens';

/**
 * POST /auth/admin/users/{id}/reset-password: voids the user's open tokens,
 * bumps token_version (every session ends) and issues a 1-hour reset token.
 */
export interface IssuePasswordReset {
  type: 'IssuePasswordReset';
  tokenHash: string;
  expiresAt: string;
}

export function decideIssuePasswordReset(command: IssuePasswordReset, state: UserState): UserEvent[] {
  if (state.status === 'none') throw new NotFound('User not found');
  if (state.kind === 'system') throw new Conflict('System accounts cannot be changed');
  if (state.status !== 'active') throw new Conflict(`A ${state.status} user cannot be sent a reset URL`);
  const events: UserEvent[] = [];
  if (state.openTokens.length)
    events.push({
      type: 'OneTimeTokensVoided',
      data: { tokenHashes: state.openTokens, reason: 'superseded by a password reset' },
    });
  events.push({ type: 'TokenVersionBumped', data: { tokenVersion: state.tokenVersion + 1, reason: 'password_reset' } });
  events.push({ type: 'PasswordResetIssued', data: { tokenHash: command.tokenHash, expiresAt: command.expiresAt } });
  return events;
}

const decider: Decider<IssuePasswordReset, UserState, UserEvent> = {
  ...userEvolution,
  decide: decideIssuePasswordReset,
};

export async function issuePasswordReset(deps: IdentityDeps, userId: string, context: CommandContext) {
  const { token, tokenHash } = newOneTimeToken();
  const expiresAt = new Date(deps.clock().getTime() + RESET_TTL_MS).toISOString();
  const result = await deps.handle(
    decider,
    userStream(context.tenantId, userId),
    { type: 'IssuePasswordReset', tokenHash, expiresAt },
    context,
  );
  deps.resolver.invalidate(userId);
  await runOneTimeTokenCommand(
    deps.handle,
    { type: 'IssueOneTimeToken', tokenHash, purpose: 'reset', tenantId: context.tenantId, userId, expiresAt },
    context,
  );
  await voidTokenStreams(deps, result.events, context);
  return { token, expiresAt };
}
