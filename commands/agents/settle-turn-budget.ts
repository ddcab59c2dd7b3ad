import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import { dailyUsageAggregate, DailyUsageEvent, DailyUsageState, tenantUsageStream, USAGE_WRITE_RETRIES, userUsageStream } from '../../streams/agents/daily-usage';

/**
 * Replaces a turn's reservation by what it used. Unknown usage (no provider reported it, or
 * no price for the model) settles at the reservation, never at 0: a turn whose usage nobody
 * knows cannot make room under the cap.
 */
export interface SettleTurnBudget {
  type: 'SettleTurnBudget';
  executionId: string;
  userId: string;
  /** The UTC day the reservation was made on. */
  day: string;
  tokensUsed: number | null;
  costUsd: number | null;
}

/** One stream's settlement; nothing when it holds no open reservation for the turn (settled already, or never reserved). */
export function decideSettleTurnBudget(command: SettleTurnBudget, state: DailyUsageState, now: Date): DailyUsageEvent[] {
  const held = state.open[command.executionId];
  if (!held) return [];
  const known = command.tokensUsed !== null && command.costUsd !== null;
  return [
    {
      type: 'UsageSettled',
      data: {
        executionId: command.executionId,
        userId: command.userId,
        tokens: command.tokensUsed ?? held.tokens,
        costUsd: command.costUsd ?? held.costUsd,
        reservedTokens: held.tokens,
        reservedCostUsd: held.costUsd,
        basis: known ? 'reported' : 'reservation',
        settledAt: now.toISOString(),
      },
    },
  ];
}

const settleIn: Decider<SettleTurnBudget, DailyUsageState, DailyUsageEvent> = { ...dailyUsageAggregate, decide: decideSettleTurnBudget };

/** Settles in the tenant's and the user's stream of the reservation's day, in one write (`exclusive`: see the reservation). */
export async function settleTurnBudget(deps: Pick<PlatformDeps, 'handle'>, context: CommandContext, command: SettleTurnBudget): Promise<void> {
  await deps.handle.together(
    [
      { decider: settleIn, stream: tenantUsageStream(context.tenantId, command.day), command, exclusive: true },
      { decider: settleIn, stream: userUsageStream(context.tenantId, command.userId, command.day), command, exclusive: true },
    ],
    context,
    { retries: USAGE_WRITE_RETRIES },
  );
}
