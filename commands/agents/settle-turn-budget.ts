import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import { appendAtomically } from '../../src/platform/command-handling/multi-stream-command';
import type { PlatformDeps } from '../../src/platform/context-module';
import { dailyUsageAggregate, DailyUsageEvent, DailyUsageState, tenantUsageStream, userUsageStream } from '../../streams/agents/daily-usage';
import { usageWriting } from './reserve-turn-budget';

/**
 * Replaces a turn's reservation by what it used. Unknown usage (no provider reported it, or
 * no price for the model) settles at the reservation, never at 0: a turn whose usage nobody
 * knows cannot make room under the cap. A turn that never began (`released`) settles at 0.
 */
export interface SettleTurnBudget {
  type: 'SettleTurnBudget';
  executionId: string;
  userId: string;
  /** The UTC day the reservation was made on. */
  day: string;
  tokensUsed: number | null;
  costUsd: number | null;
  released?: boolean;
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
        tokens: command.released ? 0 : (command.tokensUsed ?? held.tokens),
        costUsd: command.released ? 0 : (command.costUsd ?? held.costUsd),
        reservedTokens: held.tokens,
        reservedCostUsd: held.costUsd,
        basis: command.released ? 'released' : known ? 'reported' : 'reservation',
        settledAt: now.toISOString(),
      },
    },
  ];
}

export async function settleTurnBudget(deps: Pick<PlatformDeps, 'store' | 'projections' | 'logger' | 'config' | 'clock'>, context: CommandContext, command: SettleTurnBudget): Promise<void> {
  const streams = [tenantUsageStream(context.tenantId, command.day), userUsageStream(context.tenantId, command.userId, command.day)];
  const usage = usageWriting(deps.store, streams[0]);
  await appendAtomically(
    deps,
    context,
    async (now, scope) => {
      const loaded = await Promise.all(streams.map((stream) => usage.load(stream, scope)));
      const writes = loaded.map((l, i) => {
        const events = decideSettleTurnBudget(command, l.state, now);
        return { stream: streams[i], revision: l.revision, events, after: events.reduce(dailyUsageAggregate.evolve, l.state) };
      });
      return { writes, outcome: null };
    },
    usage.options,
  );
}
