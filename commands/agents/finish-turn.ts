import type { CommandContext, Decision } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict, NotFound } from '../../src/platform/domain-errors';
import {
  type ProgressEvent,
  type TurnOutcome,
  turnAggregate,
  type TurnEvent,
  type TurnState,
} from '../../streams/agents/turn';

type Usage = Extract<TurnEvent, { type: 'UsageRecorded' }>['data'];

export interface FinishTurn {
  type: 'FinishTurn';
  outcome: TurnOutcome;
  usage: Omit<Usage, 'day'>;
  /** The last nodes' completions, appended in the same write as the end. */
  progress?: ProgressEvent[];
}

/**
 * Ends a running turn: the progress still to record, its usage (the daily-cap counters fold it) and one terminal event
 * chosen by the outcome: paused for review, completed, or failed.
 */
export function decideFinishTurn(command: FinishTurn, state: TurnState, now: Date): TurnEvent[] {
  if (state.status === 'none') throw new NotFound('turn not found');
  if (state.status !== 'running') throw new Conflict(`the turn has already ended (${state.status})`);
  const finishedAt = now.toISOString();
  const { outcome } = command;
  const usage: TurnEvent = { type: 'UsageRecorded', data: { ...command.usage, day: finishedAt.slice(0, 10) } };
  const before: TurnEvent[] = [...(command.progress ?? []), usage];
  // The end names the reservation it settles, so the settlement reads nothing back.
  const reservation = state.budgetDay ? { userId: state.userId, day: state.budgetDay } : null;
  switch (outcome.status) {
    case 'awaiting_hitl':
      if (!outcome.hitlApprovalId || !outcome.hitlCheckpointType)
        throw new Error('a paused turn needs its approval id and checkpoint type');
      return [
        ...before,
        {
          type: 'TurnPaused',
          data: {
            approvalId: outcome.hitlApprovalId,
            checkpointType: outcome.hitlCheckpointType,
            outcome,
            finishedAt,
            reservation,
          },
        },
      ];
    case 'completed':
      return [...before, { type: 'TurnCompleted', data: { outcome, finishedAt, reservation } }];
    case 'error':
      return [
        ...before,
        { type: 'TurnFailed', data: { error: outcome.error ?? 'turn failed', outcome, finishedAt, reservation } },
      ];
  }
}

const decider: Decider<FinishTurn, TurnState, TurnEvent> = { ...turnAggregate, decide: decideFinishTurn };

/** Ending a turn, as one of several commands handled together (with the turn's last messages). */
export function finishTurnDecision(
  tenantId: string,
  executionId: string,
  command: Omit<FinishTurn, 'type'>,
): Decision<FinishTurn, TurnState, TurnEvent> {
  return { decider, stream: turnAggregate.stream(tenantId, executionId), command: { type: 'FinishTurn', ...command } };
}

export async function finishTurn(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  executionId: string,
  command: Omit<FinishTurn, 'type'>,
) {
  const { stream, command: finish } = finishTurnDecision(context.tenantId, executionId, command);
  return deps.handle(decider, stream, finish, context);
}
