import { randomUUID } from 'node:crypto';
import type { CommandContext } from '../../platform/command-handling/command-handler';
import type { PlatformDeps } from '../../platform/context-module';
import { startEvalRun } from '../../../commands/evaluation/start-eval-run';
import { gradeEvalCase } from '../../../commands/evaluation/grade-eval-case';
import { completeEvalRun } from '../../../commands/evaluation/complete-eval-run';
import { captureCases, type CaptureRow } from '../../../queries/evaluation/captures';
import { baselineRun, caseResults, type CaseView, findRun, type RunView } from '../../../queries/evaluation/runs';
import type { CaseResult } from '../../../streams/evaluation/run';
import type { Judge } from './judge';
import { EVAL_RUNNER_ID, type Replayer } from './replay';
import { shapeViolations } from './shape-check';
import { loadFrozenTurn } from '../../../commands/evaluation/turn-snapshot';

/**
 * `npm run ops -- eval run` (local only, never routed). The cases are the
 * tenant's captures: one with an `expected_output` is an expert case (judged against it);
 * a thumbs-up without one is a pin (its frozen shape asserted); a thumbs-down without one
 * has nothing to grade against and is skipped. Each case's frozen input is read from the
 * turn's events and replayed; every grade is an event of the run's stream as it is known.
 */
export interface EvalRunOptions {
  tenantId: string;
  tag?: string;
  model: string;
  judgeThreshold: number;
  gitSha: string | null;
  judge: Judge;
  replayer: Replayer;
  runId?: string;
  onProgress?(done: number, total: number, result: CaseResult): void;
}

export interface EvalRunReport {
  run: RunView;
  cases: CaseView[];
  skipped: number;
  baseline: RunView | null;
  baselineCases: CaseView[];
}

export type PlannedCase = { source: 'expert' | 'pin'; capture: CaptureRow };

export function planCases(captures: CaptureRow[]): { cases: PlannedCase[]; skipped: number } {
  const cases: PlannedCase[] = [];
  let skipped = 0;
  for (const capture of captures) {
    if (capture.expected_output !== null && capture.expected_output.trim() !== '')
      cases.push({ source: 'expert', capture });
    else if (capture.score === 1) cases.push({ source: 'pin', capture });
    else skipped++;
  }
  return { cases, skipped };
}

async function gradeCase(deps: PlatformDeps, options: EvalRunOptions, planned: PlannedCase): Promise<CaseResult> {
  const { capture, source } = planned;
  const grader = source === 'expert' ? 'llm_judge' : 'pin_check';
  const base = { caseSource: source, caseRef: capture.capture_id, executionId: capture.execution_id, grader } as const;
  const degraded = (why: string): CaseResult => ({
    ...base,
    verdict: 'degraded',
    judgeScore: null,
    violations: source === 'expert' ? { rationale: why } : [why],
    replayExecutionId: null,
    tokensUsed: null,
    costUsd: null,
  });

  const frozen = await loadFrozenTurn(deps.store, options.tenantId, capture.execution_id);
  if (!frozen) return degraded("no frozen input: the turn's events are not in the log (snapshot missing)");
  const replay = await options.replayer.replay(options.tenantId, frozen, options.model, capture.capture_id);
  const usage = { replayExecutionId: replay.replayExecutionId, tokensUsed: replay.tokensUsed, costUsd: replay.costUsd };
  if (source === 'expert') {
    if (replay.status === 'error')
      return { ...degraded(`the replay failed: ${replay.error ?? 'unknown error'}`), ...usage };
    let verdict: Awaited<ReturnType<Judge['grade']>>;
    try {
      verdict = await options.judge.grade(capture.expected_output!, replay.answer);
    } catch (error) {
      return {
        ...degraded(
          `the judge (${options.judge.name}) could not grade: ${error instanceof Error ? error.message : String(error)}`,
        ),
        ...usage,
      };
    }
    return {
      ...base,
      verdict: verdict.score >= options.judgeThreshold ? 'pass' : 'fail',
      judgeScore: verdict.score,
      violations: { rationale: verdict.rationale, judge: options.judge.name },
      ...usage,
    };
  }
  if (replay.replayExecutionId === null && options.replayer.mode === 'live')
    return { ...degraded(`the replay could not run: ${replay.error ?? 'unknown error'}`), ...usage };
  const violations = shapeViolations(
    {
      status: frozen.outcome?.status ?? 'error',
      answer: frozen.answer,
      toolNames: frozen.toolNames,
      skills: frozen.outcome?.skillsInjected ?? [],
    },
    { status: replay.status, answer: replay.answer, toolNames: replay.toolNames, skills: replay.skills },
  );
  return { ...base, verdict: violations.length === 0 ? 'pass' : 'fail', judgeScore: null, violations, ...usage };
}

