import type { CommandContext, Decision } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict, NotFound } from '../../src/platform/domain-errors';
import { type ProgressEvent, turnAggregate, type TurnEvent, type TurnState } from '../../streams/agents/turn';

export interface RecordTurnProgress {
  type: 'RecordTurnProgress';
  events: ProgressEvent[];
}

/** Progress (nodes, tool calls, skills) is recorded only while the turn runs. */
export function decideRecordTurnProgress(command: RecordTurnProgress, state: TurnState): TurnEvent[] {
  if (state.status === 'none') throw new NotFound('turn not found');
  if (state.status !== 'running') throw new Conflict(`the turn has already ended (${state.status})`);
  return command.events;
}

const decider: Decider<RecordTurnProgress, TurnState, TurnEvent> = {
  ...turnAggregate,
  decide: (command, state) => decideRecordTurnProgress(command, state),
};

/** Recording progress, as one of several commands handled together (with the turn's messages). */
export function recordTurnProgressDecision(
  tenantId: string,
  executionId: string,
  events: ProgressEvent[],
): Decision<RecordTurnProgress, TurnState, TurnEvent> {
  return {
    decider,
    stream: turnAggregate.stream(tenantId, executionId),
    command: { type: 'RecordTurnProgress', events },
  };
}

export async function recordTurnProgress(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  executionId: string,
  events: ProgressEvent[],
) {
  return deps.handle(
    decider,
    turnAggregate.stream(context.tenantId, executionId),
    { type: 'RecordTurnProgress', events },
    context,
  );
}
