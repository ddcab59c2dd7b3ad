import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import { NotFound } from '../../src/platform/domain-errors';
import type { IdentityDeps } from './identity-deps';
import { userEvolution, type UserEvent, type UserState, userStream } from '../../streams/identity/user';

/** POST /auth/logout-all: every token issued so far resolves as `revoked`. */
export interface LogOutEverywhere {
  type: 'LogOutEverywhere';
}

export function decideLogOutEverywhere(_command: LogOutEverywhere, state: UserState): UserEvent[] {
  if (state.status === 'none') throw new NotFound('User not found');
  return [{ type: 'TokenVersionBumped', data: { tokenVersion: state.tokenVersion + 1, reason: 'logout_all' } }];
}

const decider: Decider<LogOutEverywhere, UserState, UserEvent> = { ...userEvolution, decide: decideLogOutEverywhere };

export async function logOutEverywhere(deps: IdentityDeps, userId: string, context: CommandContext) {
  const result = await deps.handle(
    decider,
    userStream(context.tenantId, userId),
    { type: 'LogOutEverywhere' },
    context,
  );
  deps.resolver.invalidate(userId);
  return result;
}
