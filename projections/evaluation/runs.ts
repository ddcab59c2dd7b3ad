import type { Projector } from '../../src/platform/projection-runner/projector';
import { readBaselineEvent } from '../../streams/evaluation/baseline';
import { readRunEvent } from '../../streams/evaluation/run';

/** Runs with their totals and baseline flag, and one row per graded case. */
export const RUNS_TABLE = 'evaluation_runs';
export const CASE_RESULTS_TABLE = 'evaluation_case_results';

export const runsProjector: Projector = {
  name: 'evaluation_runs',
  consistency: 'inline',
  version: 1,
  tables: [CASE_RESULTS_TABLE, RUNS_TABLE],
  eventTypes: ['EvalRunStarted', 'EvalCaseGraded', 'EvalRunCompleted', 'BaselinePromoted'],
  async createTables(knex) {
    await knex.schema.createTable(RUNS_TABLE, (t) => {
      t.text('tenant_id').notNullable();
      t.text('run_id').notNullable();
      t.text('tag');
      t.text('model_id').notNullable();
      t.text('git_sha');
      t.text('status').notNullable();
      t.text('replay').notNullable();
      t.boolean('is_baseline').notNullable().defaultTo(false);
      t.double('judge_threshold').notNullable();
      t.integer('n_cases').notNullable().defaultTo(0);
      t.integer('n_pass').notNullable().defaultTo(0);
      t.integer('n_fail').notNullable().defaultTo(0);
      t.integer('n_degraded').notNullable().defaultTo(0);
      t.bigInteger('tokens_used').notNullable().defaultTo(0);
      t.double('cost_usd').notNullable().defaultTo(0);
      t.timestamp('started_at', { useTz: true }).notNullable();
      t.timestamp('completed_at', { useTz: true });
      t.primary(['tenant_id', 'run_id']);
      t.index(['tenant_id', 'model_id', 'is_baseline']);
      t.index(['tenant_id', 'started_at']);
    });
    await knex.schema.createTable(CASE_RESULTS_TABLE, (t) => {
      t.text('tenant_id').notNullable();
      t.text('run_id').notNullable();
      t.integer('seq').notNullable();
      t.text('case_source').notNullable();
      t.text('case_ref').notNullable();
      t.text('execution_id').notNullable();
      t.text('grader').notNullable();
      t.text('verdict').notNullable();
      t.double('judge_score');
      t.jsonb('violations').notNullable();
      t.text('replay_execution_id');
      t.bigInteger('tokens_used');
      t.double('cost_usd');
      t.primary(['tenant_id', 'run_id', 'seq']);
      t.index(['tenant_id', 'run_id', 'case_ref']);
    });
  },
  async apply(trx, event) {
    const tenantId = event.metadata.tenantId;
    if (event.type === 'BaselinePromoted') {
      const { data } = readBaselineEvent(event);
      // Demote whatever this model's baseline was, then promote: one transaction.
      await trx(RUNS_TABLE)
        .where({ tenant_id: tenantId, model_id: data.modelId, is_baseline: true })
        .update({ is_baseline: false });
      await trx(RUNS_TABLE).where({ tenant_id: tenantId, run_id: data.runId }).update({ is_baseline: true });
      return;
    }
    const parsed = readRunEvent(event);
    switch (parsed.type) {
      case 'EvalRunStarted': {
        const d = parsed.data;
        await trx(RUNS_TABLE).insert({
          tenant_id: tenantId,
          run_id: d.runId,
          tag: d.tag,
          model_id: d.modelId,
          git_sha: d.gitSha,
          status: 'running',
          replay: d.replay,
          judge_threshold: d.judgeThreshold,
          started_at: d.startedAt,
        });
        break;
      }
      case 'EvalCaseGraded': {
        const d = parsed.data;
        const runId = runIdOfStream(event.stream);
        await trx(CASE_RESULTS_TABLE).insert({
          tenant_id: tenantId,
          run_id: runId,
          seq: Number(event.revision),
          case_source: d.caseSource,
          case_ref: d.caseRef,
          execution_id: d.executionId,
          grader: d.grader,
          verdict: d.verdict,
          judge_score: d.judgeScore,
          violations: JSON.stringify(d.violations),
          replay_execution_id: d.replayExecutionId,
          tokens_used: d.tokensUsed,
          cost_usd: d.costUsd,
        });
        const column = d.verdict === 'pass' ? 'n_pass' : d.verdict === 'fail' ? 'n_fail' : 'n_degraded';
        await trx(RUNS_TABLE)
          .where({ tenant_id: tenantId, run_id: runId })
          .update({
            n_cases: trx.raw('n_cases + 1'),
            [column]: trx.raw(`${column} + 1`),
            tokens_used: trx.raw('tokens_used + ?', [d.tokensUsed ?? 0]),
            cost_usd: trx.raw('cost_usd + ?', [d.costUsd ?? 0]),
          });
        break;
      }
      case 'EvalRunCompleted': {
        const d = parsed.data;
        await trx(RUNS_TABLE)
          .where({ tenant_id: tenantId, run_id: runIdOfStream(event.stream) })
          .update({
            status: 'completed',
            n_cases: d.nCases,
            n_pass: d.nPass,
            n_fail: d.nFail,
            n_degraded: d.nDegraded,
            tokens_used: d.tokensUsed,
            cost_usd: d.costUsd,
            completed_at: d.completedAt,
          });
        break;
      }
    }
  },
};

/** `evaluation.run-<tenant>-<runId>`: run ids are uuids, the last 36 characters. */
function runIdOfStream(stream: string): string {
  return stream.slice(-36);
}
