import { z } from 'zod';
import type { RecordedEvent } from '../../src/platform/eventstore/types';
import type { BudgetCaps } from './fields';

/**
 * A per-user daily budget override: caps one user below the tenant's daily caps,
 * which stay the aggregate ceiling. One stream per tenant and user.
 */
export type UserBudgetOverrideEvent =
  | {
      type: 'UserBudgetOverrideUpserted';
      data: BudgetCaps & { userId: string; previous: BudgetCaps | null; updatedBy: string; updatedAt: string };
    }
  | {
      type: 'UserBudgetOverrideDeleted';
      data: { userId: string; previous: BudgetCaps; deletedBy: string; deletedAt: string };
    };

export type UserBudgetOverrideState =
  | { status: 'none' }
  | ({ status: 'active'; userId: string; updatedBy: string; updatedAt: string } & BudgetCaps)
  | { status: 'deleted'; userId: string };

export const initialUserBudgetOverride: UserBudgetOverrideState = { status: 'none' };

export const userBudgetOverrideStream = (tenantId: string, userId: string) =>
  `settings.user-override-${tenantId}-${userId}`;

const Caps = z.object({ maxTokensPerDay: z.number().nullable(), maxCostUsdPerDay: z.number().nullable() });

const UpsertedSchema = Caps.extend({
  userId: z.string(),
  previous: Caps.nullable(),
  updatedBy: z.string(),
  updatedAt: z.string(),
});
const DeletedSchema = z.object({ userId: z.string(), previous: Caps, deletedBy: z.string(), deletedAt: z.string() });

export function readUserBudgetOverrideEvent(event: Pick<RecordedEvent, 'type' | 'data'>): UserBudgetOverrideEvent {
  switch (event.type) {
    case 'UserBudgetOverrideUpserted':
      return { type: event.type, data: UpsertedSchema.parse(event.data) };
    case 'UserBudgetOverrideDeleted':
      return { type: event.type, data: DeletedSchema.parse(event.data) };
    default:
      throw new Error(`not a budget override event: ${event.type}`);
  }
}

export function capsOf(state: UserBudgetOverrideState): BudgetCaps | null {
  return state.status === 'active'
    ? { maxTokensPerDay: state.maxTokensPerDay, maxCostUsdPerDay: state.maxCostUsdPerDay }
    : null;
}

export function evolveUserBudgetOverride(
  _state: UserBudgetOverrideState,
  event: UserBudgetOverrideEvent,
): UserBudgetOverrideState {
  switch (event.type) {
    case 'UserBudgetOverrideUpserted':
      return {
        status: 'active',
        userId: event.data.userId,
        maxTokensPerDay: event.data.maxTokensPerDay,
        maxCostUsdPerDay: event.data.maxCostUsdPerDay,
        updatedBy: event.data.updatedBy,
        updatedAt: event.data.updatedAt,
      };
    case 'UserBudgetOverrideDeleted':
      return { status: 'deleted', userId: event.data.userId };
  }
}

/** The per-user budget-override aggregate (one stream per tenant and user). */
export const userBudgetOverrideAggregate = {
  stream: userBudgetOverrideStream,
  eventTypes: ['UserBudgetOverrideUpserted', 'UserBudgetOverrideDeleted'] as const,
  initialState: initialUserBudgetOverride,
  evolve: evolveUserBudgetOverride,
  read: readUserBudgetOverrideEvent,
};
