import type { Knex } from 'knex';
import { Conflict, NotFound } from '../../src/platform/domain-errors';
import { CASE_RESULTS_TABLE, RUNS_TABLE } from '../../projections/evaluation/runs';

interface RunRow {
  run_id: string;
  tag: string | null;
  model_id: string;
  git_sha: string | null;
  status: string;
  replay: string;
  is_baseline: boolean;
  judge_threshold: number;
  n_cases: number;
  n_pass: number;
  n_fail: number;
  n_degraded: number;
  tokens_used: string | number;
  cost_usd: number;
  started_at: Date;
  completed_at: Date | null;
}

interface CaseRow {
  case_source: string;
  case_ref: string;
  execution_id: string;
  grader: string;
  verdict: string;
  judge_score: number | null;
  violations: unknown;
  replay_execution_id: string | null;
  tokens_used: string | number | null;
  cost_usd: number | null;
}

export const runView = (r: RunRow) => ({
  id: r.run_id,
  tag: r.tag,
  model_id: r.model_id,
  git_sha: r.git_sha,
  status: r.status,
  replay: r.replay,
  is_baseline: r.is_baseline,
  judge_threshold: r.judge_threshold,
  n_cases: r.n_cases,
  n_pass: r.n_pass,
  n_fail: r.n_fail,
  n_degraded: r.n_degraded,
  tokens_used: Number(r.tokens_used),
  cost_usd: r.cost_usd,
  started_at: r.started_at.toISOString(),
  completed_at: r.completed_at ? r.completed_at.toISOString() : null,
});
export type RunView = ReturnType<typeof runView>;

export const caseView = (c: CaseRow) => ({
  case_source: c.case_source,
  case_ref: c.case_ref,
  execution_id: c.execution_id,
  grader: c.grader,
  verdict: c.verdict,
  judge_score: c.judge_score,
  violations: c.violations,
  replay_execution_id: c.replay_execution_id,
  tokens_used: c.tokens_used === null ? null : Number(c.tokens_used),
  cost_usd: c.cost_usd,
});
export type CaseView = ReturnType<typeof caseView>;

/** GET /eval/runs: newest first. */
export async function listRuns(knex: Knex, tenantId: string, limit: number) {
  const rows: RunRow[] = await knex(RUNS_TABLE)
    .where({ tenant_id: tenantId })
    .orderBy([
      { column: 'started_at', order: 'desc' },
      { column: 'run_id', order: 'desc' },
    ])
    .limit(limit);
  const [{ total }] = await knex(RUNS_TABLE).where({ tenant_id: tenantId }).count<{ total: string }[]>({ total: '*' });
  return { runs: rows.map(runView), total: Number(total) };
}

export async function findRun(knex: Knex, tenantId: string, runId: string): Promise<RunView | null> {
  const row: RunRow | undefined = await knex(RUNS_TABLE).where({ tenant_id: tenantId, run_id: runId }).first();
  return row ? runView(row) : null;
}

/** A run that must exist (404 otherwise). */
export async function visibleRun(knex: Knex, tenantId: string, runId: string): Promise<RunView> {
  const run = await findRun(knex, tenantId, runId);
  if (!run) throw new NotFound(`No eval run ${runId}`);
  return run;
}

/** GET /eval/runs/{id}: the run with its case results. */
export async function runWithCases(knex: Knex, tenantId: string, runId: string) {
  return { ...(await visibleRun(knex, tenantId, runId)), case_results: await caseResults(knex, tenantId, runId) };
}

/** GET /eval/runs/{id}/regressions: against the baseline of the run's model (409 while there is none). */
export async function regressionsOf(knex: Knex, tenantId: string, runId: string) {
  const run = await visibleRun(knex, tenantId, runId);
  const baseline = await baselineRun(knex, tenantId, run.model_id);
  if (!baseline)
    throw new Conflict(`No baseline run for model ${run.model_id}; promote a completed run of that model first`);
  const regressions = await regressionsAgainst(knex, tenantId, runId, baseline.id);
  return {
    run_id: runId,
    model_id: run.model_id,
    baseline_run_id: baseline.id,
    regressions,
    total: regressions.length,
  };
}

export async function caseResults(knex: Knex, tenantId: string, runId: string): Promise<CaseView[]> {
  const rows: CaseRow[] = await knex(CASE_RESULTS_TABLE).where({ tenant_id: tenantId, run_id: runId }).orderBy('seq');
  return rows.map(caseView);
}

/** The run flagged baseline for this tenant and model, if any. */
export async function baselineRun(knex: Knex, tenantId: string, modelId: string): Promise<RunView | null> {
  const row: RunRow | undefined = await knex(RUNS_TABLE)
    .where({ tenant_id: tenantId, model_id: modelId, is_baseline: true })
    .first();
  return row ? runView(row) : null;
}

/** Cases that passed in the baseline and fail in the run (matched by case_ref). */
export async function regressionsAgainst(knex: Knex, tenantId: string, runId: string, baselineRunId: string) {
  const [current, baseline] = await Promise.all([
    caseResults(knex, tenantId, runId),
    caseResults(knex, tenantId, baselineRunId),
  ]);
  const before = new Map(baseline.map((c) => [c.case_ref, c]));
  return current
    .filter((c) => c.verdict === 'fail' && before.get(c.case_ref)?.verdict === 'pass')
    .map((c) => {
      const b = before.get(c.case_ref)!;
      return {
        case_ref: c.case_ref,
        case_source: c.case_source,
        execution_id: c.execution_id,
        grader: c.grader,
        baseline_verdict: b.verdict,
        verdict: c.verdict,
        baseline_judge_score: b.judge_score,
        judge_score: c.judge_score,
        violations: c.violations,
      };
    });
}
