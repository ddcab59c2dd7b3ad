import type { PlatformDeps } from '../../src/platform/context-module';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import { NotFound } from '../../src/platform/domain-errors';
import { type RunEvent, type RunState, runAggregate } from '../../streams/evaluation/run';

/** The totals come from the fold of the graded cases, never from the caller. */
export type CompleteEvalRun = { type: 'CompleteEvalRun' };

export function decideCompleteEvalRun(command: CompleteEvalRun, state: RunState, now: Date): RunEvent[] {
  switch (command.type) {
    case 'CompleteEvalRun': {
      if (state.status === 'none') throw new NotFound('No such eval run');
      if (state.status === 'completed') return [];
      const { nCases, nPass, nFail, nDegraded, tokensUsed } = state;
      const costUsd = Math.round(state.costUsd * 1e6) / 1e6;
      return [
        {
          type: 'EvalRunCompleted',
          data: { nCases, nPass, nFail, nDegraded, tokensUsed, costUsd, completedAt: now.toISOString() },
        },
      ];
    }
    default:
      return assertNever(command.type);
  }
}

export const completeEvalRunDecider: Decider<CompleteEvalRun, RunState, RunEvent> = {
  ...runAggregate,
  decide: decideCompleteEvalRun,
};

export async function completeEvalRun(deps: Pick<PlatformDeps, 'handle'>, context: CommandContext, runId: string) {
  return deps.handle(
    completeEvalRunDecider,
    runAggregate.stream(context.tenantId, runId),
    { type: 'CompleteEvalRun' },
    context,
  );
}
