import { z, type ApiDescription } from '../../platform/openapi/describe';
import { RecordCaptureBody } from '../../../commands/evaluation/record-capture';
import { CapturesQuery, RunParams, RunsQuery } from './schemas';

/** Evaluation capture and runs in the API contract; request schemas are the router's own. */
const Capture = z
  .object({
    id: z.string(),
    execution_id: z.string(),
    score: z.union([z.literal(-1), z.literal(1)]),
    snapshot_status: z.enum(['linked', 'missing']),
    mirror_status: z.enum(['skipped', 'pending', 'mirrored', 'failed']),
    replay_mode: z.enum(['frozen', 'live']),
  })
  .openapi('EvalCaptureResult', {
    description: '`mirror_status`: `skipped` (no mirror configured), `pending`, `mirrored`, `failed`.',
  });
const CaptureRow = z
  .object({
    execution_id: z.string(),
    score: z.number().int(),
    expected_output: z.string().nullable(),
    note: z.string().nullable(),
    category_tag: z.string().nullable(),
    snapshot_status: z.enum(['linked', 'missing']),
    mirror_status: z.string(),
  })
  .openapi('EvalCapture');
const Metrics = z
  .object({
    total: z.number().int(),
    missing: z.number().int(),
    mirror_failed: z.number().int(),
    mirror_pending: z.number().int(),
  })
  .openapi('EvalMetrics');
const Run = z
  .object({
    id: z.string(),
    tag: z.string().nullable(),
    model_id: z.string(),
    git_sha: z.string().nullable(),
    status: z.enum(['running', 'completed']),
    replay: z.enum(['live', 'frozen']),
    is_baseline: z.boolean(),
    judge_threshold: z.number(),
    n_cases: z.number().int(),
    n_pass: z.number().int(),
    n_fail: z.number().int(),
    n_degraded: z.number().int(),
    tokens_used: z.number().int(),
    cost_usd: z.number(),
    started_at: z.string(),
    completed_at: z.string().nullable(),
  })
  .openapi('EvalRun');
const CaseResult = z
  .object({
    case_source: z.enum(['pin', 'expert']),
    case_ref: z.string(),
    execution_id: z.string(),
    grader: z.enum(['pin_check', 'llm_judge']),
    verdict: z.enum(['pass', 'fail', 'degraded']),
    judge_score: z.number().nullable(),
    violations: z.union([z.array(z.string()), z.object({ rationale: z.string() }).passthrough()]),
    replay_execution_id: z.string().nullable(),
    tokens_used: z.number().int().nullable(),
    cost_usd: z.number().nullable(),
  })
  .openapi('EvalCaseResult', {
    description: '`violations`: the failed shape assertions for pins, `{rationale}` for judged cases.',
  });
const Regression = z
  .object({
    case_ref: z.string(),
    case_source: z.enum(['pin', 'expert']),
    execution_id: z.string(),
    grader: z.enum(['pin_check', 'llm_judge']),
    baseline_verdict: z.literal('pass'),
    verdict: z.literal('fail'),
    baseline_judge_score: z.number().nullable(),
    judge_score: z.number().nullable(),
    violations: z.unknown(),
  })
  .openapi('EvalRegression');

export const evaluationApi: ApiDescription = {
  tag: 'evaluation',
  public: () => [
    {
      method: 'post',
      path: '/eval/captures',
      summary: "Record or update the caller's verdict on a turn (upsert per execution and user)",
      body: RecordCaptureBody,
      responses: { 200: Capture },
    },
    {
      method: 'get',
      path: '/eval/captures',
      summary: "The caller's captures for a conversation",
      query: CapturesQuery,
      responses: { 200: z.object({ captures: z.array(CaptureRow), total: z.number().int() }) },
    },
    { method: 'get', path: '/eval/metrics', summary: "The tenant's capture counts", responses: { 200: Metrics } },
    {
      method: 'get',
      path: '/eval/runs',
      summary: "The tenant's eval runs, newest first",
      query: RunsQuery,
      responses: { 200: z.object({ runs: z.array(Run), total: z.number().int() }) },
    },
    {
      method: 'get',
      path: '/eval/runs/:id',
      summary: 'An eval run with its case results',
      params: RunParams,
      responses: { 200: Run.extend({ case_results: z.array(CaseResult) }) },
    },
    {
      method: 'get',
      path: '/eval/runs/:id/regressions',
      summary:
        "Cases that went pass → fail against the baseline of the run's model (409 naming the model when it has none)",
      params: RunParams,
      responses: {
        200: z.object({
          run_id: z.string(),
          model_id: z.string(),
          baseline_run_id: z.string(),
          regressions: z.array(Regression),
          total: z.number().int(),
        }),
      },
      errors: [409],
    },
    {
      method: 'post',
      path: '/eval/runs/:id/promote',
      summary: 'Make a completed run the baseline of its model, demoting the previous one (evals.manage)',
      params: RunParams,
      responses: { 200: Run.extend({ demoted_run_id: z.string().nullable() }) },
      errors: [409],
    },
  ],
};
