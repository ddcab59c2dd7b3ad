import { z } from 'zod';
import type { Aggregate, EventsOf } from '../../src/platform/command-handling/aggregate';
import { eventReader } from '../../src/platform/command-handling/aggregate';

/**
 * Daily usage decided on the write side: one
 * stream per tenant and UTC day, one per user and day. A turn reserves its budget in both
 * before it starts (one atomic append, each at the revision read), and settles what it really
 * used when it ends. The daily caps are checked against reserved + settled, so concurrent turns
 * see each other's reservations instead of a read model that only counts finished turns.
 *
 * The state keeps totals and the reservations still open (bounded by the turns in flight).
 */
const Caps = z.object({ maxTokensPerDay: z.number().nullable(), maxCostUsdPerDay: z.number().nullable() });
export type DailyCaps = z.infer<typeof Caps>;

export const DailyUsageEventSchemas = {
  UsageReserved: z.object({
    executionId: z.string(),
    userId: z.string(),
    tokens: z.number().int(),
    costUsd: z.number(),
    /** The caps this stream's decision applied: the last known caps if settings cannot be read later. */
    caps: Caps,
    reservedAt: z.string(),
  }),
  UsageSettled: z.object({
    executionId: z.string(),
    userId: z.string(),
    /** What the turn used; its reservation when no provider reported usage (never 0 for unknown). */
    tokens: z.number().int(),
    costUsd: z.number(),
    reservedTokens: z.number().int(),
    reservedCostUsd: z.number(),
    /** `reported`: actual usage; `reservation`: usage unknown, settled at the reservation; `released`: the turn never began (recorded before the reservation and the turn's start became one write; read, no longer written). */
    basis: z.enum(['reported', 'reservation', 'released']),
    settledAt: z.string(),
  }),
};

export type DailyUsageEvent = EventsOf<typeof DailyUsageEventSchemas>;
export const readDailyUsageEvent = eventReader('daily usage', DailyUsageEventSchemas);

export interface DailyUsageState {
  settledTokens: number;
  settledCostUsd: number;
  reservedTokens: number;
  reservedCostUsd: number;
  /** executionId → its open reservation. */
  open: Record<string, { tokens: number; costUsd: number }>;
  lastCaps: DailyCaps | null;
}

export const emptyDailyUsage: DailyUsageState = {
  settledTokens: 0,
  settledCostUsd: 0,
  reservedTokens: 0,
  reservedCostUsd: 0,
  open: {},
  lastCaps: null,
};

export function evolveDailyUsage(state: DailyUsageState, event: DailyUsageEvent): DailyUsageState {
  switch (event.type) {
    case 'UsageReserved': {
      const d = event.data;
      return {
        ...state,
        reservedTokens: state.reservedTokens + d.tokens,
        reservedCostUsd: state.reservedCostUsd + d.costUsd,
        open: { ...state.open, [d.executionId]: { tokens: d.tokens, costUsd: d.costUsd } },
        lastCaps: d.caps,
      };
    }
    case 'UsageSettled': {
      const held = state.open[event.data.executionId];
      if (!held) return state;
      const open = { ...state.open };
      delete open[event.data.executionId];
      return {
        ...state,
        reservedTokens: state.reservedTokens - held.tokens,
        reservedCostUsd: state.reservedCostUsd - held.costUsd,
        settledTokens: state.settledTokens + event.data.tokens,
        settledCostUsd: state.settledCostUsd + event.data.costUsd,
        open,
      };
    }
  }
}

/** Reserved + settled: what the day's caps are checked against. */
export const committedTokens = (s: DailyUsageState) => s.settledTokens + s.reservedTokens;
export const committedCostUsd = (s: DailyUsageState) => s.settledCostUsd + s.reservedCostUsd;

export const dailyUsageAggregate: Aggregate<DailyUsageState, DailyUsageEvent> = {
  stream: (tenantId, id) => `agents.daily-usage-${tenantId}-${id}`,
  eventTypes: Object.keys(DailyUsageEventSchemas) as DailyUsageEvent['type'][],
  initialState: emptyDailyUsage,
  evolve: evolveDailyUsage,
  read: readDailyUsageEvent,
};

/** The tenant's usage stream of a UTC day (`YYYY-MM-DD`): the aggregate ceiling. */
export const tenantUsageStream = (tenantId: string, day: string) =>
  dailyUsageAggregate.stream(tenantId, `tenant-${day}`);
/** One user's usage stream of a UTC day. */
export const userUsageStream = (tenantId: string, userId: string, day: string) =>
  dailyUsageAggregate.stream(tenantId, `user-${userId}-${day}`);
export const usageDayOf = (now: Date) => now.toISOString().slice(0, 10);
/** Many turns of one tenant start and end at once: each must get its answer (run or 429), not a 409. */
export const USAGE_WRITE_RETRIES = 8;
