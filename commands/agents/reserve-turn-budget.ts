import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import { RateLimited, Unavailable } from '../../src/platform/domain-errors';
import { costOf } from '../../src/platform/infra/llm/model-prices';
import {
  committedCostUsd,
  committedTokens,
  type DailyCaps,
  dailyUsageAggregate,
  type DailyUsageEvent,
  type DailyUsageState,
  tenantUsageStream,
  usageDayOf,
  USAGE_WRITE_RETRIES,
  userUsageStream,
} from '../../streams/agents/daily-usage';

/**
 * A turn reserves its budget in the tenant's and the user's usage stream of the day before
 * it starts. `tenantCaps`/`userCaps` are the caps read
 * from settings; `'last-known'` when settings cannot be read, and then the caps the streams
 * applied last are used again — caps never fail open.
 */
export interface ReserveTurnBudget {
  type: 'ReserveTurnBudget';
  executionId: string;
  userId: string;
  tokens: number;
  costUsd: number;
  tenantCaps: DailyCaps | 'last-known';
  userCaps: DailyCaps | null | 'last-known';
}

const NO_CAPS: DailyCaps = { maxTokensPerDay: null, maxCostUsdPerDay: null };
/** An estimated turn sends its prompt about twice (a tool round re-sends it) and writes about this much. */
const ESTIMATED_REPLY_TOKENS = 1000;

/**
 * What a turn reserves: its per-turn token and cost ceilings; without a ceiling, an estimate
 * from its prompt (priced at the model's list price, 0 for an unpriced model).
 */
export function turnReservation(
  turn: { model: string; maxTokensPerExecution: number | null; maxCostUsdPerExecution: number | null },
  promptTokens: number,
): { tokens: number; costUsd: number } {
  const estimatedInput = 2 * promptTokens;
  const tokens = turn.maxTokensPerExecution ?? estimatedInput + ESTIMATED_REPLY_TOKENS;
  const costUsd = turn.maxCostUsdPerExecution ?? costOf(turn.model, estimatedInput, ESTIMATED_REPLY_TOKENS) ?? 0;
  return { tokens, costUsd };
}

/**
 * A turn is admitted while the day's committed usage (settled + reserved) is below each cap;
 * the refusal names the cap. The turn that crosses a cap is the one in-flight overshoot the
 * spec allows: its reservation is counted at once, so the next is refused.
 */
function refusal(who: 'tenant' | 'user', state: DailyUsageState, caps: DailyCaps): string | null {
  const tokens = committedTokens(state);
  const cost = committedCostUsd(state);
  if (caps.maxTokensPerDay !== null && tokens >= caps.maxTokensPerDay) {
    return who === 'tenant'
      ? `daily token cap of the tenant exhausted (${tokens} of ${caps.maxTokensPerDay})`
      : `your daily token cap is exhausted (${tokens} of ${caps.maxTokensPerDay})`;
  }
  if (caps.maxCostUsdPerDay !== null && cost >= caps.maxCostUsdPerDay) {
    return who === 'tenant'
      ? `daily cost cap of the tenant exhausted ($${cost.toFixed(4)} of $${caps.maxCostUsdPerDay})`
      : `your daily cost cap is exhausted ($${cost.toFixed(4)} of $${caps.maxCostUsdPerDay})`;
  }
  return null;
}

function capsIn(given: DailyCaps | null | 'last-known', state: DailyUsageState, who: string): DailyCaps {
  if (given !== 'last-known') return given ?? NO_CAPS;
  if (state.lastCaps === null)
    throw new Unavailable(`settings cannot be read and no ${who} daily cap is known for today yet; try again shortly`);
  return state.lastCaps;
}

/**
 * One usage stream's reservation: nothing if this stream holds the turn's reservation already
 * (a retry), a refusal naming the cap this stream's committed usage reached, else the reservation
 * with the caps applied (the last known caps later, should settings become unreadable).
 */
export function decideReservationIn(
  who: 'tenant' | 'user',
  command: ReserveTurnBudget,
  state: DailyUsageState,
  now: Date,
): DailyUsageEvent[] {
  if (state.open[command.executionId]) return [];
  // A user without an override is capped by the tenant alone; "last known" then means none.
  const caps =
    who === 'tenant'
      ? capsIn(command.tenantCaps, state, 'tenant')
      : command.userCaps === 'last-known'
        ? (state.lastCaps ?? NO_CAPS)
        : (command.userCaps ?? NO_CAPS);
  const refused = refusal(who, state, caps);
  if (refused) throw new RateLimited(refused);
  return [
    {
      type: 'UsageReserved',
      data: {
        executionId: command.executionId,
        userId: command.userId,
        tokens: command.tokens,
        costUsd: command.costUsd,
        caps,
        reservedAt: now.toISOString(),
      },
    },
  ];
}

/** Both streams' reservations, the tenant's refusal first. */
export function decideReserveTurnBudget(
  command: ReserveTurnBudget,
  tenant: DailyUsageState,
  user: DailyUsageState,
  now: Date,
): { tenant: DailyUsageEvent[]; user: DailyUsageEvent[] } {
  return {
    tenant: decideReservationIn('tenant', command, tenant, now),
    user: decideReservationIn('user', command, user, now),
  };
}

const reserveIn = (who: 'tenant' | 'user'): Decider<ReserveTurnBudget, DailyUsageState, DailyUsageEvent> => ({
  ...dailyUsageAggregate,
  decide: (command, state, now) => decideReservationIn(who, command, state, now),
});
const tenantReservation = reserveIn('tenant');
const userReservation = reserveIn('user');

/**
 * The reservation as two commands, on the tenant's and the user's stream of the day, to be
 * handled together (with the turn's start: a refused turn writes nothing). Every turn of a
 * tenant writes its day stream, so they are `exclusive`: this process's turns take turns
 * instead of racing into a 409; other replicas' writes are met by the retries.
 */
export function reserveTurnBudgetDecisions(tenantId: string, command: ReserveTurnBudget, day: string) {
  return [
    { decider: tenantReservation, stream: tenantUsageStream(tenantId, day), command, exclusive: true },
    { decider: userReservation, stream: userUsageStream(tenantId, command.userId, day), command, exclusive: true },
  ] as const;
}

/** Reserves in both streams in one write; answers the UTC day the reservation counts against. */
export async function reserveTurnBudget(
  deps: Pick<PlatformDeps, 'handle' | 'clock'>,
  context: CommandContext,
  command: ReserveTurnBudget,
): Promise<string> {
  // A reservation made across midnight counts against the day it began on.
  const day = usageDayOf(deps.clock());
  await deps.handle.together(reserveTurnBudgetDecisions(context.tenantId, command, day), context, {
    retries: USAGE_WRITE_RETRIES,
  });
  return day;
}
