import type { PlatformDeps } from '../../src/platform/context-module';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import { NotFound } from '../../src/platform/domain-errors';
import { AUDIT_ACTIONS } from '../../streams/settings/fields';
import {
  capsOf,
  evolveUserBudgetOverride,
  initialUserBudgetOverride,
  readUserBudgetOverrideEvent,
  type UserBudgetOverrideEvent,
  type UserBudgetOverrideState,
  userBudgetOverrideStream,
} from '../../streams/settings/user-budget-override';

/** DELETE /settings/user-overrides/{user_id}: the user falls back to the tenant's caps. */
export type DeleteUserBudgetOverride = { type: 'DeleteUserBudgetOverride'; userId: string; actorId: string };

export const deleteUserBudgetOverrideDecider: Decider<
  DeleteUserBudgetOverride,
  UserBudgetOverrideState,
  UserBudgetOverrideEvent
> = {
  initialState: initialUserBudgetOverride,
  evolve: evolveUserBudgetOverride,
  read: readUserBudgetOverrideEvent,
  decide(command, state, now) {
    switch (command.type) {
      case 'DeleteUserBudgetOverride': {
        const previous = capsOf(state);
        if (!previous) throw new NotFound('No budget override for this user');
        return [
          {
            type: 'UserBudgetOverrideDeleted',
            data: { userId: command.userId, previous, deletedBy: command.actorId, deletedAt: now.toISOString() },
          },
        ];
      }
      default:
        return assertNever(command.type);
    }
  },
};

export async function deleteUserBudgetOverride(
  deps: Pick<PlatformDeps, 'handle'>,
  tenantId: string,
  command: DeleteUserBudgetOverride,
): Promise<void> {
  await deps.handle(deleteUserBudgetOverrideDecider, userBudgetOverrideStream(tenantId, command.userId), command, {
    tenantId,
    actorId: command.actorId,
    metadata: { action: AUDIT_ACTIONS.overrideDelete },
  });
}
