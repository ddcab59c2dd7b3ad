import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { PlatformDeps } from '../../src/platform/context-module';
import type { RecordedEvent } from '../../src/platform/eventstore/types';
import { reactionContext, type Reactor } from '../../src/platform/reactors/reactor';
import { readTurnEvent, TERMINAL_TURN_EVENTS, turnAggregate } from '../../streams/agents/turn';
import { type SettleTurnBudget, settleTurnBudget, settleTurnBudgets } from './settle-turn-budget';

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
  const tenantId = String((event.metadata as { tenantId?: string }).tenantId ?? '');
  const executionId = event.stream.slice(turnAggregate.stream(tenantId, '').length);
  const { reservation } = parsed.data;
  return {
    executionId,
    tokensUsed: parsed.data.outcome.tokensUsed,
    costUsd: parsed.data.outcome.costUsd,
    ...(reservation === undefined ? {} : { reservation }),
  };
}

/**
 * The settlement of a finished turn: the reservation its end names, or (an end recorded before
 * ends named it) its `TurnStarted`'s user and day; null for a turn that reserved nothing.
 */
async function settlementCommand(
  deps: Pick<PlatformDeps, 'store'>,
  tenantId: string,
  usage: FinishedTurnUsage,
): Promise<SettleTurnBudget | null> {
  const { reservation, ...settled } = usage;
  if (reservation !== undefined) return reservation && { type: 'SettleTurnBudget', ...settled, ...reservation };
  const [first] = await deps.store.readStream(turnAggregate.stream(tenantId, usage.executionId), { limit: 1 });
  const started = first ? readTurnEvent(first) : null;
  if (started?.type !== 'TurnStarted' || !started.data.budgetDay) return null;
  return { type: 'SettleTurnBudget', ...settled, userId: started.data.userId, day: started.data.budgetDay };
}

/**
 * Settles a finished turn in the usage streams of the day it reserved on (its `TurnStarted`
 * names the user and that day). A turn from before reservations reserved nothing: a no-op.
 */
export async function settleFinishedTurn(
  deps: Pick<PlatformDeps, 'store' | 'handle'>,
  context: CommandContext,
  usage: FinishedTurnUsage,
): Promise<void> {
  const command = await settlementCommand(deps, context.tenantId, usage);
  if (command) await settleTurnBudget(deps, context, command);
}

/**
 * `agents.budget-settlement`: a turn's end replaces its reservation by its usage. A batch of
 * ends settles per tenant in one write: a settlement finds its work done in the stream's
 * state when replayed, whatever batch it comes in (`decideSettleTurnBudget`), and one write
 * per turn fell behind the turns' own reservations on the tenant's hot daily stream.
 */
export const budgetSettlementReactor: Reactor = {
  name: 'agents.budget-settlement',
  handles: TERMINAL_TURN_EVENTS,
  async react(event, deps) {
    const usage = settlementOf(event);
    if (usage) await settleFinishedTurn(deps, reactionContext(event, 'settle-budget'), usage);
  },
  async reactBatch(events, deps) {
    const byTenant = new Map<string, { first: RecordedEvent; usages: FinishedTurnUsage[] }>();
    for (const event of events) {
      const usage = settlementOf(event);
      if (!usage) continue;
      const tenantId = reactionContext(event, 'settle-budget').tenantId;
      const group = byTenant.get(tenantId) ?? { first: event, usages: [] };
      group.usages.push(usage);
      byTenant.set(tenantId, group);
    }
    for (const [tenantId, { first, usages }] of byTenant) {
      const commands = (await Promise.all(usages.map((usage) => settlementCommand(deps, tenantId, usage)))).filter(
        (c): c is SettleTurnBudget => c !== null,
      );
      await settleTurnBudgets(deps, reactionContext(first, `settle-budgets-${usages.length}`), commands);
    }
  },
};
