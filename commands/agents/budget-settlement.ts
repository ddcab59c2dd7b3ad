import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { PlatformDeps } from '../../src/platform/context-module';
import type { RecordedEvent } from '../../src/platform/eventstore/types';
import { reactionContext, Reactor } from '../../src/platform/reactors/reactor';
import { readTurnEvent, TERMINAL_TURN_EVENTS, turnAggregate } from '../../streams/agents/turn';
import { settleTurnBudget } from './settle-turn-budget';

/** What a finished turn settles: its id and the usage its outcome reports (null: unknown). */
export interface FinishedTurnUsage {
  executionId: string;
  tokensUsed: number | null;
  costUsd: number | null;
}

/** The reaction's pure mapping: a turn's terminal event → the usage to settle. */
export function settlementOf(event: RecordedEvent): FinishedTurnUsage | null {
  if (!TERMINAL_TURN_EVENTS.includes(event.type as never)) return null;
  const parsed = readTurnEvent(event);
  if (parsed.type !== 'TurnCompleted' && parsed.type !== 'TurnPaused' && parsed.type !== 'TurnFailed') return null;
  const tenantId = String((event.metadata as { tenantId?: string }).tenantId ?? '');
  const executionId = event.stream.slice(turnAggregate.stream(tenantId, '').length);
  return { executionId, tokensUsed: parsed.data.outcome.tokensUsed, costUsd: parsed.data.outcome.costUsd };
}

/**
 * Settles a finished turn in the usage streams of the day it reserved on (its `TurnStarted`
 * names the user and that day). A turn from before reservations reserved nothing: a no-op.
 */
export async function settleFinishedTurn(deps: Pick<PlatformDeps, 'store' | 'handle'>, context: CommandContext, usage: FinishedTurnUsage): Promise<void> {
  const [first] = await deps.store.readStream(turnAggregate.stream(context.tenantId, usage.executionId), { limit: 1 });
  const started = first ? readTurnEvent(first) : null;
  if (started?.type !== 'TurnStarted' || !started.data.budgetDay) return;
  await settleTurnBudget(deps, context, { type: 'SettleTurnBudget', ...usage, userId: started.data.userId, day: started.data.budgetDay });
}

/** `agents.budget-settlement`: a turn's end replaces its reservation by its usage. */
export const budgetSettlementReactor: Reactor = {
  name: 'agents.budget-settlement',
  handles: TERMINAL_TURN_EVENTS,
  async react(event, deps) {
    const usage = settlementOf(event);
    if (usage) await settleFinishedTurn(deps, reactionContext(event, 'settle-budget'), usage);
  },
};
