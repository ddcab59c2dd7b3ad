import type { PlatformDeps } from '../../src/platform/context-module';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import { Conflict } from '../../src/platform/domain-errors';
import { type RunEvent, type RunState, runAggregate } from '../../streams/evaluation/run';

export type StartEvalRun = {
  type: 'StartEvalRun';
  runId: string;
  tag: string | null;
  modelId: string;
  gitSha: string | null;
  judgeThreshold: number;
  replay: 'live' | 'frozen';
};

export function decideStartEvalRun(command: StartEvalRun, state: RunState, now: Date): RunEvent[] {
  switch (command.type) {
    case 'StartEvalRun': {
      if (state.status !== 'none') throw new Conflict(`Eval run ${command.runId} already exists`);
      const { runId, tag, modelId, gitSha, judgeThreshold, replay } = command;
      return [
        {
          type: 'EvalRunStarted',
          data: { runId, tag, modelId, gitSha, judgeThreshold, replay, startedAt: now.toISOString() },
        },
      ];
    }
    default:
      return assertNever(command.type);
  }
}

export const startEvalRunDecider: Decider<StartEvalRun, RunState, RunEvent> = {
  ...runAggregate,
  decide: decideStartEvalRun,
};

export async function startEvalRun(deps: Pick<PlatformDeps, 'handle'>, context: CommandContext, command: StartEvalRun) {
  return deps.handle(startEvalRunDecider, runAggregate.stream(context.tenantId, command.runId), command, context);
}
