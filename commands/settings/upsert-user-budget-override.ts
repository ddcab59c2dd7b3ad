import type { PlatformDeps } from '../../src/platform/context-module';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import { ValidationFailed } from '../../src/platform/domain-errors';
import { AUDIT_ACTIONS, type BudgetCaps } from '../../streams/settings/fields';
import {
  capsOf,
  evolveUserBudgetOverride,
  initialUserBudgetOverride,
  readUserBudgetOverrideEvent,
  type UserBudgetOverrideEvent,
  type UserBudgetOverrideState,
  userBudgetOverrideStream,
} from '../../streams/settings/user-budget-override';
import { costPerDay, exactObject, tokensPerDay } from './field-schemas';

const CAP_FIELDS = ['max_tokens_per_day', 'max_cost_usd_per_day'];
const NOTHING_SET = 'at least one of max_tokens_per_day, max_cost_usd_per_day must be set';

/**
 * PUT /settings/user-overrides/{user_id}: at least one cap set (non-null). Like PUT
 * /settings, an absent field keeps the stored value and null clears it.
 */
export const UpsertUserBudgetOverrideBody = exactObject({
  max_tokens_per_day: tokensPerDay.nullable().optional(),
  max_cost_usd_per_day: costPerDay.nullable().optional(),
}).superRefine((body, ctx) => {
  if (body.max_tokens_per_day == null && body.max_cost_usd_per_day == null) {
    for (const field of CAP_FIELDS) {
      ctx.addIssue({ code: 'custom', path: [field], message: NOTHING_SET, params: { type: 'missing' } });
    }
  }
});

export type UpsertUserBudgetOverride = {
  type: 'UpsertUserBudgetOverride';
  userId: string;
  caps: Partial<BudgetCaps>;
  actorId: string;
};

export function upsertUserBudgetOverrideCommand(
  userId: string,
  body: { max_tokens_per_day?: number | null; max_cost_usd_per_day?: number | null },
  actorId: string,
): UpsertUserBudgetOverride {
  const caps: Partial<BudgetCaps> = {};
  if (body.max_tokens_per_day !== undefined) caps.maxTokensPerDay = body.max_tokens_per_day;
  if (body.max_cost_usd_per_day !== undefined) caps.maxCostUsdPerDay = body.max_cost_usd_per_day;
  return { type: 'UpsertUserBudgetOverride', userId, caps, actorId };
}

export const upsertUserBudgetOverrideDecider: Decider<
  UpsertUserBudgetOverride,
  UserBudgetOverrideState,
  UserBudgetOverrideEvent
> = {
  initialState: initialUserBudgetOverride,
  evolve: evolveUserBudgetOverride,
  read: readUserBudgetOverrideEvent,
  decide(command, state, now) {
    switch (command.type) {
      case 'UpsertUserBudgetOverride': {
        const previous = capsOf(state);
        const next: BudgetCaps = {
          maxTokensPerDay:
            command.caps.maxTokensPerDay !== undefined
              ? command.caps.maxTokensPerDay
              : (previous?.maxTokensPerDay ?? null),
          maxCostUsdPerDay:
            command.caps.maxCostUsdPerDay !== undefined
              ? command.caps.maxCostUsdPerDay
              : (previous?.maxCostUsdPerDay ?? null),
        };
        if (next.maxTokensPerDay === null && next.maxCostUsdPerDay === null) {
          // The body schema refuses this already; repeated so the aggregate never holds an empty override.
          throw new ValidationFailed(
            CAP_FIELDS.map((field) => ({ loc: ['body', field], msg: NOTHING_SET, type: 'missing' })),
          );
        }
        if (
          previous &&
          previous.maxTokensPerDay === next.maxTokensPerDay &&
          previous.maxCostUsdPerDay === next.maxCostUsdPerDay
        )
          return [];
        return [
          {
            type: 'UserBudgetOverrideUpserted',
            data: {
              userId: command.userId,
              ...next,
              previous,
              updatedBy: command.actorId,
              updatedAt: now.toISOString(),
            },
          },
        ];
      }
      default:
        return assertNever(command.type);
    }
  },
};

export async function upsertUserBudgetOverride(
  deps: Pick<PlatformDeps, 'handle'>,
  tenantId: string,
  command: UpsertUserBudgetOverride,
): Promise<UserBudgetOverrideState> {
  const { state } = await deps.handle(
    upsertUserBudgetOverrideDecider,
    userBudgetOverrideStream(tenantId, command.userId),
    command,
    {
      tenantId,
      actorId: command.actorId,
      metadata: { action: AUDIT_ACTIONS.overrideUpsert },
    },
  );
  return state;
}
