import type { PlatformDeps } from '../../src/platform/context-module';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import { Conflict, NotFound } from '../../src/platform/domain-errors';
import { type CaseResult, type RunEvent, type RunState, runAggregate } from '../../streams/evaluation/run';

/** One replayed case's grade, recorded as it is known (a stopped run keeps what it graded). */
export type GradeEvalCase = { type: 'GradeEvalCase'; result: CaseResult };

export function decideGradeEvalCase(command: GradeEvalCase, state: RunState): RunEvent[] {
  switch (command.type) {
    case 'GradeEvalCase':
      if (state.status === 'none') throw new NotFound('No such eval run');
      if (state.status === 'completed') throw new Conflict(`Eval run ${state.runId} is completed; its cases are final`);
      return [{ type: 'EvalCaseGraded', data: command.result }];
    default:
      return assertNever(command.type);
  }
}

export const gradeEvalCaseDecider: Decider<GradeEvalCase, RunState, RunEvent> = {
  ...runAggregate,
  decide: decideGradeEvalCase,
};

export async function gradeEvalCase(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  runId: string,
  result: CaseResult,
) {
  return deps.handle(
    gradeEvalCaseDecider,
    runAggregate.stream(context.tenantId, runId),
    { type: 'GradeEvalCase', result },
    context,
  );
}
