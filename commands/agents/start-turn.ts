import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict } from '../../src/platform/domain-errors';
import { turnAggregate, TurnEvent, TurnState } from '../../streams/agents/turn';

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

export async function startTurn(deps: Pick<PlatformDeps, 'handle'>, context: CommandContext, turn: StartTurn['turn']) {
  return deps.handle(decider, turnAggregate.stream(context.tenantId, turn.executionId), { type: 'StartTurn', turn }, context);
}
