import { randomUUID } from 'node:crypto';
import { tokenOverlapJudge } from '../../src/contexts/evaluation/judge';
import { liveReplayer } from '../../src/contexts/evaluation/replay';
import { runEvaluation } from '../../src/contexts/evaluation/runner';
import { type BenchRow, perSecond, startBenchPlatform } from './support';

/**
 * Evaluation on one instance with the builtin model:
 *  - POST /eval/captures latency on a turn in the log (snapshot check, the gesture's append
 *    and the wait for the read model), p50 and p95;
 *  - `eval run` time per case (live replay through the agents pipeline, judging, the grade's append);
 *  - the builtin judge's throughput on ~2 kB answers.
 */
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const ms = (startNs: bigint) => Number(process.hrtime.bigint() - startNs) / 1e6;
const CASES = 20;

export async function run(): Promise<BenchRow[]> {
  const bench = await startBenchPlatform();
  const rows: BenchRow[] = [];
  try {
    const tenantId = `bench-eval-${randomUUID().slice(0, 8)}`;
    const user = await bench.session({ tenantId });
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${bench.api}${path}`, {
        method: 'POST',
        headers: user.headers,
        body: JSON.stringify(body),
      });
      if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
      return (await response.json()) as any;
    };
    const latencies: number[] = [];
    for (let i = 0; i < CASES; i++) {
      const { id } = await post('/conversations', { agent_id: 'bench' });
      const turn = await post('/execute', {
        conversation_id: id,
        message: `Which forms does new oil well number ${i} need before drilling?`,
      });
      const started = process.hrtime.bigint();
      await post('/eval/captures', {
        execution_id: turn.execution_id,
        score: 1,
        expected_output: turn.messages[turn.messages.length - 1].content,
      });
      latencies.push(ms(started));
    }
    latencies.sort((a, b) => a - b);
    rows.push({
      name: 'POST /eval/captures (turn linked), p50',
      value: Math.round(percentile(latencies, 50) * 10) / 10,
      unit: 'ms',
      target: '<= 50',
    });
    rows.push({
      name: 'POST /eval/captures (turn linked), p95',
      value: Math.round(percentile(latencies, 95) * 10) / 10,
      unit: 'ms',
      target: '<= 150',
    });

    const runId = randomUUID();
    const started = process.hrtime.bigint();
    const report = await runEvaluation(bench.platform.deps, {
      tenantId,
      runId,
      model: 'builtin/deterministic',
      judgeThreshold: 0.5,
      gitSha: null,
      judge: tokenOverlapJudge,
      replayer: liveReplayer(bench.platform.deps, runId),
    });
    if (report.run.n_pass !== CASES) throw new Error(`expected ${CASES} passing cases, got ${report.run.n_pass}`);
    rows.push({
      name: `eval run, live replay on the builtin model (${CASES} cases), per case`,
      value: Math.round((ms(started) / CASES) * 10) / 10,
      unit: 'ms',
      target: '<= 500',
    });

    const expected = 'Before drilling, the operator files a W-1 drilling permit with the Railroad Commission. '.repeat(
      24,
    );
    const answer =
      'The operator must file form W-1 (drilling permit) with the Railroad Commission before drilling. '.repeat(22);
    const n = 2_000;
    const judged = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await tokenOverlapJudge.grade(expected, answer);
    rows.push({
      name: 'builtin judge, ~2 kB answer against ~2 kB expected',
      value: perSecond(n, judged),
      unit: 'grades/s',
      target: '>= 1,000',
    });
  } finally {
    await bench.close();
  }
  return rows;
}
