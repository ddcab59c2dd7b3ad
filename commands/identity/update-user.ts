import { z } from 'zod';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import { Conflict, NotFound } from '../../src/platform/domain-errors';
import type { IdentityDeps } from './identity-deps';
import { type Role, ROLES } from '../../streams/identity/permissions';
import { isActiveAdmin, userEvolution, type UserEvent, type UserState, userStream } from '../../streams/identity/user';
import { grantAdminSeat, releaseAdminSeat } from './admin-seats';
import { loadUser } from './load-user';
import { voidTokenStreams } from './void-user-tokens';

/**
 * PATCH /auth/admin/users/{id} and the operator's deactivate/reactivate. Only these three
 * fields: anything else in the body (tenant_id, status, token_version, email…) is a 422.
 */
export const UpdateUserInput = z
  .object({
    display_name: z.string().trim().max(200).nullable().optional(),
    is_active: z.boolean().optional(),
    roles: z
      .array(z.enum(ROLES))
      .max(ROLES.length * 2)
      .optional(),
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
  /** The tenant's admin roster gave up this user's seat just before (see updateUser). */
  adminSeatReleased: boolean;
}

type Changes = Pick<UpdateUser, 'roles' | 'isActive'>;

const sameRoles = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((r) => b.includes(r));

/** Whether applying `changes` to an existing user ends their being an active admin. */
export function removesActiveAdmin(changes: Changes, state: UserState): boolean {
  if (state.status === 'none' || !isActiveAdmin(state)) return false;
  const staysActive = changes.isActive !== false;
  return !(staysActive && (changes.roles ?? state.roles).includes('admin'));
}

export function decideUpdateUser(command: UpdateUser, state: UserState): UserEvent[] {
  if (state.status === 'none') throw new NotFound('User not found');
  if (state.kind === 'system') throw new Conflict('System accounts cannot be changed');
  // The roster decides the last-admin rule; here only that its seat really was released.
  // Without it the user became an admin after the caller looked (a concurrent change).
  if (removesActiveAdmin(command, state) && !command.adminSeatReleased)
    throw new Conflict('The user was changed concurrently; please retry');
  const roles = command.roles ? [...new Set(command.roles)] : state.roles;
  const deactivate = command.isActive === false && state.status !== 'disabled';
  const reactivate = command.isActive === true && state.status === 'disabled';

  const events: UserEvent[] = [];
  if (command.displayName !== undefined && command.displayName !== state.displayName)
    events.push({ type: 'DisplayNameChanged', data: { displayName: command.displayName } });
  if (!sameRoles(roles, state.roles)) events.push({ type: 'RolesChanged', data: { roles } });
  if (deactivate) {
    events.push({ type: 'UserDeactivated', data: {} });
    events.push({ type: 'TokenVersionBumped', data: { tokenVersion: state.tokenVersion + 1, reason: 'deactivated' } });
    if (state.openTokens.length)
      events.push({ type: 'OneTimeTokensVoided', data: { tokenHashes: state.openTokens, reason: 'deactivated' } });
  }
  if (reactivate) events.push({ type: 'UserReactivated', data: {} });
  return events;
}

const decider: Decider<UpdateUser, UserState, UserEvent> = { ...userEvolution, decide: decideUpdateUser };

/**
 * Two streams, no transaction between them, so the order carries the guarantee. Seats are
 * kept a subset of the active admins: the seat is released BEFORE the user event that ends
 * the admin (the roster's optimistic append refuses the tenant's only seat, on any instance),
 * and granted AFTER the user event that makes one. A crash between the two leaves an admin
 * without a seat, which can only refuse a later removal, never let the last admin go. When
 * the user append fails after a release, the user is still an admin, so the seat is given
 * back; a removal elsewhere in that moment sees one seat fewer and is refused (409) rather
 * than allowed.
 */
export async function updateUser(
  deps: IdentityDeps,
  userId: string,
  input: { displayName?: string | null; roles?: Role[]; isActive?: boolean },
  context: CommandContext,
) {
  const current = await loadUser(deps.store, context.tenantId, userId);
  const adminSeatReleased = removesActiveAdmin(input, current);
  const seatGivenUp = adminSeatReleased && (await releaseAdminSeat(deps, userId, context));
  let result;
  try {
    result = await deps.handle(
      decider,
      userStream(context.tenantId, userId),
      { type: 'UpdateUser', ...input, adminSeatReleased },
      context,
    );
  } catch (error) {
    if (seatGivenUp) await grantAdminSeat(deps, userId, context);
    throw error;
  }
  // Also for an admin the change left as one: repairs a seat an earlier grant missed.
  if (isActiveAdmin(result.state)) await grantAdminSeat(deps, userId, context);
  deps.resolver.invalidate(userId);
  await voidTokenStreams(deps, result.events, context);
  return result;
}
