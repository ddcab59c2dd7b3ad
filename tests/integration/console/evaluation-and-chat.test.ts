import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { tokenOverlapJudge } from '../../../src/contexts/evaluation/judge';
import { evaluationContext } from '../../../src/contexts/evaluation/module';
import { frozenReplayer } from '../../../src/contexts/evaluation/replay';
import { runEvaluation } from '../../../src/contexts/evaluation/runner';
import { signIn, type Session } from '../../support/auth';
import type { TestPlatform } from '../../support/platform';
import { type ConsoleBrowser, expectAccessible, startConsoleBrowser } from './browser';

/**
 * The evaluation page's run detail and baseline promotion, and chat's tables from a tool's
 * `tool_result`, in Chromium.
 */
describe('console: evaluation runs and tool tables in chat (Chromium)', function () {
  this.timeout(180_000);
  let c: ConsoleBrowser;
  let t: TestPlatform;
  let base: string;
  let admin: Session;
  let operator: Session;
  let wellId: string;

  before(async function () {
    const started = await startConsoleBrowser();
    if (!started) this.skip();
    c = started!;
    ({ t, base } = c);
    const tenantId = randomUUID();
    admin = await signIn(t, { roles: ['admin'], tenantId });
    operator = await signIn(t, { roles: ['operator'], tenantId });
    expect((await t.api.post('/graph/seed', { wells: 12 }, admin.headers)).status).to.equal(201);
    wellId = (await t.api.get('/graph/entities/Well?limit=1', operator.headers)).body.entities[0].entity_id;
  });
  after(async () => {
    await c?.close();
  });

  /** A turn of the builtin assistant and its answer, as chat would capture it. */
  async function turn(
    session: Session,
    message: string,
  ): Promise<{ conversationId: string; executionId: string; answer: string }> {
    const conversationId = (await t.api.post('/conversations', { agent_id: 'general' }, session.headers)).body
      .id as string;
    const result = await t.api.post('/execute', { conversation_id: conversationId, message }, session.headers);
    expect(result.status, JSON.stringify(result.body)).to.equal(200);
    const assistant = result.body.messages.filter((m: { role: string }) => m.role === 'assistant');
    return {
      conversationId,
      executionId: result.body.execution_id as string,
      answer: assistant[assistant.length - 1].content as string,
    };
  }

  /** A frozen replay: grades the recorded answers against the captures as they stand now. */
  async function evaluate(): Promise<string> {
    await evaluationContext.captures(t.deps).settled();
    const runId = randomUUID();
    await runEvaluation(t.deps, {
      tenantId: admin.tenantId,
      runId,
      model: 'builtin/deterministic',
      judgeThreshold: 0.5,
      gitSha: null,
      judge: tokenOverlapJudge,
      replayer: frozenReplayer,
    });
    return runId;
  }

  it('evaluation: a run opens from the list with its case results; an administrator makes it the baseline, and a later run lists its regression against it', async () => {
    const expert = await turn(operator, 'Which forms must an operator file before drilling a new oil well in Texas?');
    expect(
      (
        await t.api.post(
          '/eval/captures',
          { execution_id: expert.executionId, score: 1, expected_output: expert.answer, category_tag: 'permits' },
          operator.headers,
        )
      ).status,
    ).to.equal(200);
    const first = await evaluate();

    const { context, page } = await c.as(admin);
    await page.goto(`${base}/evaluation`);
    await page
      .getByRole('table', { name: /Evaluation runs/ })
      .getByRole('link', { name: first.slice(0, 8) })
      .click();
    await page.getByRole('heading', { name: `Run ${first.slice(0, 8)}`, level: 1 }).waitFor();
    const results = page.getByRole('table', { name: 'Case results' });
    expect(await results.getByRole('row').count()).to.equal(2);
    expect(await results.getByRole('row').nth(1).innerText()).to.match(/expert:\S+\s+llm judge\s+pass\s+1/);
    // No baseline yet: said as a fact, not an error.
    await page.getByText(/no baseline/i).waitFor();
    await page.getByRole('button', { name: 'Make this run the baseline' }).click();
    await page.getByText('baseline of its model').waitFor();
    expect(await page.getByRole('button', { name: 'Make this run the baseline' }).count()).to.equal(0);
    await page.getByText('No regression against the baseline.').waitFor();
    expect((await t.api.get(`/eval/runs/${first}`, admin.headers)).body.is_baseline).to.equal(true);

    // The expert changes the expected answer: the same case fails in the next run.
    await t.api.post(
      '/eval/captures',
      {
        execution_id: expert.executionId,
        score: -1,
        expected_output: 'Nothing about forms: consult the district office by telephone.',
      },
      operator.headers,
    );
    const second = await evaluate();
    await page.goto(`${base}/evaluation/runs/${second}`);
    const regressions = page.getByRole('table', { name: '1 regressions' });
    await regressions.waitFor();
    expect(await regressions.getByRole('row').nth(1).innerText())
      .to.contain(expert.executionId)
      .and.to.match(/pass\s[\s\S]*fail/);
    await expectAccessible(page, 'evaluation run');
    await context.close();
  });

  it('an operator reads a run but is not offered its promotion (evals.manage)', async () => {
    const runId = await evaluate();
    const { context, page } = await c.as(operator);
    await page.goto(`${base}/evaluation/runs/${runId}`);
    await page.getByRole('heading', { name: `Run ${runId.slice(0, 8)}`, level: 1 }).waitFor();
    await page.getByText('builtin/deterministic').first().waitFor();
    expect(await page.getByRole('button', { name: 'Make this run the baseline' }).count()).to.equal(0);
    await context.close();
  });

  it("chat: a tool that returns rows is shown as a table under its tool result, with the tool's title as caption", async () => {
    await t.api.post('/compliance/assess', {}, admin.headers);
    const conversation = await t.api.post(
      '/conversations',
      { agent_id: 'general', title: 'Deadlines' },
      operator.headers,
    );
    const id = conversation.body.id as string;
    const { context, page } = await c.as(operator);
    await page.goto(`${base}/chat/${id}`);
    await page.getByRole('textbox', { name: 'Message' }).fill(`What are the upcoming deadlines of well ${wellId}?`);
    await page.getByRole('button', { name: 'Send' }).click();
    await page
      .getByText(/^Completed|Awaiting review/)
      .first()
      .waitFor({ timeout: 60_000 });

    const messages = (await t.api.get(`/conversations/${id}/messages`, operator.headers)).body.messages as Array<{
      role: string;
      tool_name?: string;
      metadata?: { tool_result?: { title: string; rows: Array<Record<string, string>> } };
    }>;
    const tool = messages.find((m) => m.role === 'tool' && m.tool_name === 'compliance_deadlines');
    expect(tool?.metadata?.tool_result?.rows, 'the deadlines tool returned rows').to.have.length.greaterThan(0);
    const { title, rows } = tool!.metadata!.tool_result!;

    const result = page.locator('.message.tool').filter({ hasText: 'Tool result: compliance_deadlines' });
    const table = result.getByRole('table', { name: title });
    await table.waitFor();
    const header = await table.getByRole('row').first().innerText();
    // People read the tool's headers, not its column keys.
    expect(
      header
        .split(/\t|\n/)
        .map((s) => s.trim())
        .filter(Boolean),
    ).to.deep.equal(['Due date', 'Rule', 'What is due', 'Source']);
    expect(await table.getByRole('row').count()).to.equal(rows.length + 1);
    expect(await table.getByRole('row').nth(1).innerText())
      .to.contain(rows[0].due_date)
      .and.to.contain(rows[0].rule);
    await expectAccessible(page, 'chat with a tool table');
    await context.close();
  });
});
