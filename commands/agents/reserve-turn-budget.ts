import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import { appendAtomically, loadAggregate, LoadScope, StreamStates } from '../../src/platform/command-handling/multi-stream-command';
import type { PlatformDeps } from '../../src/platform/context-module';
import type { EventStore } from '../../src/platform/eventstore/types';
import { RateLimited, Unavailable } from '../../src/platform/domain-errors';
import { costOf } from '../../src/platform/infra/llm/model-prices';
import {
  committedCostUsd,
  committedTokens,
  DailyCaps,
  dailyUsageAggregate,
  DailyUsageEvent,
  DailyUsageState,
  tenantUsageStream,
  usageDayOf,
  USAGE_WRITE_RETRIES,
  userUsageStream,
} from '../../streams/agents/daily-usage';

/**
 * A turn reserves its budget in the tenant's and the user's usage stream of the day before
 * it starts (spec 1 §4 items 2–4; issue 24 item 5). `tenantCaps`/`userCaps` are the caps read
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
export function turnReservation(turn: { model: string; maxTokensPerExecution: number | null; maxCostUsdPerExecution: number | null }, promptTokens: number): { tokens: number; costUsd: number } {
  const estimatedInput = 2 * promptTokens;
  const tokens = turn.maxTokensPerExecution ?? estimatedInput + ESTIMATED_REPLY_TOKENS;
  const costUsd = turn.maxCostUsdPerExecution ?? costOf(turn.model, estimatedInput, ESTIMATED_REPLY_TOKENS) ?? 0;
  return { tokens, costUsd };
}

/**
 * A turn is admitted while the day's committed usage (settled + reserved) is below each cap;
 * the refusal names the cap. The turn that crosses a cap is the one in-flight overshoot the
 * spec allows (spec 1 §4 item 3): its reservation is counted at once, so the next is refused.
 */
function refusal(who: 'tenant' | 'user', state: DailyUsageState, caps: DailyCaps): string | null {
  const tokens = committedTokens(state);
  const cost = committedCostUsd(state);
  if (caps.maxTokensPerDay !== null && tokens >= caps.maxTokensPerDay) {
    return who === 'tenant' ? `daily token cap of the tenant exhausted (${tokens} of ${caps.maxTokensPerDay})` : `your daily token cap is exhausted (${tokens} of ${caps.maxTokensPerDay})`;
  }
  if (caps.maxCostUsdPerDay !== null && cost >= caps.maxCostUsdPerDay) {
    return who === 'tenant' ? `daily cost cap of the tenant exhausted ($${cost.toFixed(4)} of $${caps.maxCostUsdPerDay})` : `your daily cost cap is exhausted ($${cost.toFixed(4)} of $${caps.maxCostUsdPerDay})`;
  }
  return null;
}

function capsIn(given: DailyCaps | null | 'last-known', state: DailyUsageState, who: string): DailyCaps {
  if (given !== 'last-known') return given ?? NO_CAPS;
  if (state.lastCaps === null) throw new Unavailable(`settings cannot be read and no ${who} daily cap is known for today yet; try again shortly`);
  return state.lastCaps;
}

export function decideReserveTurnBudget(command: ReserveTurnBudget, tenant: DailyUsageState, user: DailyUsageState, now: Date): { tenant: DailyUsageEvent[]; user: DailyUsageEvent[] } {
  if (tenant.open[command.executionId] && user.open[command.executionId]) return { tenant: [], user: [] };
  const tenantCaps = capsIn(command.tenantCaps, tenant, 'tenant');
  // A user without an override is capped by the tenant alone; "last known" then means none.
  const userCaps = command.userCaps === 'last-known' ? (user.lastCaps ?? NO_CAPS) : (command.userCaps ?? NO_CAPS);
  const refused = refusal('tenant', tenant, tenantCaps) ?? refusal('user', user, userCaps);
  if (refused) throw new RateLimited(refused);
  const reserved = (caps: DailyCaps): DailyUsageEvent => ({
    type: 'UsageReserved',
    data: { executionId: command.executionId, userId: command.userId, tokens: command.tokens, costUsd: command.costUsd, caps, reservedAt: now.toISOString() },
  });
  return { tenant: tenant.open[command.executionId] ? [] : [reserved(tenantCaps)], user: user.open[command.executionId] ? [] : [reserved(userCaps)] };
}

const statesByStore = new WeakMap<EventStore, StreamStates<DailyUsageState>>();

/**
 * How a turn reads and writes the usage streams of a tenant's day, which all its turns write
 * twice (reserve, settle): from the states this process folded before, reading only the new
 * events (not the day from its first turn), and one writer at a time in this process (keyed by
 * the tenant's stream, under which its users' streams are always written), so colleagues' turns
 * never race each other into a 409; other replicas' writes are met by the retries.
 */
export function usageWriting(store: EventStore, tenantStream: string) {
  let states = statesByStore.get(store);
  if (!states) statesByStore.set(store, (states = new StreamStates<DailyUsageState>()));
  const cache = states;
  return {
    load: (stream: string, scope?: LoadScope) => loadAggregate(store, dailyUsageAggregate, stream, cache, scope),
    options: { retries: USAGE_WRITE_RETRIES, exclusive: [tenantStream], states: cache as StreamStates<unknown> },
  };
}

/** Reserves atomically in both streams; answers the UTC day the reservation counts against. */
export async function reserveTurnBudget(deps: Pick<PlatformDeps, 'store' | 'projections' | 'logger' | 'config' | 'clock'>, context: CommandContext, command: ReserveTurnBudget): Promise<string> {
  // The day is read before the lock is taken; a reservation made across midnight counts against the day it began on.
  const day = usageDayOf(deps.clock());
  const tenantStream = tenantUsageStream(context.tenantId, day);
  const userStream = userUsageStream(context.tenantId, command.userId, day);
  const usage = usageWriting(deps.store, tenantStream);
  const { outcome } = await appendAtomically(
    deps,
    context,
    async (now, scope) => {
      const [tenant, user] = await Promise.all([usage.load(tenantStream, scope), usage.load(userStream, scope)]);
      const decided = decideReserveTurnBudget(command, tenant.state, user.state, now);
      return {
        writes: [
          { stream: tenantStream, revision: tenant.revision, events: decided.tenant, after: decided.tenant.reduce(dailyUsageAggregate.evolve, tenant.state) },
          { stream: userStream, revision: user.revision, events: decided.user, after: decided.user.reduce(dailyUsageAggregate.evolve, user.state) },
        ],
        outcome: day,
      };
    },
    usage.options,
  );
  return outcome;
}
