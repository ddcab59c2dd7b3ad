import { expect } from 'chai';
import { given } from '../../support/given';
import { Conflict, NotFound } from '../../../src/platform/domain-errors';
import { fold } from '../../../src/platform/command-handling/decider';
import { startEvalRunDecider } from '../../../commands/evaluation/start-eval-run';
import { gradeEvalCaseDecider } from '../../../commands/evaluation/grade-eval-case';
import { completeEvalRunDecider } from '../../../commands/evaluation/complete-eval-run';
import { promoteEvalRunDecider } from '../../../commands/evaluation/promote-eval-run';
import { type CaseResult, runAggregate, type RunEvent } from '../../../streams/evaluation/run';

const at = '2026-01-15T12:00:00.000Z';
const started: RunEvent = {
  type: 'EvalRunStarted',
  data: {
    runId: 'run-1',
    tag: null,
    modelId: 'builtin/deterministic',
    gitSha: 'abc',
    judgeThreshold: 0.5,
    replay: 'live',
    startedAt: at,
  },
};
const graded = (verdict: CaseResult['verdict'], tokensUsed = 10): RunEvent => ({
  type: 'EvalCaseGraded',
  data: {
    caseSource: 'expert',
    caseRef: `case-${verdict}`,
    executionId: 'e',
    grader: 'llm_judge',
    verdict,
    judgeScore: 0.5,
    violations: { rationale: 'r' },
    replayExecutionId: null,
    tokensUsed,
    costUsd: 0.001,
  },
});
const completed: RunEvent = {
  type: 'EvalRunCompleted',
  data: { nCases: 3, nPass: 1, nFail: 1, nDegraded: 1, tokensUsed: 30, costUsd: 0.003, completedAt: at },
};

describe('eval run deciders', () => {
  it('a run starts once', () => {
    given(startEvalRunDecider)
      .when({
        type: 'StartEvalRun',
        runId: 'run-1',
        tag: null,
        modelId: 'builtin/deterministic',
        gitSha: 'abc',
        judgeThreshold: 0.5,
        replay: 'live',
      })
      .then([started]);
    given(startEvalRunDecider, [started])
      .when({
        type: 'StartEvalRun',
        runId: 'run-1',
        tag: null,
        modelId: 'm',
        gitSha: null,
        judgeThreshold: 0.5,
        replay: 'live',
      })
      .thenThrows(Conflict);
  });

  it('completing totals the graded cases from the fold', () => {
    given(completeEvalRunDecider, [started, graded('pass'), graded('fail'), graded('degraded')])
      .when({ type: 'CompleteEvalRun' })
      .then([completed]);
  });

  it('a completed run takes no more cases; an unknown run takes none', () => {
    given(gradeEvalCaseDecider, [started, completed])
      .when({ type: 'GradeEvalCase', result: graded('pass').data as CaseResult })
      .thenThrows(Conflict, /completed/);
    given(gradeEvalCaseDecider)
      .when({ type: 'GradeEvalCase', result: graded('pass').data as CaseResult })
      .thenThrows(NotFound);
  });

  it('promotion: only a completed run; the previous baseline of the model is named as demoted; promoting the baseline again changes nothing', () => {
    const done = fold(runAggregate, [started, graded('pass'), completed]);
    const running = fold(runAggregate, [started]);
    given(promoteEvalRunDecider)
      .when({ type: 'PromoteEvalRun', run: running, actorId: 'admin' })
      .thenThrows(Conflict, /not completed/);
    given(promoteEvalRunDecider)
      .when({ type: 'PromoteEvalRun', run: done, actorId: 'admin' })
      .then([
        {
          type: 'BaselinePromoted',
          data: {
            modelId: 'builtin/deterministic',
            runId: 'run-1',
            previousRunId: null,
            promotedBy: 'admin',
            promotedAt: at,
          },
        },
      ]);
    const previous = {
      type: 'BaselinePromoted' as const,
      data: {
        modelId: 'builtin/deterministic',
        runId: 'run-0',
        previousRunId: null,
        promotedBy: 'admin',
        promotedAt: at,
      },
    };
    const [event] = given(promoteEvalRunDecider, [previous])
      .when({ type: 'PromoteEvalRun', run: done, actorId: 'admin' })
      .events();
    expect(event.data).to.include({ runId: 'run-1', previousRunId: 'run-0' });
    given(promoteEvalRunDecider, [{ ...previous, data: { ...previous.data, runId: 'run-1' } }])
      .when({ type: 'PromoteEvalRun', run: done, actorId: 'admin' })
      .thenNothing();
  });

  it('a run snapshot round-trips its counters', () => {
    const state = fold(runAggregate, [started, graded('pass'), graded('fail')]);
    const policy = runAggregate.snapshot!;
    expect(policy.fromJSON(JSON.parse(JSON.stringify(policy.toJSON(state))))).to.deep.equal(state);
  });
});
