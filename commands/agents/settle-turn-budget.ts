import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import {
  dailyUsageAggregate,
  type DailyUsageEvent,
  type DailyUsageState,
  tenantUsageStream,
  USAGE_WRITE_RETRIES,
  userUsageStream,
} from '../../streams/agents/daily-usage';

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
export function decideSettleTurnBudget(
  command: SettleTurnBudget,
  state: DailyUsageState,
  now: Date,
): DailyUsageEvent[] {
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

/**
 * Several turns' settlements in one stream, in order, each deciding on the state the ones
 * before it left: what a batch of finished turns settles in one write.
 */
export interface SettleTurnBudgets {
  type: 'SettleTurnBudgets';
  settlements: SettleTurnBudget[];
}

export function decideSettleTurnBudgets(
  command: SettleTurnBudgets,
  state: DailyUsageState,
  now: Date,
): DailyUsageEvent[] {
  const events: DailyUsageEvent[] = [];
  for (const settlement of command.settlements) {
    const decided = decideSettleTurnBudget(settlement, state, now);
    state = decided.reduce(dailyUsageAggregate.evolve, state);
    events.push(...decided);
  }
  return events;
}

const settleAllIn: Decider<SettleTurnBudgets, DailyUsageState, DailyUsageEvent> = {
  ...dailyUsageAggregate,
  decide: decideSettleTurnBudgets,
};

/** Settles in the tenant's and the user's stream of the reservation's day, in one write (`exclusive`: see the reservation). */
export async function settleTurnBudget(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  command: SettleTurnBudget,
): Promise<void> {
  await settleTurnBudgets(deps, context, [command]);
}

/**
 * Settles finished turns of one tenant in one write: each day's tenant stream takes all of
 * that day's settlements, each user's stream of the day its own. Under load the settlements
 * keep up with the reservations, which count against the caps until they are settled.
 */
export async function settleTurnBudgets(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  commands: SettleTurnBudget[],
): Promise<void> {
  const writes = settlementWrites(context.tenantId, commands);
  if (writes.length === 0) return;
  await deps.handle.together(writes, context, { retries: USAGE_WRITE_RETRIES });
}

/** The writes that settle `commands`: one per usage stream they touch (`exclusive`: see the reservation). */
export function settlementWrites(tenantId: string, commands: SettleTurnBudget[]) {
  const streams = new Map<string, SettleTurnBudget[]>();
  const add = (stream: string, command: SettleTurnBudget) => {
    const settlements = streams.get(stream);
    if (settlements) settlements.push(command);
    else streams.set(stream, [command]);
  };
  for (const command of commands) {
    add(tenantUsageStream(tenantId, command.day), command);
    add(userUsageStream(tenantId, command.userId, command.day), command);
  }
  return [...streams].map(([stream, settlements]) => ({
    decider: settleAllIn,
    stream,
    command: { type: 'SettleTurnBudgets' as const, settlements },
    exclusive: true,
  }));
}
