import { randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { signIn, type Session } from '../../support/auth';
import type { TestPlatform } from '../../support/platform';
import { type ConsoleBrowser, pager, startConsoleBrowser } from './browser';

/**
 * The console in a real browser (see ./browser.ts). Skipped when /usr/bin/chromium is absent
 * (`.ci/run` installs it). `CONSOLE_SCREENSHOTS=1` also writes the screenshots to docs/screenshots/.
 */
describe('console in a real browser (Chromium)', function () {
  this.timeout(120_000);
  let c: ConsoleBrowser;
  let t: TestPlatform;
  let browser: Browser;
  let base: string;
  let tenantId: string;
  let wellId: string;
  let reviewer: Session;
  let operator: Session;
  let admin: Session;

  before(async function () {
    const started = await startConsoleBrowser();
    if (!started) this.skip();
    c = started!;
    ({ t, browser, base } = c);
    tenantId = randomUUID();
    reviewer = await signIn(t, { roles: ['reviewer'], tenantId });
    operator = await signIn(t, { roles: ['operator'], tenantId });
    admin = await signIn(t, { roles: ['admin'], tenantId });
    expect((await t.api.post('/graph/seed', { wells: 30 }, admin.headers)).status).to.equal(201);
    wellId = (await t.api.get('/graph/entities/Well?limit=1', admin.headers)).body.entities[0].entity_id;
  });
  after(async () => {
    await c?.close();
  });

  const as = (session: Session | null, width = 1280) => c.as(session, width);
  /** A filing request the builtin assistant takes to review: a filing intent, the form, a seeded well and a month. */
  const filingRequest = (month: string) => `Please submit the Form PR filing for well ${wellId} for ${month}`;
  const shot = (page: Page, name: string) => c.shot(page, name);

  it('serves the app at / and deep links, while /api/v1 and /health keep their JSON answers', async () => {
    const root = await fetch(`${base}/`);
    expect(root.status).to.equal(200);
    expect(await root.text()).to.include('<div id="root">');
    const deep = await fetch(`${base}/approvals/some-id`);
    expect(deep.headers.get('content-type')).to.include('text/html');
    const missing = await fetch(`${base}/api/v1/no-such-route`);
    expect(missing.headers.get('content-type')).to.include('application/json');
    const health = await fetch(`${base}/health`);
    expect(health.headers.get('content-type')).to.include('application/json');
  });

  it('signs in with email and password, shows role-aware navigation, signs out, and an expired session returns to login and back', async () => {
    const { context, page } = await as(null);
    await page.goto(`${base}/compliance`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await shot(page, 'login');
    await page.getByLabel('Email').fill('admin@example.com');
    await page.getByLabel('Password').fill('wrong-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Invalid email or password' }).waitFor();
    expect(await page.getByLabel('Email').inputValue()).to.equal('admin@example.com');
    await page.getByLabel('Password').fill('bootstrap-password-1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Compliance', level: 1 }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Main' });
    // The administrator's pages sit behind the "Admin" group so the bar fits one row.
    await nav.getByRole('button', { name: 'Admin' }).click();
    expect(await nav.getByRole('link', { name: 'Administration' }).count()).to.equal(1);

    // The session cookie disappears (expired): the next API call answers 401 → login, then back here.
    await context.clearCookies();
    await nav.getByRole('link', { name: 'Approvals' }).click();
    await page.getByText('Your session has ended').waitFor();
    await page.getByLabel('Email').fill('admin@example.com');
    await page.getByLabel('Password').fill('bootstrap-password-1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Approvals', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).to.equal('/approvals');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect((await context.cookies()).find((c) => c.name === 'svc_token')).to.equal(undefined);
    await context.close();

    // A reviewer starts on their day's page and sees no Administration link (the API would refuse it too).
    const r = await as(reviewer);
    await r.page.goto(`${base}/`);
    await r.page.getByRole('heading', { name: /Approvals waiting for you/ }).waitFor();
    expect(
      await r.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Administration' }).count(),
    ).to.equal(0);
    await r.context.close();
  });

  it('a reviewer decides a pending approval with modifications from the queue; the decision shows who and when', async () => {
    const created = await t.api.post(
      '/approvals',
      { checkpoint_type: 'filing_submission', payload: { form: 'PR', well: '42-301-12345', oil_bbl: 1250 } },
      operator.headers,
    );
    expect(created.status).to.equal(201);
    const id = created.body.approval_id as string;
    const { context, page } = await as(reviewer);
    await page.goto(`${base}/approvals`);
    const row = page.getByRole('row').filter({ hasText: 'pending' }).first();
    await row.waitFor();
    await shot(page, 'approvals-queue');
    await page.getByRole('link', { name: 'filing submission' }).first().click();
    await page.getByRole('heading', { name: 'Payload' }).waitFor();
    await page.getByText('42-301-12345').waitFor();

    // Nothing is preselected: recording without a choice asks for one.
    expect(await page.getByRole('radio', { checked: true }).count()).to.equal(0);
    await page.getByRole('button', { name: 'Record decision' }).click();
    await page.getByRole('alert').filter({ hasText: 'Choose a decision' }).waitFor();
    // Modifications are fields with their current values; unchanged, there is nothing to modify.
    await page.getByLabel('Approve with modifications').check();
    expect(await page.getByLabel('oil bbl').inputValue()).to.equal('1250');
    await page.getByRole('button', { name: 'Record decision' }).click();
    await page.getByRole('alert').filter({ hasText: 'Change at least one value' }).waitFor();
    await page.getByLabel('oil bbl').fill('1200');
    await page.getByLabel('Comments').fill('Volume corrected from the run tickets');
    await shot(page, 'approval-detail');
    await page.getByRole('button', { name: 'Record decision' }).click();
    await page.getByRole('heading', { name: 'Decision' }).waitFor();
    // The decider by name, never by id.
    await page.locator('.decision').getByText('Test reviewer user').waitFor();
    expect(await page.getByText(reviewer.userId).count()).to.equal(0);
    const stored = await t.api.get(`/approvals/${id}`, reviewer.headers);
    expect(stored.body.status).to.equal('modified');
    expect(stored.body.decision).to.include({
      reviewer_id: reviewer.userId,
      comments: 'Volume corrected from the run tickets',
    });
    expect(stored.body.decision.modifications).to.deep.equal({ oil_bbl: 1200 });
    await context.close();
  });

  it('an operator streams a turn that pauses for review, with node progress and a link to its approval, which a reviewer then approves', async () => {
    const conversation = await t.api.post(
      '/conversations',
      { agent_id: 'default', title: 'Form PR for March' },
      operator.headers,
    );
    expect(conversation.status).to.equal(200);
    const id = conversation.body.id as string;
    const { context, page } = await as(operator);
    await page.goto(`${base}/chat/${id}`);
    await page.getByRole('textbox', { name: 'Message' }).fill(filingRequest('2026-03'));
    await page.getByRole('button', { name: 'Send' }).click();
    const link = page.getByRole('link', { name: 'Open the approval' });
    await link.waitFor({ timeout: 60_000 });
    const progress = page.getByRole('list', { name: 'Pipeline progress' });
    for (const node of ['system prompt node', 'memory node', 'approval node', 'output format']) {
      expect(await progress.getByText(node).getAttribute('class')).to.equal('done');
    }
    await page.getByText('Awaiting review').waitFor();
    await shot(page, 'chat-paused');
    const href = (await link.getAttribute('href'))!;
    const approvalId = href.split('/').pop()!;
    await link.click();
    await page.getByText('Awaiting a reviewer').waitFor();
    await context.close();

    const r = await as(reviewer);
    await r.page.goto(`${base}/approvals/${approvalId}`);
    await r.page.getByLabel('Approve', { exact: true }).check();
    // A filing the agent's checks failed on is approved only with a justification.
    const payload = (await t.api.get(`/approvals/${approvalId}`, reviewer.headers)).body.payload;
    const failed = (payload.validations ?? []).some((v: { status: string }) => v.status === 'fail');
    if (failed)
      await r.page
        .getByLabel('Justification for approving over the failed validations')
        .fill('Checked against the run tickets');
    await r.page.getByRole('button', { name: 'Record decision' }).click();
    await r.page.getByRole('heading', { name: 'Decision' }).waitFor();
    expect((await t.api.get(`/approvals/${approvalId}`, reviewer.headers)).body.status).to.equal('approved');
    await r.context.close();
  });

  it('the compliance matrix shows colored cells for a seeded portfolio and filters by bucket and search', async () => {
    const assessed = await t.api.post('/compliance/assess', {}, admin.headers);
    expect(assessed.status).to.be.oneOf([200, 201, 202]);
    // The read model catches up asynchronously.
    let total = 0;
    for (let i = 0; i < 60 && total === 0; i++) {
      total = (await t.api.get('/compliance/matrix?page_size=1', admin.headers)).body.total ?? 0;
      if (total === 0) await new Promise((r) => setTimeout(r, 500));
    }
    expect(total).to.be.greaterThan(0);
    const { context, page } = await as(admin);
    await page.goto(`${base}/compliance`);
    const matrix = page.getByRole('table', { name: /Compliance matrix/ });
    await matrix.getByRole('row').nth(1).waitFor();
    expect(await matrix.locator('.cell').count()).to.be.greaterThan(0);
    await pager(page, total);
    await shot(page, 'compliance');

    const overdue = (await t.api.get('/compliance/matrix?bucket=overdue&page_size=1', admin.headers)).body
      .total as number;
    await page.getByLabel('Bucket').selectOption('overdue');
    await pager(page, overdue);

    await page.getByLabel('Bucket').selectOption('');
    const first = (await t.api.get('/compliance/matrix?page_size=1', admin.headers)).body.rows[0];
    const matching = (
      await t.api.get(`/compliance/matrix?search=${encodeURIComponent(first.entity_id)}&page_size=1`, admin.headers)
    ).body.total as number;
    expect(matching).to.be.lessThan(total);
    await page.getByLabel('Search').fill(first.entity_id);
    await pager(page, matching);
    await matrix.getByRole('rowheader').filter({ hasText: first.entity_id }).waitFor();
    expect(await matrix.getByRole('row').count()).to.equal(Math.min(matching, 25) + 1);

    // Tablet width: the navigation collapses behind a Menu button.
    await page.setViewportSize({ width: 700, height: 900 });
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Chat' }).waitFor();
    await context.close();
  });

  it('a checklist runs its live workspace assessment: fields and validations fill in as the stream arrives', async () => {
    const wells = await t.api.get('/graph/entities/Well?limit=5', operator.headers);
    const wellId = wells.body.entities[0].entity_id as string;
    const created = await t.api.post('/checklists', { template_id: 'form_pr', entity_id: wellId }, operator.headers);
    expect(created.status).to.equal(201);
    const { context, page } = await as(operator);
    await page.goto(`${base}/checklists/${created.body.checklist_id}`);
    await page.getByRole('button', { name: 'Run live assessment' }).click();
    await page.getByRole('status').filter({ hasText: 'Assessment: completed' }).waitFor({ timeout: 60_000 });
    const rendered = await page.locator('.items .facts dt, .items .validations li').count();
    expect(rendered).to.be.greaterThan(0);
    await shot(page, 'checklist-assessment');

    // An incomplete checklist cannot be submitted: the API's 409 names the items, next to the button.
    await page.getByRole('button', { name: 'Submit for review' }).click();
    await page.getByRole('alert').first().waitFor();
    expect(await page.locator('ul.error li').count()).to.be.greaterThan(0);
    await context.close();
  });

  it('an administrator invites a user and sees the invitation link; a duplicate invitation shows the API error in the form', async () => {
    const { context, page } = await as(admin);
    await page.goto(`${base}/admin`);
    const form = page.getByRole('form', { name: 'Invite a user' });
    const email = `new-${randomUUID().slice(0, 8)}@example.com`;
    await form.getByLabel('Email').fill(email);
    await form.getByLabel('Display name').fill('New Reviewer');
    await form.getByLabel('reviewer').check();
    await form.getByRole('button', { name: 'Invite' }).click();
    await page.getByText('Invitation created').waitFor();
    await page.getByRole('cell', { name: `New Reviewer ${email}` }).waitFor();
    await shot(page, 'admin-users');
    await form.getByLabel('Email').fill(email);
    await form.getByRole('button', { name: 'Invite' }).click();
    await page.getByRole('alert').first().waitFor();
    expect(await form.getByLabel('Email').inputValue()).to.equal(email);
    await context.close();
  });

  it("a well's entity page shows its properties, its relationships and the impact tree", async () => {
    const wells = await t.api.get('/graph/entities/Well?limit=5', admin.headers);
    const well = wells.body.entities[0];
    const { context, page } = await as(admin);
    await page.goto(`${base}/graph/Well/${encodeURIComponent(well.entity_id)}`);
    await page.getByRole('heading', { name: 'Properties' }).waitFor();
    // The impact tree is folded until asked for.
    await page.getByText('Impact tree').click();
    await page.locator('.tree li').first().waitFor();
    await page.getByRole('heading', { name: 'Related' }).waitFor();
    await page.locator('h3.small-heading').first().waitFor();
    expect(await page.getByRole('alert').count()).to.equal(0);
    await shot(page, 'graph-entity');
    await context.close();
  });

  it('a dropped stream resumes with Last-Event-ID: the browser reconnects after the last frame it saw, and no second turn starts', async () => {
    // A proxy in front of the platform cuts the first stream response after its first frames.
    const upstream = new URL(t.publicUrl);
    const streams: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
    const proxy = createServer((req, res) => {
      const isStream = req.url!.includes('/stream');
      const record = isStream ? { headers: req.headers, body: '' } : null;
      if (record) streams.push(record);
      const cut = isStream && streams.length === 1;
      const up = httpRequest(
        { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
        (ur) => {
          res.writeHead(ur.statusCode ?? 502, ur.headers);
          let dropped = false;
          ur.on('data', (chunk: Buffer) => {
            if (dropped) return;
            if (record) record.body += chunk.toString();
            res.write(chunk);
            if (cut && (record!.body.match(/^event: node_end$/gm) ?? []).length >= 2) {
              // The browser reads what was sent, then the connection drops.
              dropped = true;
              ur.destroy();
              setTimeout(() => res.socket?.destroy(), 300);
            }
          });
          ur.on('end', () => res.end());
        },
      );
      up.on('error', () => res.destroy());
      req.pipe(up);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const via = `http://localhost:${(proxy.address() as AddressInfo).port}`;
    try {
      const conversation = await t.api.post(
        '/conversations',
        { agent_id: 'default', title: 'Resume' },
        operator.headers,
      );
      const id = conversation.body.id as string;
      const context = await browser.newContext();
      await context.addCookies([
        { name: 'svc_token', value: operator.token, url: via, httpOnly: true, secure: true, sameSite: 'Lax' },
      ]);
      const page = await context.newPage();
      await page.goto(`${via}/chat/${id}`);
      await page.getByRole('textbox', { name: 'Message' }).fill(filingRequest('2026-04'));
      await page.getByRole('button', { name: 'Send' }).click();
      await page.getByRole('link', { name: 'Open the approval' }).waitFor({ timeout: 60_000 });

      expect(streams.length).to.be.greaterThan(1);
      const firstIds = [...streams[0].body.matchAll(/^id: (.+)$/gm)].map((m) => m[1]);
      expect(streams[1].headers['last-event-id']).to.equal(firstIds[firstIds.length - 1]);
      const resumedIds = [...streams[1].body.matchAll(/^id: (.+)$/gm)].map((m) => m[1]);
      expect(resumedIds.filter((x) => firstIds.includes(x))).to.deep.equal([]);
      // Every node chip once, but the model and tool nodes, which run once per tool round by design
      // (a filing request takes two rounds: start_checklist, then request_approval).
      const chips = await page.getByRole('list', { name: 'Pipeline progress' }).locator('li').allInnerTexts();
      expect(
        chips.filter((c) => c.includes('×') && !c.startsWith('initial llm call') && !c.startsWith('tool node')),
      ).to.deep.equal([]);
      const messages = await t.api.get(`/conversations/${id}/messages`, operator.headers);
      expect(messages.body.messages.filter((m: { role: string }) => m.role === 'user')).to.have.length(1);
      await context.close();
    } finally {
      proxy.close();
    }
  });

  it('prompt templates: an administrator saves a draft, promotes it to pre-production, and is refused approving their own version', async () => {
    const ns = await t.api.post('/prompts/namespaces', { name: 'console' }, admin.headers);
    expect(ns.status).to.equal(201);
    const template = await t.api.post(
      '/prompts/templates',
      { namespace_id: ns.body.id, slug: 'greeting' },
      admin.headers,
    );
    expect(template.status).to.equal(201);
    const { context, page } = await as(admin);
    await page.goto(`${base}/admin`);
    await page.getByRole('tab', { name: 'Prompt templates' }).click();
    await page.getByRole('combobox', { name: /^Template/ }).selectOption(template.body.id);
    await page.getByLabel('Template body').fill('You are a careful compliance assistant.');
    await page.getByLabel('Change note').fill('first cut');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByRole('button', { name: 'Promote to pre-production' }).click();
    await page.getByRole('button', { name: 'Approve for production' }).click();
    await page.getByRole('alert').first().waitFor();
    const versions = await t.api.get(`/prompts/templates/${template.body.id}/versions`, admin.headers);
    expect(versions.body.map((v: { status: string }) => v.status)).to.deep.equal(['pre_production']);
    await shot(page, 'admin-prompts');
    await context.close();
  });

  it('a stream dropped before its first frame is not retried with its message (no second turn): the page attaches to the turn that started', async () => {
    const upstream = new URL(t.publicUrl);
    const streamUrls: string[] = [];
    const proxy = createServer((req, res) => {
      const isStream = req.url!.includes('/stream');
      if (isStream) streamUrls.push(req.url!);
      const swallow = isStream && streamUrls.length === 1;
      const up = httpRequest(
        { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
        (ur) => {
          if (swallow) {
            // The request reached the platform (the turn starts); the browser gets the response
            // headers but no frame before the connection drops. (Headers are sent so that the
            // browser's network stack does not silently retry the GET itself.)
            res.writeHead(ur.statusCode ?? 502, ur.headers);
            res.flushHeaders();
            ur.resume();
            setTimeout(() => res.socket?.destroy(), 300);
            return;
          }
          res.writeHead(ur.statusCode ?? 502, ur.headers);
          ur.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      req.pipe(up);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const via = `http://localhost:${(proxy.address() as AddressInfo).port}`;
    try {
      const conversation = await t.api.post(
        '/conversations',
        { agent_id: 'default', title: 'Early drop' },
        operator.headers,
      );
      const id = conversation.body.id as string;
      const context = await browser.newContext();
      await context.addCookies([
        { name: 'svc_token', value: operator.token, url: via, httpOnly: true, secure: true, sameSite: 'Lax' },
      ]);
      const page = await context.newPage();
      await page.goto(`${via}/chat/${id}`);
      await page.getByRole('textbox', { name: 'Message' }).fill(filingRequest('2026-05'));
      await page.getByRole('button', { name: 'Send' }).click();
      await page.getByRole('link', { name: 'Open the approval' }).waitFor({ timeout: 60_000 });
      expect(streamUrls).to.have.length(2);
      expect(new URL(streamUrls[1], via).searchParams.has('message')).to.equal(false);
      const messages = await t.api.get(`/conversations/${id}/messages`, operator.headers);
      expect(messages.body.messages.filter((m: { role: string }) => m.role === 'user')).to.have.length(1);
      await context.close();
    } finally {
      proxy.close();
    }
  });
});
