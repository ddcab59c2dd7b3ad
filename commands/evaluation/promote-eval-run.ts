import type { PlatformDeps } from '../../src/platform/context-module';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import { assertNever, type Decider, fold } from '../../src/platform/command-handling/decider';
import { Conflict, NotFound } from '../../src/platform/domain-errors';
import {
  type BaselineEvent,
  type BaselineState,
  baselineAggregate,
  baselineKeyOf,
} from '../../streams/evaluation/baseline';
import { runAggregate, type RunState } from '../../streams/evaluation/run';

/**
 * POST /eval/runs/{id}/promote: a completed run becomes the baseline of its model; the
 * previous baseline of that tenant and model is demoted by the same event.
 */
export type PromoteEvalRun = { type: 'PromoteEvalRun'; run: RunState; actorId: string };

export function decidePromoteEvalRun(command: PromoteEvalRun, state: BaselineState, now: Date): BaselineEvent[] {
  switch (command.type) {
    case 'PromoteEvalRun': {
      const { run } = command;
      if (run.status === 'none') throw new NotFound('No such eval run');
      if (run.status !== 'completed')
        throw new Conflict(`Eval run ${run.runId} is not completed; only a completed run can become the baseline`);
      if (state.status === 'set' && state.runId === run.runId) return [];
      const previousRunId = state.status === 'set' ? state.runId : null;
      return [
        {
          type: 'BaselinePromoted',
          data: {
            modelId: run.modelId,
            runId: run.runId,
            previousRunId,
            promotedBy: command.actorId,
            promotedAt: now.toISOString(),
          },
        },
      ];
    }
    default:
      return assertNever(command.type);
  }
}

export const promoteEvalRunDecider: Decider<PromoteEvalRun, BaselineState, BaselineEvent> = {
  ...baselineAggregate,
  decide: decidePromoteEvalRun,
};

/** The run is read from its own stream (its status and model decide); the baseline stream is written. */
export async function promoteEvalRun(
  deps: Pick<PlatformDeps, 'handle' | 'store'>,
  context: CommandContext,
  runId: string,
) {
  const stored = await deps.store.readStream(runAggregate.stream(context.tenantId, runId));
  const run = fold(runAggregate, stored.map(runAggregate.read));
  if (run.status === 'none') throw new NotFound(`No eval run ${runId}`);
  const result = await deps.handle(
    promoteEvalRunDecider,
    baselineAggregate.stream(context.tenantId, baselineKeyOf(run.modelId)),
    { type: 'PromoteEvalRun', run, actorId: context.actorId },
    context,
  );
  return { run, events: result.events };
}
