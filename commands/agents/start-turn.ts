import type { CommandContext, Decision } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict } from '../../src/platform/domain-errors';
import { turnAggregate, type TurnEvent, type TurnState } from '../../streams/agents/turn';

type Started = Extract<TurnEvent, { type: 'TurnStarted' }>['data'];

export interface StartTurn {
  type: 'StartTurn';
  turn: Omit<Started, 'startedAt'>;
}

/** A turn starts once; a retried start with the same execution id is a no-op. */
export function decideStartTurn(command: StartTurn, state: TurnState, now: Date): TurnEvent[] {
  if (state.status !== 'none') {
    if (state.conversationId === command.turn.conversationId && state.userId === command.turn.userId) return [];
    throw new Conflict('execution id already in use');
  }
  return [{ type: 'TurnStarted', data: { ...command.turn, startedAt: now.toISOString() } }];
}

const decider: Decider<StartTurn, TurnState, TurnEvent> = { ...turnAggregate, decide: decideStartTurn };

/** Starting a turn, as one of several commands handled together (with the user's message). */
export function startTurnDecision(
  tenantId: string,
  turn: StartTurn['turn'],
): Decision<StartTurn, TurnState, TurnEvent> {
  return { decider, stream: turnAggregate.stream(tenantId, turn.executionId), command: { type: 'StartTurn', turn } };
}

export async function startTurn(deps: Pick<PlatformDeps, 'handle'>, context: CommandContext, turn: StartTurn['turn']) {
  const { stream, command } = startTurnDecision(context.tenantId, turn);
  return deps.handle(decider, stream, command, context);
}
