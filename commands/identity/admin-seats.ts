import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import { Conflict } from '../../src/platform/domain-errors';
import type { IdentityDeps } from './identity-deps';
import { activeAdminIds } from '../../queries/identity/user-directory';
import {
  adminRosterEvolution,
  type AdminRosterEvent,
  type AdminRosterState,
  adminRosterStream,
} from '../../streams/identity/admin-roster';
import { isActiveAdmin } from '../../streams/identity/user';
import { loadUser } from './load-user';

/**
 * Seats on a tenant's admin roster (streams/identity/admin-roster.ts). `directoryAdmins`
 * is the user directory's list of the tenant's active admins, read by the caller: an
 * unopened roster starts from it, an open one ignores it.
 */
export type AdminSeatCommand =
  | { type: 'GrantAdminSeat'; userId: string; directoryAdmins: string[] }
  | { type: 'ReleaseAdminSeat'; userId: string; directoryAdmins: string[] };

export const LAST_ACTIVE_ADMIN = 'The last active admin cannot be removed';

export function decideAdminSeat(command: AdminSeatCommand, state: AdminRosterState): AdminRosterEvent[] {
  const seats = state.status === 'open' ? state.seats : [...new Set(command.directoryAdmins)];
  // The first command on a tenant writes where the roster starts, even when it changes no
  // seat, so the directory is consulted once per tenant and never again.
  const opening: AdminRosterEvent[] =
    state.status === 'open' ? [] : [{ type: 'AdminRosterOpened', data: { userIds: seats } }];
  const { userId } = command;
  switch (command.type) {
    case 'GrantAdminSeat':
      return seats.includes(userId) ? opening : [...opening, { type: 'AdminSeatGranted', data: { userId } }];
    case 'ReleaseAdminSeat':
      if (!seats.includes(userId)) return opening;
      if (seats.length === 1) throw new Conflict(LAST_ACTIVE_ADMIN);
      return [...opening, { type: 'AdminSeatReleased', data: { userId } }];
    default:
      return assertNever(command);
  }
}

export const adminSeatDecider: Decider<AdminSeatCommand, AdminRosterState, AdminRosterEvent> = {
  ...adminRosterEvolution,
  decide: decideAdminSeat,
};

async function runAdminSeatCommand(
  deps: IdentityDeps,
  type: AdminSeatCommand['type'],
  userId: string,
  context: CommandContext,
) {
  const directoryAdmins = await activeAdminIds(deps.knex, context.tenantId);
  return deps.handle(adminSeatDecider, adminRosterStream(context.tenantId), { type, userId, directoryAdmins }, context);
}

/**
 * Before a user stops being an active admin. Throws Conflict when theirs is the tenant's
 * only seat. Answers whether a seat was given up (false: the user held none).
 */
export async function releaseAdminSeat(deps: IdentityDeps, userId: string, context: CommandContext): Promise<boolean> {
  const { events } = await runAdminSeatCommand(deps, 'ReleaseAdminSeat', userId, context);
  return events.some((e) => e.type === 'AdminSeatReleased');
}

/**
 * After a user has become an active admin, or to repair a seat an earlier grant missed
 * (granting a held seat changes nothing). A failure is logged, not thrown: the user's own
 * change has happened, and a seat too few only ever refuses a removal, never allows one;
 * the user's next update grants it. A demotion that landed between the user's event and
 * this grant would leave a seat on a non-admin, so the user is read again afterwards and
 * such a seat given back.
 */
export async function grantAdminSeat(deps: IdentityDeps, userId: string, context: CommandContext): Promise<void> {
  try {
    const { events } = await runAdminSeatCommand(deps, 'GrantAdminSeat', userId, context);
    if (!events.some((e) => e.type === 'AdminSeatGranted')) return;
    if (isActiveAdmin(await loadUser(deps.store, context.tenantId, userId))) return;
    await releaseAdminSeat(deps, userId, context);
  } catch (error) {
    deps.logger.warn(
      { err: error, tenantId: context.tenantId, userId },
      'admin roster seat not granted; the next update of the user grants it',
    );
  }
}
