import { z } from 'zod';
import type { CommandContext } from '../../src/command-handling/command-handler';
import type { Decider } from '../../src/command-handling/decider';
import { Conflict, NotFound } from '../../src/domain/errors';
import type { IdentityDeps } from '../../src/identity/identity-deps';
import { countActiveAdmins } from '../../queries/identity/user-directory';
import { Role, ROLES } from '../../streams/identity/permissions';
import { userEvolution, UserEvent, UserState, userStream } from '../../streams/identity/user';
import { withTenantAdminLock } from './tenant-admin-lock';
import { voidTokenStreams } from './void-user-tokens';

/**
 * PATCH /auth/admin/users/{id} and the operator's deactivate/reactivate. Only these three
 * fields: anything else in the body (tenant_id, status, token_version, email…) is a 422.
 */
export const UpdateUserInput = z
  .object({
    display_name: z.string().trim().max(200).nullable().optional(),
    is_active: z.boolean().optional(),
    roles: z.array(z.enum(ROLES)).max(ROLES.length * 2).optional(),
  })
  .strict()
  .refine((b) => b.display_name !== undefined || b.is_active !== undefined || b.roles !== undefined, {
    message: 'give at least one of display_name, is_active, roles',
  });

export interface UpdateUser {
  type: 'UpdateUser';
  displayName?: string | null;
  roles?: Role[];
  isActive?: boolean;
  /** Active admins of the tenant other than this user, read just before deciding. */
  otherActiveAdmins: number;
}

const sameRoles = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((r) => b.includes(r));

export function decideUpdateUser(command: UpdateUser, state: UserState): UserEvent[] {
  if (state.status === 'none') throw new NotFound('User not found');
  if (state.kind === 'system') throw new Conflict('System accounts cannot be changed');
  const roles = command.roles ? [...new Set(command.roles)] : state.roles;
  const deactivate = command.isActive === false && state.status !== 'disabled';
  const reactivate = command.isActive === true && state.status === 'disabled';
  const statusAfter = deactivate ? 'disabled' : reactivate ? 'active' : state.status;
  const wasActiveAdmin = state.status === 'active' && state.roles.includes('admin');
  const staysActiveAdmin = statusAfter === 'active' && roles.includes('admin');
  if (wasActiveAdmin && !staysActiveAdmin && command.otherActiveAdmins === 0) throw new Conflict('The last active admin cannot be removed');

  const events: UserEvent[] = [];
  if (command.displayName !== undefined && command.displayName !== state.displayName) events.push({ type: 'DisplayNameChanged', data: { displayName: command.displayName } });
  if (!sameRoles(roles, state.roles)) events.push({ type: 'RolesChanged', data: { roles } });
  if (deactivate) {
    events.push({ type: 'UserDeactivated', data: {} });
    events.push({ type: 'TokenVersionBumped', data: { tokenVersion: state.tokenVersion + 1, reason: 'deactivated' } });
    if (state.openTokens.length) events.push({ type: 'OneTimeTokensVoided', data: { tokenHashes: state.openTokens, reason: 'deactivated' } });
  }
  if (reactivate) events.push({ type: 'UserReactivated', data: {} });
  return events;
}

const decider: Decider<UpdateUser, UserState, UserEvent> = { ...userEvolution, decide: decideUpdateUser };

export async function updateUser(deps: IdentityDeps, userId: string, input: { displayName?: string | null; roles?: Role[]; isActive?: boolean }, context: CommandContext) {
  const result = await withTenantAdminLock(context.tenantId, async () => {
    const otherActiveAdmins = await countActiveAdmins(deps.knex, context.tenantId, userId);
    return deps.handle(decider, userStream(context.tenantId, userId), { type: 'UpdateUser', ...input, otherActiveAdmins }, context);
  });
  deps.resolver.invalidate(userId);
  await voidTokenStreams(deps, result.events, context);
  return result;
}