export async function runEvaluation(deps: PlatformDeps, options: EvalRunOptions): Promise<EvalRunReport> {
  const runId = options.runId ?? randomUUID();
  const context: CommandContext = { tenantId: options.tenantId, actorId: EVAL_RUNNER_ID, correlationId: runId };
  const { cases, skipped } = planCases(await captureCases(deps.knex, options.tenantId, options.tag));
  await startEvalRun(deps, context, {
    type: 'StartEvalRun',
    runId,
    tag: options.tag ?? null,
    modelId: options.model,
    gitSha: options.gitSha,
    judgeThreshold: options.judgeThreshold,
    replay: options.replayer.mode,
  });
  let done = 0;
  for (const planned of cases) {
    let result: CaseResult;
    try {
      result = await gradeCase(deps, options, planned);
    } catch (error) {
      // One broken case never stops the run: it is recorded as degraded with the reason.
      const why = `the case could not be replayed: ${error instanceof Error ? error.message : String(error)}`;
      result = {
        caseSource: planned.source,
        caseRef: planned.capture.capture_id,
        executionId: planned.capture.execution_id,
        grader: planned.source === 'expert' ? 'llm_judge' : 'pin_check',
        verdict: 'degraded',
        judgeScore: null,
        violations: planned.source === 'expert' ? { rationale: why } : [why],
        replayExecutionId: null,
        tokensUsed: null,
        costUsd: null,
      };
    }
    await gradeEvalCase(deps, context, runId, result);
    options.onProgress?.(++done, cases.length, result);
  }
  await completeEvalRun(deps, context, runId);
  const run = (await findRun(deps.knex, options.tenantId, runId))!;
  const baseline = await baselineRun(deps.knex, options.tenantId, options.model);
  return {
    run,
    cases: await caseResults(deps.knex, options.tenantId, runId),
    skipped,
    baseline,
    baselineCases: baseline ? await caseResults(deps.knex, options.tenantId, baseline.id) : [],
  };
}

/** The CLI's table: each case against the baseline's grade of the same case, then the totals with deltas. */
export function formatReport(report: EvalRunReport): string {
  const { run, cases, baseline, baselineCases } = report;
  const before = new Map(baselineCases.map((c) => [c.case_ref, c]));
  const fmt = (n: number | null | undefined) => (n === null || n === undefined ? '-' : n.toFixed(3));
  const signed = (n: number) => (n > 0 ? `+${n}` : String(n));
  const rows = cases.map((c) => {
    const b = before.get(c.case_ref);
    const delta =
      c.judge_score !== null && b?.judge_score != null
        ? signed(Math.round((c.judge_score - b.judge_score) * 1000) / 1000)
        : '-';
    const change = !b
      ? 'new'
      : b.verdict === c.verdict
        ? '='
        : b.verdict === 'pass' && c.verdict === 'fail'
          ? 'REGRESSED'
          : c.verdict === 'pass'
            ? 'fixed'
            : `${b.verdict}→${c.verdict}`;
    return [
      c.case_ref.slice(0, 8),
      c.case_source,
      c.grader,
      c.verdict,
      fmt(c.judge_score),
      b?.verdict ?? '-',
      delta,
      change,
    ];
  });
  const header = ['case', 'source', 'grader', 'verdict', 'score', 'baseline', 'Δscore', 'change'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i])).join('  ');
  const lines = [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
  const rate = (r: RunView) => (r.n_cases === 0 ? 0 : r.n_pass / r.n_cases);
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  lines.push('');
  lines.push(
    `run ${run.id} (${run.model_id}${run.tag ? `, tag ${run.tag}` : ''}, ${run.replay} replay, judge threshold ${run.judge_threshold}): ${run.n_cases} cases, ${run.n_pass} pass, ${run.n_fail} fail, ${run.n_degraded} degraded, pass rate ${pct(rate(run))}; ${report.skipped} captures skipped (thumbs-down without an expected output)`,
  );
  if (baseline) {
    lines.push(
      `vs baseline ${baseline.id}: pass ${signed(run.n_pass - baseline.n_pass)}, fail ${signed(run.n_fail - baseline.n_fail)}, degraded ${signed(run.n_degraded - baseline.n_degraded)}, pass rate ${signed(Math.round((rate(run) - rate(baseline)) * 1000) / 10)} points; ${rows.filter((r) => r[7] === 'REGRESSED').length} regressed`,
    );
  } else lines.push(`no baseline for ${run.model_id} yet: promote a run with POST /eval/runs/{id}/promote`);
  lines.push(`tokens ${run.tokens_used}, cost $${run.cost_usd.toFixed(4)}`);
  return lines.join('\n');
}
