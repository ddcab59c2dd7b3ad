import { expect } from 'chai';
import { projectionSpec } from '../../support/specs';
import { CAPTURES_TABLE, capturesProjector } from '../../../projections/evaluation/captures';
import { CASE_RESULTS_TABLE, RUNS_TABLE, runsProjector } from '../../../projections/evaluation/runs';

const CAPTURE = '0f0e0d0c-0b0a-8908-8706-050403020100';
const captureStream = `evaluation.capture-tenant-spec-${CAPTURE}`;
const recorded = (over: Record<string, unknown>) => ({
  stream: captureStream,
  type: 'CaptureRecorded',
  data: {
    captureId: CAPTURE,
    executionId: 'exec-1',
    conversationId: 'conv-1',
    userId: 'u1',
    score: 1,
    expectedOutput: null,
    note: null,
    categoryTag: null,
    mirrorStatus: 'skipped',
    recordedAt: '2026-03-03T10:00:00.000Z',
    ...over,
  },
});
const runStream = (id: string) => `evaluation.run-tenant-spec-${id}`;
const RUN_A = '00000000-0000-8000-8000-00000000000a';
const RUN_B = '00000000-0000-8000-8000-00000000000b';
const started = (runId: string) => ({
  stream: runStream(runId),
  type: 'EvalRunStarted',
  data: {
    runId,
    tag: null,
    modelId: 'builtin/deterministic',
    gitSha: null,
    judgeThreshold: 0.5,
    replay: 'live',
    startedAt: '2026-03-03T10:00:00.000Z',
  },
});
const graded = (runId: string, verdict: string) => ({
  stream: runStream(runId),
  type: 'EvalCaseGraded',
  data: {
    caseSource: 'expert',
    caseRef: 'case-1',
    executionId: 'exec-1',
    grader: 'llm_judge',
    verdict,
    judgeScore: 0.9,
    violations: { rationale: 'r' },
    replayExecutionId: null,
    tokensUsed: 5,
    costUsd: 0,
  },
});
const promoted = (runId: string, previousRunId: string | null) => ({
  stream: 'evaluation.baseline-tenant-spec-m',
  type: 'BaselinePromoted',
  data: {
    modelId: 'builtin/deterministic',
    runId,
    previousRunId,
    promotedBy: 'admin',
    promotedAt: '2026-03-03T10:00:00.000Z',
  },
});

describe('evaluation projections (given events → rows)', () => {
  it('captures: the latest score, enrichment kept through a bare gesture, snapshot and mirror statuses', async () => {
    await projectionSpec(capturesProjector)
      .given([
        recorded({ expectedOutput: 'W-1', note: 'good', categoryTag: 'permits', mirrorStatus: 'pending' }),
        {
          stream: captureStream,
          type: 'SnapshotMissing',
          data: { check: 'capture', checkedAt: '2026-03-03T10:00:00.000Z' },
        },
        {
          stream: captureStream,
          type: 'ScoreMirrorFailed',
          data: { score: 1, error: 'langfuse answered 500', failedAt: '2026-03-03T10:00:00.000Z' },
        },
        {
          stream: captureStream,
          type: 'SnapshotLinked',
          data: { check: 'retry', conversationId: 'conv-1', checkedAt: '2026-03-03T10:00:02.000Z' },
        },
        recorded({ score: -1, note: 'changed my mind', mirrorStatus: 'pending' }),
        {
          stream: captureStream,
          type: 'SnapshotMissing',
          data: { check: 'retry', checkedAt: '2026-03-03T10:00:04.000Z' },
        },
      ])
      .then(async (knex) => {
        const rows = await knex(CAPTURES_TABLE).select(
          'capture_id',
          'score',
          'expected_output',
          'note',
          'category_tag',
          'snapshot_status',
          'mirror_status',
          'mirror_error',
          'gestures',
        );
        expect(rows).to.deep.equal([
          {
            capture_id: CAPTURE,
            score: -1,
            expected_output: 'W-1',
            note: 'changed my mind',
            category_tag: 'permits',
            snapshot_status: 'linked',
            mirror_status: 'pending',
            mirror_error: null,
            gestures: 2,
          },
        ]);
      });
  });

  it('runs: cases counted as graded, totals on completion, one baseline per model after a promotion that demotes', async () => {
    await projectionSpec(runsProjector)
      .given([
        started(RUN_A),
        graded(RUN_A, 'pass'),
        {
          stream: runStream(RUN_A),
          type: 'EvalRunCompleted',
          data: {
            nCases: 1,
            nPass: 1,
            nFail: 0,
            nDegraded: 0,
            tokensUsed: 5,
            costUsd: 0,
            completedAt: '2026-03-03T10:01:00.000Z',
          },
        },
        promoted(RUN_A, null),
        started(RUN_B),
        graded(RUN_B, 'fail'),
        promoted(RUN_B, RUN_A),
      ])
      .then(async (knex) => {
        const runs = await knex(RUNS_TABLE)
          .orderBy('run_id')
          .select('run_id', 'status', 'is_baseline', 'n_cases', 'n_pass', 'n_fail');
        expect(runs).to.deep.equal([
          { run_id: RUN_A, status: 'completed', is_baseline: false, n_cases: 1, n_pass: 1, n_fail: 0 },
          { run_id: RUN_B, status: 'running', is_baseline: true, n_cases: 1, n_pass: 0, n_fail: 1 },
        ]);
        expect(await knex(CASE_RESULTS_TABLE).orderBy('run_id').select('run_id', 'case_ref', 'verdict')).to.deep.equal([
          { run_id: RUN_A, case_ref: 'case-1', verdict: 'pass' },
          { run_id: RUN_B, case_ref: 'case-1', verdict: 'fail' },
        ]);
      });
  });
});
