import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { signIn, type Session } from '../../support/auth';
import type { TestPlatform } from '../../support/platform';
import { type ConsoleBrowser, expectAccessible, startConsoleBrowser } from './browser';

/**
 * A compliance team's day in Chromium, role by role: the reviewer finds why a cell is red and
 * what to do next, decides with a reason; the operator starts a lease's Form PR and sees the
 * outcome of their own checklists; the administrator invites a user who sets a password from
 * the link, resets and deactivates with a confirmation, and reads the settings audit log; and
 * no page scrolls sideways at 390 px. Every page visited is checked with axe-core.
 */
describe("a compliance team's day in the console (Chromium)", function () {
  this.timeout(240_000);
  let c: ConsoleBrowser;
  let t: TestPlatform;
  let base: string;
  let tenantId: string;
  let admin: Session;
  let reviewer: Session;
  let operator: Session;
  let power: Session;
  let leaseId: string;

  before(async function () {
    const started = await startConsoleBrowser();
    if (!started) this.skip();
    c = started!;
    ({ t, base } = c);
    tenantId = randomUUID();
    admin = await signIn(t, { roles: ['admin'], tenantId });
    reviewer = await signIn(t, { roles: ['reviewer'], tenantId });
    operator = await signIn(t, { roles: ['operator'], tenantId });
    power = await signIn(t, { roles: ['power_user'], tenantId });
    expect((await t.api.post('/graph/seed', { wells: 12 }, admin.headers)).status).to.equal(201);
    expect((await t.api.post('/compliance/assess', {}, admin.headers)).status).to.equal(200);
    // An oil lease: its Form PR is filed per lease (a gas lease's per well).
    const leases = (await t.api.get('/graph/entities/Lease?limit=200', operator.headers)).body.entities as Array<{
      entity_id: string;
      properties: Record<string, string>;
    }>;
    leaseId = leases.find((l) => l.properties.oil_gas_code === 'O')!.entity_id;
  });
  after(async () => {
    await c?.close();
  });

  /** No horizontal scroll of the page itself (a wide table scrolls inside its own box). */
  const expectNoSidewaysScroll = async (page: Page, where: string) => {
    const { scroll, width, wide } = await page.evaluate(() => {
      // The outermost elements that stick out, to name the culprit when there is one.
      const out = [...document.querySelectorAll('body *')].filter(
        (e) => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest('.table-wrap'),
      );
      const outer = out.filter((e) => !out.includes(e.parentElement!)).slice(0, 3);
      return {
        scroll: document.documentElement.scrollWidth,
        width: window.innerWidth,
        wide: outer.map((e) => `${e.tagName.toLowerCase()}.${e.className}`),
      };
    });
    expect(scroll, `${where}: page width ${scroll} at a ${width} px window (${wide.join(', ')})`).to.be.at.most(width);
  };

  it('a reviewer sees the matrix most severe first, opens a red cell in place, and starts the checklist that fixes it from the entity page', async () => {
    const { context, page } = await c.as(reviewer);
    await page.goto(`${base}/compliance`);
    const matrix = page.getByRole('table', { name: /Compliance matrix/ });
    const firstRow = matrix.getByRole('row').nth(1);
    await firstRow.getByRole('button').first().waitFor();
    // Sorted by severity: the first entity has a violation, and "does not apply" is not "unknown".
    expect(await firstRow.getByRole('button', { name: /violation/ }).count()).to.be.greaterThan(0);
    expect(await matrix.getByText('does not apply').count()).to.be.greaterThan(0);
    const red = firstRow.getByRole('button', { name: /violation/ }).first();
    const name = (await red.getAttribute('aria-label'))!;
    await red.focus();
    await page.keyboard.press('Enter');
    expect(await red.getAttribute('aria-expanded')).to.equal('true');
    const verdict = page.getByRole('region', { name: /verdict$/ });
    await verdict.getByText(/^Due |No due date/).waitFor();
    expect(await verdict.innerText()).to.match(/violation/i);
    await expectAccessible(page, `compliance matrix with ${name} open`);
    await c.shot(page, 'compliance-verdict');

    // The entity page answers why, and what next.
    await verdict.getByRole('link', { name: 'Open the entity page' }).click();
    await page.getByRole('heading', { name: 'Compliance: why, and what next' }).waitFor();
    await page.locator('.verdict').first().waitFor();
    expect(await page.locator('.verdict-red').count()).to.be.greaterThan(0);
    const properties = page.getByRole('region', { name: 'Properties' });
    expect((await properties.locator('dt').allInnerTexts()).filter((term) => term.includes('_'))).to.deep.equal([]);
    await expectAccessible(page, 'entity page');

    // A well whose Form PR is late: its page offers the checklist that fixes it, filled in.
    const rows = (await t.api.get('/compliance/matrix?entity_type=well&sort_by=status&page_size=200', reviewer.headers))
      .body.rows as Array<{ entity_id: string; domains: Record<string, string> }>;
    const late = rows.find((r) => r.domains.production === 'red' || r.domains.production === 'amber');
    expect(late, 'a seeded well with a late Form PR').to.not.equal(undefined);
    await page.goto(`${base}/graph/Well/${encodeURIComponent(late!.entity_id)}`);
    const production = page.locator('.verdict').filter({ hasText: 'Form PR production reporting' });
    await production.waitFor();
    await expectAccessible(page, 'entity page (well)');
    await c.shot(page, 'entity-why');
    await production.getByRole('link', { name: /^Start checklist: Form PR/ }).click();
    const form = page.getByRole('form', { name: 'New checklist' });
    await form.getByRole('button', { name: 'Start checklist' }).waitFor();
    expect(await form.getByLabel('Form').inputValue()).to.equal('form_pr');
    expect(await form.getByLabel(/\(name or ID\)/).inputValue()).to.equal(late!.entity_id);
    await form.getByRole('button', { name: 'Start checklist' }).click();
    await page.getByRole('link', { name: '← All checklists' }).waitFor();
    expect(await page.getByRole('link', { name: late!.entity_id }).first().getAttribute('href')).to.equal(
      `/graph/Well/${encodeURIComponent(late!.entity_id)}`,
    );
    await context.close();
  });

  it("an operator starts a lease's Form PR; a rejection comes back with its reason on the checklist and on their start page, and only their own checklists are listed", async () => {
    expect(
      (
        await t.api.post(
          '/checklists',
          { template_id: 'form_pr', entity_type: 'Lease', entity_id: leaseId },
          power.headers,
        )
      ).status,
    ).to.equal(201);
    const o = await c.as(operator);
    await o.page.goto(`${base}/checklists`);
    const form = o.page.getByRole('form', { name: 'New checklist' });
    await form.getByLabel('Form').selectOption('form_pr');
    await form.getByLabel('Entity type').selectOption('Lease');
    await form.getByLabel(/Lease \(name or ID\)/).fill(leaseId);
    await expectAccessible(o.page, 'checklists');
    await form.getByRole('button', { name: 'Start checklist' }).click();
    await o.page.getByRole('link', { name: '← All checklists' }).waitFor();
    const id = o.page.url().split('/').pop()!;
    expect(await o.page.getByRole('link', { name: leaseId }).first().getAttribute('href')).to.equal(
      `/graph/Lease/${encodeURIComponent(leaseId)}`,
    );

    const checklist = (await t.api.get(`/checklists/${id}`, operator.headers)).body;
    for (const item of checklist.items)
      expect(
        (await t.api.patch(`/checklists/${id}/items/${item.index}`, { status: 'complete' }, operator.headers)).status,
      ).to.equal(200);
    const submitted = await t.api.post(
      `/checklists/${id}/submit`,
      { summary: 'Form PR for the lease' },
      operator.headers,
    );
    expect(submitted.status).to.equal(200);

    // The reviewer rejects; without a reason the form asks for one.
    const r = await c.as(reviewer);
    await r.page.goto(`${base}/approvals/${submitted.body.approval.approval_id}`);
    await r.page.getByLabel('Reject').check();
    await r.page.getByRole('button', { name: 'Record decision' }).click();
    await r.page.getByRole('alert').filter({ hasText: 'reason for the rejection' }).waitFor();
    await r.page.getByLabel('Reason for the rejection').fill('Gas disposition does not sum to production');
    await r.page.getByRole('button', { name: 'Record decision' }).click();
    await r.page.getByRole('heading', { name: 'What happens next' }).waitFor();
    await r.page.getByText('returned to its submitter for rework').waitFor();
    await expectAccessible(r.page, 'approval decided (rejected)');
    await r.context.close();

    await o.page.goto(`${base}/checklists/${id}`);
    await o.page.getByText('Gas disposition does not sum to production').waitFor();
    // The banner may render a moment after the rejection's reason: wait for it, then count.
    const returned = o.page.getByRole('status').filter({ hasText: 'Returned for rework by Test reviewer user' });
    await returned.first().waitFor();
    expect(await returned.count()).to.equal(1);
    await expectAccessible(o.page, 'checklist returned for rework');
    await o.page.goto(`${base}/`);
    const mine = o.page.getByRole('region', { name: /Your checklists/ });
    await mine.getByText('Gas disposition does not sum to production').waitFor();
    expect(await mine.getByRole('listitem').count()).to.equal(1);
    await expectAccessible(o.page, 'start page (operator)');
    await c.shot(o.page, 'home-outcome');
    await o.context.close();
  });

  it('an administrator invites without a preselected role; the link sets a password and signs the new user in; reset and deactivate ask first; the settings audit log lists the change', async () => {
    const { context, page } = await c.as(admin);
    await page.goto(`${base}/admin`);
    const form = page.getByRole('form', { name: 'Invite a user' });
    expect(await form.getByRole('checkbox', { checked: true }).count()).to.equal(0);
    const email = `rev-${randomUUID().slice(0, 8)}@example.com`;
    await form.getByLabel('Email').fill(email);
    await form.getByLabel('Display name').fill('Rita Reviewer');
    await form.getByRole('button', { name: 'Invite' }).click();
    await page.getByRole('alert').filter({ hasText: 'at least one role' }).waitFor();
    await form.getByLabel('Reviewer').check();
    await form.getByRole('button', { name: 'Invite' }).click();
    const link = (
      await page.getByRole('status').filter({ hasText: 'Invitation created' }).locator('code').innerText()
    ).trim();
    expect(link).to.match(/\/invite\?token=/);
    const created = (await t.api.get('/auth/admin/users', admin.headers)).body.find(
      (u: { email: string }) => u.email === email,
    );
    expect(created.roles).to.deep.equal(['reviewer']);
    await expectAccessible(page, 'administration: users');
    await c.shot(page, 'admin-invite');

    // The invitation link, opened signed out, sets the password and signs in.
    const fresh = await c.as(null);
    await fresh.page.goto(`${base}${new URL(link).pathname}${new URL(link).search}`);
    await fresh.page.getByRole('heading', { name: 'Set your password' }).waitFor();
    await fresh.page.getByText('Rita Reviewer').waitFor();
    await expectAccessible(fresh.page, 'set password (invitation)');
    await c.shot(fresh.page, 'set-password');
    await fresh.page.getByLabel(/^New password/).fill('a-long-password-1');
    await fresh.page.getByLabel('Repeat the password').fill('a-long-password-2');
    await fresh.page.getByRole('button', { name: 'Set password and sign in' }).click();
    await fresh.page.getByRole('alert').filter({ hasText: 'differ' }).waitFor();
    await fresh.page.getByLabel('Repeat the password').fill('a-long-password-1');
    await fresh.page.getByRole('button', { name: 'Set password and sign in' }).click();
    await fresh.page.getByRole('heading', { name: 'Good day, Rita Reviewer' }).waitFor();
    expect(new URL(fresh.page.url()).pathname).to.equal('/');
    await fresh.context.close();

    // Reset and deactivate ask first; cancelling changes nothing.
    await page.reload();
    const row = page.getByRole('row').filter({ hasText: email });
    await row.getByRole('button', { name: 'Deactivate' }).click();
    await row.getByRole('group', { name: /Deactivate Rita Reviewer\?/ }).waitFor();
    await expectAccessible(page, 'administration: deactivate confirmation');
    await row.getByRole('button', { name: 'Cancel' }).click();
    expect(
      (await t.api.get('/auth/admin/users', admin.headers)).body.find((u: { email: string }) => u.email === email)
        .is_active,
    ).to.equal(true);
    await row.getByRole('button', { name: 'Reset password' }).click();
    await row.getByRole('button', { name: 'Yes, reset' }).click();
    const reset = (await row.getByRole('status').locator('code').innerText()).trim();
    expect(reset).to.match(/\/reset-password\?token=/);
    const again = await c.as(null);
    await again.page.goto(`${base}${new URL(reset).pathname}${new URL(reset).search}`);
    await again.page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await again.page.getByLabel(/^New password/).fill('another-password-9');
    await again.page.getByLabel('Repeat the password').fill('another-password-9');
    await again.page.getByRole('button', { name: 'Set password and sign in' }).click();
    await again.page.getByRole('heading', { name: 'Good day, Rita Reviewer' }).waitFor();
    await again.context.close();
    await row.getByRole('button', { name: 'Deactivate' }).click();
    await row.getByRole('button', { name: 'Yes, deactivate' }).click();
    await row.getByRole('button', { name: 'Reactivate' }).waitFor();

    // Settings: a change is in the audit log, by name.
    await page.getByRole('tab', { name: 'Settings and budgets' }).click();
    await page.getByLabel('Max tokens per turn').fill('12000');
    await page.getByRole('button', { name: 'Save settings' }).click();
    const audit = page.getByRole('table', { name: /Settings changes/ });
    await audit.getByText('Test admin user').first().waitFor();
    expect(await audit.innerText()).to.include('12000');
    await expectAccessible(page, 'administration: settings');
    await c.shot(page, 'admin-settings');

    // At 1,440 px the administrator's navigation is one row.
    await page.setViewportSize({ width: 1440, height: 900 });
    const items = await page
      .getByRole('navigation', { name: 'Main' })
      .locator(':scope > ul > li')
      .evaluateAll((lis) => lis.map((li) => Math.round(li.getBoundingClientRect().top)));
    expect(new Set(items).size, 'navigation rows').to.equal(1);
    await context.close();
  });

  it('chat: a new conversation is created by its first message and titled from it; empty ones are not listed; the agent is chosen from a list', async () => {
    await t.api.post('/conversations', { agent_id: 'default', title: 'Left empty' }, power.headers);
    const { context, page } = await c.as(power);
    await page.goto(`${base}/chat`);
    await page.getByRole('complementary', { name: 'Conversations' }).getByText('No conversations yet.').waitFor();
    const agent = page.getByRole('combobox', { name: 'Agent' });
    expect(await agent.locator('option').allInnerTexts()).to.include('Filing preparation');
    await expectAccessible(page, 'chat: a new conversation');
    await page
      .getByRole('textbox', { name: 'Message' })
      .fill('Which wells are overdue for Form PR?\nList them by lease.');
    await page.getByRole('button', { name: 'Send' }).click();
    await page
      .getByText(/^Completed|Awaiting review/)
      .first()
      .waitFor({ timeout: 60_000 });
    expect(new URL(page.url()).pathname).to.match(/^\/chat\/[^/]+$/);
    const list = page.getByRole('complementary', { name: 'Conversations' });
    await list.getByText('Which wells are overdue for Form PR?').waitFor();
    expect(await list.getByText('Left empty').count()).to.equal(0);
    expect(await page.getByText('Tool result: load_skill').count()).to.equal(0);
    await expectAccessible(page, 'chat after a turn');
    // "New conversation" opens an empty panel again (nothing is created until a message is sent).
    await list.getByRole('link', { name: 'New conversation' }).click();
    await page.waitForURL(`${base}/chat`);
    // The address changes before the panel re-renders: wait for the old turn's messages to go.
    await page.locator('.messages > li').first().waitFor({ state: 'detached', timeout: 5_000 });
    expect(await page.locator('.messages > li').count()).to.equal(0);
    expect(await page.getByRole('textbox', { name: 'Message' }).inputValue()).to.equal('');
    await context.close();
  });

  it('no page scrolls sideways at 390 px: wide tables scroll in their own box', async () => {
    const pending = await t.api.post(
      '/approvals',
      {
        checkpoint_type: 'filing_submission',
        payload: {
          kind: 'filing',
          summary: 'Narrow screen',
          form: 'form_pr',
          period: '2026-09',
          figures: [],
          validations: [],
        },
      },
      operator.headers,
    );
    const wellId = (await t.api.get('/graph/entities/Well?limit=1', admin.headers)).body.entities[0].entity_id;
    const { context, page } = await c.as(admin, 390);
    for (const path of [
      '/',
      '/approvals',
      `/approvals/${pending.body.approval_id}`,
      '/compliance',
      '/checklists',
      `/graph/Well/${encodeURIComponent(wellId)}`,
      '/admin',
      '/ingestion',
      '/events',
    ]) {
      await page.goto(`${base}${path}`);
      await page.locator('h1').first().waitFor();
      await page.waitForLoadState('networkidle');
      await expectNoSidewaysScroll(page, path);
      if (path === '/compliance') await c.shot(page, 'compliance-narrow');
    }
    await context.close();
  });
});
