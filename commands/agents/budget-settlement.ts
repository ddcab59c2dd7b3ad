import type { RecordedEvent } from '../../src/platform/eventstore/types';
import { type FactReader, type ReactionCommand, type Reactor, tenantOf } from '../../src/platform/reactors/reactor';
import { USAGE_WRITE_RETRIES } from '../../streams/agents/daily-usage';
import { readTurnEvent, TERMINAL_TURN_EVENTS, turnAggregate } from '../../streams/agents/turn';
import { type SettleTurnBudget, settlementWrites } from './settle-turn-budget';

/** What a finished turn settles: its id and the usage its outcome reports (null: unknown). */
export interface FinishedTurnUsage {
  executionId: string;
  tokensUsed: number | null;
  costUsd: number | null;
  /** The reservation its end names (null: none); undefined for an end that predates the field. */
  reservation?: { userId: string; day: string } | null;
}

/** The reaction's pure mapping: a turn's terminal event → the usage to settle. */
export function settlementOf(event: RecordedEvent): FinishedTurnUsage | null {
  if (!TERMINAL_TURN_EVENTS.includes(event.type as never)) return null;
  const parsed = readTurnEvent(event);
  if (parsed.type !== 'TurnCompleted' && parsed.type !== 'TurnPaused' && parsed.type !== 'TurnFailed') return null;
  const executionId = event.stream.slice(turnAggregate.stream(tenantOf(event), '').length);
  const { reservation } = parsed.data;
  return {
    executionId,
    tokensUsed: parsed.data.outcome.tokensUsed,
    costUsd: parsed.data.outcome.costUsd,
    ...(reservation === undefined ? {} : { reservation }),
  };
}

/** What a settlement decides from: for ends recorded before ends named their reservation, each turn's start. */
export type TurnStarts = ReadonlyMap<string, { userId: string; day: string } | null>;

/**
 * The settlement of a finished turn: the reservation its end names, or (an end recorded before
 * ends named it) its `TurnStarted`'s user and day; null for a turn that reserved nothing.
 */
export function settlementCommand(usage: FinishedTurnUsage, starts: TurnStarts): SettleTurnBudget | null {
  const { reservation, ...settled } = usage;
  if (reservation !== undefined) return reservation && { type: 'SettleTurnBudget', ...settled, ...reservation };
  const started = starts.get(usage.executionId);
  return started ? { type: 'SettleTurnBudget', ...settled, ...started } : null;
}

/** The starts of the finished turns whose ends do not name their reservation (older ends). */
async function turnStarts(events: RecordedEvent[], read: FactReader): Promise<TurnStarts> {
  const starts = new Map<string, { userId: string; day: string } | null>();
  for (const event of events) {
    const usage = settlementOf(event);
    if (!usage || usage.reservation !== undefined || starts.has(usage.executionId)) continue;
    const [first] = await read.store.readStream(turnAggregate.stream(tenantOf(event), usage.executionId), { limit: 1 });
    const started = first ? readTurnEvent(first) : null;
    starts.set(
      usage.executionId,
      started?.type === 'TurnStarted' && started.data.budgetDay
        ? { userId: started.data.userId, day: started.data.budgetDay }
        : null,
    );
  }
  return starts;
}

/** The command settling `commands` of one tenant in one write; none when nothing is to settle. */
function settle(tenantId: string, step: string, commands: SettleTurnBudget[]): ReactionCommand[] {
  const writes = settlementWrites(tenantId, commands);
  return writes.length === 0 ? [] : [{ step, writes, retries: USAGE_WRITE_RETRIES }];
}

/**
 * `agents.budget-settlement`: a turn's end replaces its reservation by its usage. A batch of
 * ends settles per tenant in one write: a settlement finds its work done in the stream's
 * state when replayed, whatever batch it comes in (`decideSettleTurnBudget`), and one write
 * per turn fell behind the turns' own reservations on the tenant's hot daily stream.
 */
export const budgetSettlementReactor: Reactor<TurnStarts, TurnStarts> = {
  name: 'agents.budget-settlement',
  handles: TERMINAL_TURN_EVENTS,
  facts: (event, read) => turnStarts([event], read),
  react(event, starts) {
    const usage = settlementOf(event);
    const command = usage && settlementCommand(usage, starts);
    return command ? settle(tenantOf(event), 'settle-budget', [command]) : [];
  },
  batchFacts: turnStarts,
  reactBatch(events, starts) {
    const byTenant = new Map<string, { first: RecordedEvent; commands: SettleTurnBudget[]; ends: number }>();
    for (const event of events) {
      const usage = settlementOf(event);
      if (!usage) continue;
      const tenantId = tenantOf(event);
      const group = byTenant.get(tenantId) ?? { first: event, commands: [], ends: 0 };
      group.ends++;
      const command = settlementCommand(usage, starts);
      if (command) group.commands.push(command);
      byTenant.set(tenantId, group);
    }
    return [...byTenant].flatMap(([tenantId, { first, commands, ends }]) =>
      settle(tenantId, `settle-budgets-${ends}`, commands).map((command) => ({ cause: first, command })),
    );
  },
};
