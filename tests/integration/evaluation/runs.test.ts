import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { evaluationContext } from '../../../src/contexts/evaluation/module';
import { type Judge, tokenOverlapJudge } from '../../../src/contexts/evaluation/judge';
import { frozenReplayer, liveReplayer } from '../../../src/contexts/evaluation/replay';
import { formatReport, runEvaluation } from '../../../src/contexts/evaluation/runner';
import { readRunEvent, runAggregate } from '../../../streams/evaluation/run';
import { type Session, signIn } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import * as files from '../../support/files';
import { readTurnEvent } from '../../../streams/agents/turn';
import { TEST_JWT_SECRET, TEST_SECRET_STORE_KEY, TEST_SIGNING_KEY } from '../../support/secrets';

describe('eval runs: replay, grading, baselines and regressions', function () {
  this.timeout(120_000);
  let t: TestPlatform;
  let alice: Session;
  let admin: Session;
  const tenantId = `evalrun-${randomUUID().slice(0, 8)}`;
  let expert: { executionId: string; answer: string };
  let firstRun: string;

  before(async function () {
    this.timeout(180_000);
    t = await startTestPlatform({ env: { EVAL_SNAPSHOT_RETRY_MS: '50' } });
    alice = await signIn(t, { tenantId });
    admin = await signIn(t, { tenantId, roles: ['admin'] });
    const turn = async (message: string) => {
      const conversationId = (await t.api.post('/conversations', { agent_id: 'compliance' }, alice.headers)).body
        .id as string;
      const result = await t.api.post('/execute', { conversation_id: conversationId, message }, alice.headers);
      expect(result.status, JSON.stringify(result.body)).to.equal(200);
      const assistant = result.body.messages.filter((m: { role: string }) => m.role === 'assistant');
      return {
        executionId: result.body.execution_id as string,
        answer: assistant[assistant.length - 1].content as string,
      };
    };
    expert = await turn('Which forms must an operator file before drilling a new oil well in Texas?');
    const pinned = await turn('Hello, what can you help me with?');
    const disliked = await turn('Tell me about gas wells.');
    const capture = (body: Record<string, unknown>) => t.api.post('/eval/captures', body, alice.headers);
    expect(
      (
        await capture({
          execution_id: expert.executionId,
          score: 1,
          expected_output: expert.answer,
          category_tag: 'permits',
        })
      ).status,
    ).to.equal(200);
    expect((await capture({ execution_id: pinned.executionId, score: 1 })).status).to.equal(200);
    expect((await capture({ execution_id: disliked.executionId, score: -1 })).status).to.equal(200);
    expect(
      (await capture({ execution_id: randomUUID(), conversation_id: 'gone', score: -1, expected_output: 'anything' }))
        .status,
    ).to.equal(200);
    await evaluationContext.captures(t.deps).settled();
  });
  after(async () => t?.close());

  const run = async (
    options: { model?: string; tag?: string; threshold?: number; frozen?: boolean; judge?: Judge } = {},
  ) => {
    const runId = randomUUID();
    const progress: number[] = [];
    const report = await runEvaluation(t.deps, {
      tenantId,
      runId,
      tag: options.tag,
      model: options.model ?? 'builtin/deterministic',
      judgeThreshold: options.threshold ?? 0.5,
      gitSha: 'test-sha',
      judge: options.judge ?? tokenOverlapJudge,
      replayer: options.frozen ? frozenReplayer : liveReplayer(t.deps, runId),
      onProgress: (done) => progress.push(done),
    });
    return { runId, report, progress };
  };

  it('replays the captured turns against the current code: the expert case is judged against expected_output, the pin by its shape, an unlinked capture is degraded, a bare thumbs-down skipped', async () => {
    const { runId, report, progress } = await run();
    firstRun = runId;
    expect(progress).to.deep.equal([1, 2, 3]);
    expect(report.skipped).to.equal(1);
    const response = await t.api.get(`/eval/runs/${runId}`, alice.headers);
    expect(response.status).to.equal(200);
    const body = response.body;
    expect(body).to.include({
      id: runId,
      tag: null,
      model_id: 'builtin/deterministic',
      git_sha: 'test-sha',
      status: 'completed',
      is_baseline: false,
      judge_threshold: 0.5,
      n_cases: 3,
      n_pass: 2,
      n_fail: 0,
      n_degraded: 1,
    });
    expect(body.tokens_used).to.be.greaterThan(0);
    const bySource = Object.fromEntries(
      body.case_results.map((c: any) => [c.verdict === 'degraded' ? 'degraded' : c.case_source, c]),
    );
    expect(bySource.expert).to.include({ grader: 'llm_judge', verdict: 'pass', judge_score: 1 });
    expect(bySource.expert.violations.rationale).to.match(/F1 1 /);
    expect(bySource.expert.replay_execution_id).to.be.a('string');
    expect(bySource.pin).to.include({ grader: 'pin_check', verdict: 'pass', judge_score: null });
    expect(bySource.pin.violations).to.deep.equal([]);
    expect(bySource.degraded.violations.rationale).to.match(/snapshot missing/);
    // The run and its grades are events of the run's stream.
    const events = (await t.deps.store.readStream(runAggregate.stream(tenantId, runId))).map(readRunEvent);
    expect(events.map((e) => e.type)).to.deep.equal([
      'EvalRunStarted',
      'EvalCaseGraded',
      'EvalCaseGraded',
      'EvalCaseGraded',
      'EvalRunCompleted',
    ]);
    // The replay ran as a turn of its own, in a replay conversation hidden from the user's list.
    const replayTurn = await t.deps.store.readStream(`agents.turn-${tenantId}-${bySource.expert.replay_execution_id}`, {
      limit: 1,
    });
    expect(replayTurn[0].type).to.equal('TurnStarted');
    const listed = await t.api.get('/conversations', alice.headers);
    expect(listed.body.conversations.every((c: any) => !String(c.id).startsWith('replay-'))).to.equal(true);
    expect(formatReport(report)).to.match(/no baseline for builtin\/deterministic yet/);
  });

  it("regressions need a baseline of the run's model: 409 naming it", async () => {
    const response = await t.api.get(`/eval/runs/${firstRun}/regressions`, alice.headers);
    expect(response.status).to.equal(409);
    expect(JSON.stringify(response.body)).to.contain('builtin/deterministic');
  });

  it('promotion needs evals.manage, and only a completed run of the tenant', async () => {
    expect((await t.api.post(`/eval/runs/${firstRun}/promote`, {}, alice.headers)).status).to.equal(403);
    expect((await t.api.post(`/eval/runs/${randomUUID()}/promote`, {}, admin.headers)).status).to.equal(404);
    expect((await t.api.get('/eval/runs/not-a-run', alice.headers)).status).to.equal(404);
    expect((await t.api.get('/eval/runs/not-a-run/regressions', alice.headers)).status).to.equal(404);
    const other = await signIn(t, { tenantId: `other-${randomUUID().slice(0, 8)}`, roles: ['admin'] });
    expect((await t.api.post(`/eval/runs/${firstRun}/promote`, {}, other.headers)).status).to.equal(404);
    expect((await t.api.get(`/eval/runs/${firstRun}`, other.headers)).status).to.equal(404);
    const promoted = await t.api.post(`/eval/runs/${firstRun}/promote`, {}, admin.headers);
    expect(promoted.status).to.equal(200);
    expect(promoted.body).to.include({ id: firstRun, is_baseline: true, demoted_run_id: null });
  });

  it('a case that passed in the baseline and fails now is a regression; promoting the new run demotes the old baseline', async () => {
    // The expert changes their mind about the expected answer: the same case now fails.
    await t.api.post(
      '/eval/captures',
      {
        execution_id: expert.executionId,
        score: -1,
        expected_output: 'Nothing about forms: consult the district office by telephone.',
      },
      alice.headers,
    );
    const { runId, report } = await run();
    expect(report.baseline?.id).to.equal(firstRun);
    expect(formatReport(report))
      .to.match(/REGRESSED/)
      .and.to.match(/vs baseline .*pass -1, fail \+1/);
    const regressions = await t.api.get(`/eval/runs/${runId}/regressions`, alice.headers);
    expect(regressions.status).to.equal(200);
    expect(regressions.body).to.include({
      run_id: runId,
      model_id: 'builtin/deterministic',
      baseline_run_id: firstRun,
      total: 1,
    });
    expect(regressions.body.regressions[0]).to.include({
      execution_id: expert.executionId,
      case_source: 'expert',
      baseline_verdict: 'pass',
      verdict: 'fail',
      baseline_judge_score: 1,
    });

    const promoted = await t.api.post(`/eval/runs/${runId}/promote`, {}, admin.headers);
    expect(promoted.body).to.include({ is_baseline: true, demoted_run_id: firstRun });
    const runs = (await t.api.get('/eval/runs', alice.headers)).body;
    expect(runs.runs[0].id).to.equal(runId);
    expect(runs.runs.filter((r: any) => r.is_baseline).map((r: any) => r.id)).to.deep.equal([runId]);
    expect((await t.api.get(`/eval/runs/${firstRun}`, alice.headers)).body.is_baseline).to.equal(false);
  });

  it('the baseline is per model: a run of another model has none; --tag selects captures by category; --frozen grades the recorded outputs', async () => {
    const { runId, report } = await run({ model: 'builtin/deterministic-fast', tag: 'permits', frozen: true });
    expect(report.run).to.include({
      n_cases: 1,
      replay: 'frozen',
      model_id: 'builtin/deterministic-fast',
      tag: 'permits',
    });
    const response = await t.api.get(`/eval/runs/${runId}/regressions`, alice.headers);
    expect(response.status).to.equal(409);
    expect(response.body.error ?? response.body.message ?? JSON.stringify(response.body)).to.contain(
      'builtin/deterministic-fast',
    );
  });

  it('a judge that cannot grade leaves the expert case degraded with the reason; the run still completes', async () => {
    const broken: Judge = {
      name: 'broken-judge',
      grade: async () => {
        throw new Error('provider overloaded');
      },
    };
    const { report } = await run({ tag: 'permits', judge: broken });
    expect(report.run).to.include({ status: 'completed', n_cases: 1, n_degraded: 1 });
    expect((report.cases[0].violations as { rationale: string }).rationale).to.equal(
      'the judge (broken-judge) could not grade: provider overloaded',
    );
  });

  it("a turn with an attachment replays with the attachment's extracted text as it was", async () => {
    const carol = await signIn(t, { tenantId: `attach-${randomUUID().slice(0, 8)}` });
    const conversationId = (await t.api.post('/conversations', { agent_id: 'compliance' }, carol.headers)).body
      .id as string;
    const uploaded = await files.upload(
      `${t.publicUrl}/api/v1/conversations/${conversationId}/attachments`,
      { bytes: Buffer.from('The December report shows 1,200 bbl produced.'), filename: 'december.txt' },
      { headers: carol.headers },
    );
    const attachmentId = uploaded.body.id as string;
    const turn = await t.api.post(
      '/execute',
      { conversation_id: conversationId, message: 'Summarize the attachment', attachment_ids: [attachmentId] },
      carol.headers,
    );
    expect(turn.status).to.equal(200);
    await t.api.post('/eval/captures', { execution_id: turn.body.execution_id, score: 1 }, carol.headers);
    // Removed since: the replay still has the text the turn saw.
    await t.api.delete(`/conversations/${conversationId}/attachments/${attachmentId}`, carol.headers);
    const runId = randomUUID();
    const report = await runEvaluation(t.deps, {
      tenantId: carol.tenantId,
      runId,
      model: 'builtin/deterministic',
      judgeThreshold: 0.5,
      gitSha: null,
      judge: tokenOverlapJudge,
      replayer: liveReplayer(t.deps, runId),
    });
    expect(report.run).to.include({ n_cases: 1, n_pass: 1 });
    const replayed = (
      await t.deps.store.readStream(`agents.turn-${carol.tenantId}-${report.cases[0].replay_execution_id}`)
    ).map(readTurnEvent);
    expect(replayed[0].type === 'TurnStarted' && replayed[0].data.attachmentIds).to.deep.equal([attachmentId]);
  });

  it('npm run ops -- eval run replays, records the run and prints the table against the baseline with a progress line per case', async function () {
    this.timeout(180_000);
    const env = {
      ...process.env,
      DATABASE_URL: t.platform.db.url,
      AUDIT_SIGNING_KEY: TEST_SIGNING_KEY,
      JWT_SECRET: TEST_JWT_SECRET,
      SECRET_STORE_KEY: TEST_SECRET_STORE_KEY,
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      BCRYPT_COST: '10',
    };
    const { stdout, stderr } = await promisify(execFile)(
      path.resolve('node_modules/.bin/tsx'),
      ['ops/cli.ts', 'eval', 'run', '--tenant', tenantId, '--model', 'builtin/deterministic'],
      { env },
    );
    expect(stderr).to.contain('case 3/3');
    expect(stdout).to.match(/^case +source +grader +verdict +score +baseline +Δscore +change/m);
    expect(stdout).to.match(/vs baseline /);
    const runs = (await t.api.get('/eval/runs', alice.headers)).body.runs;
    expect(runs[0]).to.include({ status: 'completed', n_cases: 3, model_id: 'builtin/deterministic' });
    expect(stdout).to.contain(`run ${runs[0].id}`);
  });
});
