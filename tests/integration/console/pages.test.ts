import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { signIn, type Session } from '../../support/auth';
import type { TestPlatform } from '../../support/platform';
import { createSourceDatabase, type SourceDatabase } from '../connectors/support';
import { type ConsoleBrowser, expectAccessible, startConsoleBrowser } from './browser';

/**
 * Console pages in Chromium: the start page, filing approvals as a reviewer
 * sees them, chat that reads like a conversation, connectors and exposure review, operational
 * events with their rules, ingestion, evaluation, projects and skills, and an axe-core check
 * of every page of the console.
 */
describe('console pages for every role (Chromium)', function () {
  this.timeout(180_000);
  let c: ConsoleBrowser;
  let t: TestPlatform;
  let base: string;
  let admin: Session;
  let reviewer: Session;
  let otherReviewer: Session;
  let operator: Session;
  let power: Session;
  let source: SourceDatabase | undefined;
  let wellId: string;
  let checklistId: string;

  before(async function () {
    const started = await startConsoleBrowser({ CONNECTOR_EGRESS_ALLOW: '127.0.0.0/8' });
    if (!started) this.skip();
    c = started!;
    ({ t, base } = c);
    const tenantId = randomUUID();
    admin = await signIn(t, { roles: ['admin'], tenantId });
    reviewer = await signIn(t, { roles: ['reviewer'], tenantId });
    otherReviewer = await signIn(t, { roles: ['reviewer'], tenantId });
    operator = await signIn(t, { roles: ['operator'], tenantId });
    power = await signIn(t, { roles: ['power_user'], tenantId });
    expect((await t.api.post('/graph/seed', { wells: 12 }, admin.headers)).status).to.equal(201);
    wellId = (await t.api.get('/graph/entities/Well?limit=1', operator.headers)).body.entities[0].entity_id;
    const checklist = await t.api.post('/checklists', { template_id: 'form_pr', entity_id: wellId }, operator.headers);
    expect(checklist.status).to.equal(201);
    checklistId = checklist.body.checklist_id;
  });
  after(async () => {
    await source?.drop();
    await c?.close();
  });

  const filing = (period: string) => ({
    kind: 'filing',
    summary: `File Form PR for well ${wellId} for ${period}`,
    entity: { id: wellId, type: 'Well', name: 'HOEFS 1H', api_number: wellId },
    form: 'form_pr',
    form_label: 'Form PR (monthly production report)',
    period,
    figures: [
      { label: 'Oil produced', value: 1234.5, unit: 'bbl', source: `graph:Well/${wellId}` },
      { label: 'Gas flared', value: null, unit: 'mcf', source: null },
    ],
    validations: [
      { key: 'production_found', label: 'Production found', status: 'pass', message: 'March production is on record' },
      {
        key: 'flaring_authorized',
        label: 'Flaring authorized',
        status: 'fail',
        message: 'No R-32 authorization covers the flared volume',
      },
    ],
    checklist_id: checklistId,
    conversation_id: null,
    execution_id: null,
  });

  async function approvalFor(payload: object, extra: object = {}): Promise<string> {
    const created = await t.api.post(
      '/approvals',
      { checkpoint_type: 'filing_submission', payload, ...extra },
      operator.headers,
    );
    expect(created.status).to.equal(201);
    return created.body.approval_id;
  }

  it('the start page shows what needs the user today, with links into the matrix', async () => {
    await approvalFor(filing('2026-09'));
    await t.api.post('/compliance/assess', {}, admin.headers);
    const { context, page } = await c.as(reviewer);
    await page.goto(`${base}/`);
    await page.getByRole('heading', { name: /Approvals waiting for you \(\d+\)/ }).waitFor();
    await page.getByRole('link', { name: `File Form PR for well ${wellId} for 2026-09` }).waitFor();
    await page.getByRole('heading', { name: /Your checklists/ }).waitFor();
    const overdue = page.getByRole('link', { name: /Overdue/ });
    await overdue.waitFor();
    await expectAccessible(page, 'start page (reviewer)');
    await c.shot(page, 'home');
    await overdue.click();
    await page.getByRole('heading', { name: 'Compliance', level: 1 }).waitFor();
    expect(await page.getByLabel('Bucket').inputValue()).to.equal('overdue');
    await context.close();

    // The operator's own checklist is listed on theirs.
    const o = await c.as(operator);
    await o.page.goto(`${base}/`);
    await o.page
      .getByRole('link', { name: /Form PR/ })
      .first()
      .waitFor();
    await o.page.getByRole('heading', { name: 'Recent conversations' }).waitFor();
    await o.context.close();
  });

  it('a reviewer sees what they approve: entity, form and period in the queue; figures, sources, validations and links on the page; a refusal in place', async () => {
    const id = await approvalFor(filing('2026-10'));
    const { context, page } = await c.as(reviewer);
    await page.goto(`${base}/approvals`);
    const row = page.getByRole('row').filter({ hasText: '2026-10' });
    await row.waitFor();
    expect(await row.innerText())
      .to.include('Form PR (monthly production report)')
      .and.to.include('HOEFS 1H');
    await c.shot(page, 'approvals-queue');
    await row.getByRole('link', { name: 'filing submission' }).click();
    await page.getByRole('heading', { name: 'What would be filed' }).waitFor();
    const figures = page.getByRole('table', { name: 'Figures' });
    expect(await figures.getByRole('row').filter({ hasText: 'Oil produced' }).innerText()).to.match(
      /1,234\.5\s+bbl\s+graph:Well\//,
    );
    expect(await figures.getByRole('row').filter({ hasText: 'Gas flared' }).innerText()).to.include('missing');
    await page.getByRole('link', { name: `graph:Well/${wellId}` }).waitFor();
    const validations = page.getByRole('list', { name: 'Validations' });
    expect(await validations.innerText())
      .to.include('Flaring authorized')
      .and.to.include('No R-32 authorization');
    expect(await page.getByRole('link', { name: 'Open the checklist' }).getAttribute('href')).to.equal(
      `/checklists/${checklistId}`,
    );
    await expectAccessible(page, 'approval detail (filing)');
    await c.shot(page, 'approval-detail');
    // Approving over the failed validation asks why, and the reason is kept with the decision.
    expect(await page.getByRole('note').innerText())
      .to.include('1 validation failed')
      .and.to.include('Flaring authorized');
    await page.getByLabel('Approve', { exact: true }).check();
    await page.getByRole('button', { name: 'Record decision' }).click();
    await page.getByRole('alert').filter({ hasText: 'although validations failed' }).waitFor();
    await page
      .getByLabel('Justification for approving over the failed validations')
      .fill('R-32 granted by phone, paper follows');
    await page.getByRole('button', { name: 'Record decision' }).click();
    await page.getByRole('heading', { name: 'Decision' }).waitFor();
    await page.getByText('Failed checks approved over: Flaring authorized').waitFor();
    await page.getByText('R-32 granted by phone, paper follows').waitFor();
    const decided = (await t.api.get(`/approvals/${id}`, reviewer.headers)).body;
    expect(decided.status).to.equal('approved');
    expect(decided.decision).to.deep.include({
      justification: 'R-32 granted by phone, paper follows',
      overridden_validations: ['flaring_authorized'],
    });
    await expectAccessible(page, 'approval detail (decided)');

    // A decision the API refuses (named to another reviewer: 403 {detail}) is shown where the buttons are.
    const named = await approvalFor(filing('2026-11'), {
      reviewer_strategy: 'named_individual',
      reviewer_id: otherReviewer.userId,
    });
    await page.goto(`${base}/approvals/${named}`);
    await page.getByLabel('Reject').check();
    await page.getByRole('button', { name: 'Record decision' }).click();
    await page.getByRole('alert').filter({ hasText: 'reason for the rejection' }).waitFor();
    await page.getByLabel('Reason for the rejection').fill('Wrong period');
    await page.getByRole('button', { name: 'Record decision' }).click();
    const refusal = page.getByRole('form', { name: 'Decide' }).getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.innerText()).to.include('(403)');
    expect((await t.api.get(`/approvals/${named}`, reviewer.headers)).body.status).to.equal('pending');

    // Other payloads keep their key/value rows.
    const plain = await approvalFor({ note: 'by hand', volume_bbl: 12 });
    await page.goto(`${base}/approvals/${plain}`);
    await page.getByRole('heading', { name: 'Payload' }).waitFor();
    await page.getByText('by hand').waitFor();
    await context.close();
  });

  it('chat shows the answer once, the turn panel with progress and collapsed tool calls, and folds long text', async () => {
    const conversation = await t.api.post(
      '/conversations',
      { agent_id: 'default', title: 'Well status' },
      operator.headers,
    );
    const id = conversation.body.id as string;
    const { context, page } = await c.as(operator);
    await page.goto(`${base}/chat/${id}`);
    const long = `Please summarise these notes. ${'The separator pressure held steady through the night. '.repeat(40)}`;
    await page.getByRole('textbox', { name: 'Message' }).fill(long);
    await page.getByRole('button', { name: 'Send' }).click();
    await page
      .getByText(/^Completed|Awaiting review/)
      .first()
      .waitFor({ timeout: 60_000 });
    const messages = await t.api.get(`/conversations/${id}/messages`, operator.headers);
    const answer = messages.body.messages.filter((m: { role: string }) => m.role === 'assistant').pop();
    expect(answer, 'an assistant message').to.not.equal(undefined);
    await page.locator('.message.assistant').last().waitFor();
    const firstLine = String(answer.content).split('\n')[0].slice(0, 60);
    // The answer appears once on the page: in the message list, not again in the turn panel.
    expect(await page.locator('.turn').innerText()).to.not.include(firstLine);
    expect(await page.locator('.message.assistant').filter({ hasText: firstLine }).count()).to.equal(1);
    // The long message is folded, and unfolds on demand.
    const more = page.getByRole('button', { name: /Show all \(/ }).first();
    await more.waitFor();
    await more.click();
    expect(await page.getByRole('button', { name: 'Show less' }).first().getAttribute('aria-expanded')).to.equal(
      'true',
    );
    await expectAccessible(page, 'chat');
    await context.close();
  });

  it('connectors: register, set the credential, draft an exposure with live validation, review it with the diff against the approved version', async () => {
    source = await createSourceDatabase();
    const key = `src_${randomUUID().slice(0, 6)}`;
    const a = await c.as(admin);
    await a.page.goto(`${base}/connectors`);
    await a.page.getByText('No connector is registered yet.').waitFor();
    const register = a.page.getByRole('form', { name: 'Register a connector' });
    await register.getByLabel('Key').fill(key);
    await register.getByLabel('Display name').fill('Field database');
    await register.getByLabel('Engine').selectOption('postgresql');
    await register
      .getByLabel('Config (JSON)')
      .fill(JSON.stringify({ host: source.host, port: source.port, database: source.database, sslmode: 'disable' }));
    await register.getByRole('button', { name: 'Register' }).click();
    await a.page.getByRole('heading', { name: 'Connector Field database' }).waitFor();
    const credential = a.page.getByRole('form', { name: 'Set the credential' });
    await credential.getByLabel('username').fill(source.readOnly.username);
    await credential.getByLabel('password').fill(source.readOnly.password);
    await credential.getByRole('button', { name: 'Save and probe' }).click();
    await a.page.getByRole('heading', { name: `${key} active` }).waitFor({ timeout: 30_000 });
    await a.page.getByRole('heading', { name: 'Schema' }).waitFor();
    await a.page.getByText('src.wells').waitFor();
    await expectAccessible(a.page, 'connector page (admin)');
    await c.shot(a.page, 'connector');

    // A power user drafts the exposure; the validator answers as they type.
    const p = await c.as(power);
    await p.page.goto(`${base}/connectors/${key}`);
    const draft = p.page.getByRole('form', { name: 'Draft an exposure' });
    await draft.getByLabel('Exposure key').fill('wells_by_operator');
    await draft.getByRole('textbox', { name: 'SQL' }).fill('delete from src.wells');
    await draft.getByRole('list', { name: 'SQL problems' }).waitFor();
    await draft.getByRole('textbox', { name: 'SQL' }).fill('select api, name\nfrom src.wells\nwhere operator_id = :op');
    await draft.getByRole('status').filter({ hasText: 'valid' }).waitFor();
    await draft.getByLabel(/^Parameters/).fill('[{"name": "op", "type": "integer"}]');
    await draft.getByRole('button', { name: 'Save draft' }).click();
    await p.page.getByText('wells_by_operator').first().waitFor();
    await p.page.getByRole('button', { name: 'Submit for review' }).click();
    await p.page.locator('summary').filter({ hasText: 'wells_by_operator' }).getByText('pending review').waitFor();

    // The admin's review queue lists it; approving pins it.
    await a.page.goto(`${base}/connectors`);
    await a.page.getByRole('link', { name: /wells_by_operator/ }).click();
    await a.page.getByText('Never approved: all of it is new.').waitFor();
    await a.page.getByRole('button', { name: 'Approve' }).click();
    await a.page.locator('summary').filter({ hasText: 'wells_by_operator' }).getByText('approved').waitFor();

    // An edit after approval: the review shows what changed since.
    const edited = await t.api.patch(
      `/connectors/${key}/exposures/wells_by_operator`,
      { sql: 'select api, name, depth_ft\nfrom src.wells\nwhere operator_id = :op' },
      power.headers,
    );
    expect(edited.status).to.equal(200);
    expect(
      (await t.api.post(`/connectors/${key}/exposures/wells_by_operator/submit`, {}, power.headers)).status,
    ).to.equal(200);
    await a.page.goto(`${base}/connectors/${key}?exposure=wells_by_operator`);
    const diff = a.page.getByLabel('Changes since the approved version');
    await diff.waitFor();
    expect(await diff.locator('.del').innerText()).to.include('select api, name');
    expect(await diff.locator('.add').innerText()).to.include('select api, name, depth_ft');
    await c.shot(a.page, 'exposure-review');
    // Preview runs the draft on the live source.
    await a.page.getByLabel('Preview parameters (JSON object)').fill('{"op": 1}');
    await a.page.getByRole('button', { name: 'Preview' }).click();
    await a.page.getByRole('table', { name: 'Preview rows' }).waitFor();
    await a.context.close();
    await p.context.close();
  });

  it('operational events: fields shown and hidden by the conditional rules as the user types, guard rules refused at the field on submit', async () => {
    const type = await t.api.post(
      '/event-types',
      {
        name: 'Flare event',
        category: 'air',
        status: 'active',
        fields: [
          { name: 'kind', type: 'select', options: ['flaring', 'venting'], required: true },
          { name: 'volume_mcf', type: 'number', required: true },
          { name: 'flare_reason', type: 'text' },
        ],
      },
      power.headers,
    );
    expect(type.status, JSON.stringify(type.body)).to.equal(201);
    const typeId = type.body.id as string;
    expect(
      (
        await t.api.post(
          `/event-types/${typeId}/conditional-rules`,
          { field: 'flare_reason', effect: 'show', when: { field: 'kind', operator: 'equals', value: 'flaring' } },
          power.headers,
        )
      ).status,
    ).to.equal(201);
    const guard = await t.api.post(
      `/event-types/${typeId}/guard-rules`,
      {
        name: 'daily cap',
        field: 'volume_mcf',
        operator: 'lte',
        value: 1000,
        message: 'above the 1,000 mcf daily cap',
      },
      power.headers,
    );
    expect(guard.status).to.equal(201);
    expect(
      (await t.api.post(`/event-types/${typeId}/guard-rules/${guard.body.id}/publish`, {}, power.headers)).status,
    ).to.equal(200);

    const { context, page } = await c.as(operator);
    await page.goto(`${base}/events`);
    const form = page.getByRole('form', { name: 'Log an event' });
    // The seed ships its own event types (flare upset, spill…): pick the one made here.
    await form.getByLabel('Event type').selectOption(typeId);
    await form.getByLabel('Entity id').fill(wellId);
    expect(await form.getByLabel('flare_reason').count()).to.equal(0);
    await form.getByLabel('kind (required)').selectOption('flaring');
    await form.getByLabel('flare_reason').waitFor();
    await form.getByLabel('kind (required)').selectOption('venting');
    await form.getByLabel('flare_reason').waitFor({ state: 'detached' });
    await form.getByLabel('kind (required)').selectOption('flaring');
    await form.getByLabel('flare_reason').fill('compressor down');
    await form.getByLabel('volume_mcf (required)').fill('5000');
    await form.getByRole('button', { name: 'Log event' }).click();
    const atField = form.locator('#field-volume_mcf-error');
    await atField.waitFor();
    expect(await atField.innerText()).to.include('daily cap');
    expect(await form.getByLabel('volume_mcf (required)').getAttribute('aria-invalid')).to.equal('true');
    await expectAccessible(page, 'events with a refused submission');
    await c.shot(page, 'events');
    await form.getByLabel('volume_mcf (required)').fill('800');
    await form.getByRole('button', { name: 'Log event' }).click();
    await form.getByRole('status').filter({ hasText: 'Event logged.' }).waitFor();
    await page.getByRole('table', { name: 'Operational events' }).getByText('compressor down').waitFor();
    const stored = await t.api.get(`/events?event_type_id=${typeId}`, operator.headers);
    expect(stored.body.events[0].fields).to.deep.equal({
      kind: 'flaring',
      volume_mcf: 800,
      flare_reason: 'compressor down',
    });
    await context.close();
  });

  it('ingestion: a CSV upload shows its progress and the rejection report as a table, then appears in the import history', async () => {
    const csv = [
      'API_NO,WELL_NAME,SURFACE_LAT,SURFACE_LONG',
      '42-301-30001,CONSOLE 1,31.9,-103.5',
      '42-301-30003,CONSOLE 2,51.9,-103.5',
      'not-an-api,CONSOLE 3,31.9,-103.5',
    ].join('\n');
    const { context, page } = await c.as(admin);
    await page.goto(`${base}/ingestion`);
    const form = page.getByRole('form', { name: 'Operator CSV' });
    await form
      .getByLabel('CSV file')
      .setInputFiles({ name: 'wells.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await form.getByRole('button', { name: 'Import' }).click();
    await form
      .getByRole('heading', { name: /wells\.csv: 1 of 3 rows accepted, 2 rejected/ })
      .waitFor({ timeout: 60_000 });
    const report = form.getByRole('table', { name: /Rejected rows/ });
    expect(await report.getByRole('row').count()).to.equal(3);
    expect(await report.getByRole('row').nth(1).innerText()).to.match(/^2\s+latitude\s+51\.9/);
    // The finished upload appears in the import history, and its report can be read again there.
    const history = page.getByRole('table', { name: 'Imports, newest first' });
    await history.getByRole('row', { name: /CSV import\s+wells\.csv\s+completed\s+3\s+1\s+2/ }).waitFor();
    await history.getByRole('button', { name: /rejected rows of wells\.csv/ }).click();
    const past = page.getByRole('table', { name: /Rejected rows of wells\.csv/ });
    await past.waitFor();
    expect(await past.getByRole('row').count()).to.equal(3);
    await expectAccessible(page, 'ingestion');
    await c.shot(page, 'ingestion');
    await context.close();
  });

  it('projects: create one, set its instructions and defaults, add a knowledge file', async () => {
    const { context, page } = await c.as(operator);
    await page.goto(`${base}/projects`);
    await page.getByLabel('Name').fill('Permian filings');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'Project Permian filings' }).waitFor();
    const id = new URL(page.url()).pathname.split('/').pop()!;
    await page.getByRole('textbox', { name: /^Instructions/ }).fill('Answer with the RRC form number first.');
    await page.getByLabel('Thinking mode').selectOption('disabled');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.getByLabel(/^Add a file/).setInputFiles({
      name: 'notes.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('Form PR is due on the last working day of the following month.'),
    });
    await page.getByRole('button', { name: 'Remove notes.txt' }).waitFor({ timeout: 30_000 });
    const stored = await t.api.get(`/projects/${id}`, operator.headers);
    expect(stored.body).to.include({ instructions: 'Answer with the RRC form number first.' });
    expect(stored.body.defaults).to.deep.equal({ thinking_mode: 'disabled' });
    expect(stored.body.knowledge_files.map((f: { filename: string }) => f.filename)).to.deep.equal(['notes.txt']);
    await expectAccessible(page, 'project');
    await c.shot(page, 'project');
    await context.close();
  });

  it('skills: a power user writes a skill, which the agents list then offers', async () => {
    const { context, page } = await c.as(power);
    await page.goto(`${base}/skills`);
    const form = page.getByRole('form', { name: 'New skill' });
    await form.getByLabel('Key').fill('tank_gauging');
    await form.getByLabel('Name').fill('Tank gauging');
    await form.getByLabel('Trigger words (comma-separated)').fill('tank, gauge, strapping');
    await form
      .getByLabel('Instructions')
      .fill('Read the gauge at the same time each day and record the strapping table id.');
    await form.getByRole('button', { name: 'Create skill' }).click();
    await page.getByRole('row').filter({ hasText: 'tank_gauging' }).waitFor();
    const skills = await t.api.get('/skills', power.headers);
    expect(skills.body.skills.find((s: { key: string }) => s.key === 'tank_gauging')).to.include({
      name: 'Tank gauging',
      version: 1,
    });
    await expectAccessible(page, 'skills');
    await context.close();
    // Without skills.author the page offers no action.
    const o = await c.as(operator);
    await o.page.goto(`${base}/skills`);
    await o.page.getByRole('row').filter({ hasText: 'tank_gauging' }).waitFor();
    expect(await o.page.getByRole('form', { name: 'New skill' }).count()).to.equal(0);
    expect(
      await o.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Skills' }).count(),
    ).to.equal(0);
    await o.context.close();
  });

  it('every page passes axe-core with no serious or critical violation', async () => {
    const { context, page } = await c.as(admin);
    const visit = async (path: string, ready: (p: Page) => Promise<unknown>, screenshot?: string) => {
      await page.goto(`${base}${path}`);
      await ready(page);
      // Every list on the page has loaded (no "Loading …" status left).
      await page.waitForFunction(() => !/Loading [^\n]*…/.test(document.body.innerText));
      await expectAccessible(page, path);
      if (screenshot) await c.shot(page, screenshot);
    };
    const h1 = (name: string | RegExp) => (p: Page) => p.getByRole('heading', { name, level: 1 }).waitFor();
    await visit('/', h1(/^Good day/));
    await visit('/approvals', h1('Approvals'));
    await visit('/chat', h1('Chat'));
    await visit('/compliance', (p) => p.getByRole('table', { name: /Compliance matrix/ }).waitFor());
    await visit('/checklists', h1('Checklists'));
    await visit(`/checklists/${checklistId}`, (p) => p.getByRole('button', { name: 'Run live assessment' }).waitFor());
    await visit('/graph', h1('Knowledge graph'));
    await visit(`/graph/Well/${encodeURIComponent(wellId)}`, (p) =>
      p.getByRole('heading', { name: 'Properties' }).waitFor(),
    );
    await visit('/admin', (p) => p.getByRole('form', { name: 'Invite a user' }).waitFor());
    await visit('/connectors', h1('Connectors'));
    await visit('/events', h1('Operational events'));
    await visit('/ingestion', (p) => p.getByRole('form', { name: 'Operator CSV' }).waitFor());
    await visit('/evaluation', (p) => p.getByRole('heading', { name: 'Runs' }).waitFor(), 'evaluation');
    await visit('/projects', h1('Projects'));
    await visit('/skills', h1('Skills'));
    await visit('/no-such-page', h1('Not found'));
    await context.close();
    // And signed out: the login form.
    const anon = await c.as(null);
    await anon.page.goto(`${base}/`);
    await anon.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await expectAccessible(anon.page, 'sign in');
    await anon.context.close();
  });
});
