import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { contexts as productContexts } from '../../../src/contexts';
import { markDeadLettered, scheduleMessage } from '../../../src/platform/scheduling/schedule';
import { type Session, signIn } from '../../support/auth';
import { eventually } from '../../support/eventually';
import { flakyLanes } from '../../support/flaky-lanes';
import type { TestPlatform } from '../../support/platform';
import { type ConsoleBrowser, expectAccessible, startConsoleBrowser } from './browser';

/**
 * The System page in Chromium: an administrator of the operator tenant sees every lane with
 * its state and the instance that leads, a dead letter produced by a projector that really
 * failed, and resolves it from the keyboard with Retry once the cause is fixed; anyone else
 * gets no page and no API.
 */
describe('console System page (Chromium)', function () {
  this.timeout(180_000);
  let c: ConsoleBrowser;
  let t: TestPlatform;
  let admin: Session;
  const flaky = flakyLanes();

  before(async function () {
    const started = await startConsoleBrowser({}, [...productContexts, flaky.context]);
    if (!started) this.skip();
    c = started!;
    t = c.t;
    admin = await signIn(t, { roles: ['admin'] });
  });
  after(async () => {
    await c?.close();
  });

  it('shows the lanes with their state and lag, and which instance leads', async () => {
    const { context, page } = await c.as(admin);
    await page.goto(`${c.base}/system`);
    await page.getByRole('heading', { name: 'System', level: 1 }).waitFor();
    const lanes = page.getByRole('table', { name: 'Every lane with its lag and state' });
    await lanes.getByRole('rowheader', { name: 'Toy notes' }).waitFor();
    const notes = lanes.getByRole('row', { name: /Toy notes/ });
    expect(await notes.getByRole('cell').nth(0).textContent()).to.equal('Projection');
    expect(await notes.getByRole('cell').nth(1).textContent()).to.match(/^(Caught up|Running)$/);
    await lanes.getByRole('rowheader', { name: 'Toy flaky' }).waitFor();
    await lanes.getByRole('rowheader', { name: 'Scheduler', exact: true }).waitFor();
    const leaders = page.getByRole('table', { name: 'Which instance leads each kind of lane' });
    const projections = leaders.getByRole('row', { name: /Projections/ });
    expect(await projections.textContent()).to.contain('(this instance)');
    await page.getByText('No dead letters: every lane handled every event.').waitFor();
    await expectAccessible(page, 'system');
    await c.shot(page, 'system');
    await context.close();
  });

  it('lists a real dead letter and resolves it with Retry from the keyboard once the cause is fixed', async () => {
    await flaky.note(t, `poison-projection ${randomUUID()}`);
    await eventually(async () => {
      const r = await t.api.get('/admin/system/dead-letters', admin.headers);
      return r.body.dead_letters.length > 0;
    }, 30_000);
    const { context, page } = await c.as(admin);
    await page.goto(`${c.base}/system`);
    const retry = page.getByRole('button', { name: 'Retry NoteCreated in Toy notes' });
    await retry.waitFor();
    const lanes = page.getByRole('table', { name: 'Every lane with its lag and state' });
    expect(await lanes.getByRole('row', { name: /Toy notes/ }).textContent()).to.contain('Dead-lettered');
    await expectAccessible(page, 'system with a dead letter');
    await retry.scrollIntoViewIfNeeded();
    await c.shot(page, 'system-dead-letter');

    // Still broken: the retry is refused, the letter stays.
    await retry.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'The event still fails' }).waitFor();
    expect(await retry.isVisible()).to.equal(true);

    flaky.fix();
    await retry.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'NoteCreated in Toy notes was handled again' }).waitFor();
    await page.getByText('No dead letters: every lane handled every event.').waitFor();
    await eventually(async () => {
      const text = await lanes.getByRole('row', { name: /Toy notes/ }).textContent();
      return !text?.includes('Dead-lettered');
    }, 15_000);
    await context.close();
  });

  it('makes a dead-lettered scheduled message due again with its Retry button', async () => {
    const context = { tenantId: admin.tenantId, actorId: admin.userId };
    const messageId = `toy-parked-${randomUUID()}`;
    const dueAt = new Date(Date.now() + 3_600_000).toISOString();
    await scheduleMessage(t.deps.handle, context, { messageId, dueAt, handler: 'toy.reminder', payload: {} });
    await markDeadLettered(t.deps.handle, context, messageId, 8, 'the reminder kept failing');
    const { context: browser, page } = await c.as(admin);
    await page.goto(`${c.base}/system`);
    const parked = page.getByRole('table', { name: 'Dead-lettered: their handler kept failing' });
    await parked.getByRole('rowheader', { name: 'Toy reminder' }).waitFor();
    expect(await parked.textContent()).to.contain('the reminder kept failing');
    await expectAccessible(page, 'system with a parked scheduled message');
    await page.getByRole('button', { name: `Retry Toy reminder (${messageId})` }).click();
    await page.getByRole('status').filter({ hasText: 'Toy reminder is due again' }).waitFor();
    await parked.waitFor({ state: 'detached' });
    await page.getByRole('table', { name: 'Next to fire' }).getByRole('rowheader', { name: 'Toy reminder' }).waitFor();
    await browser.close();
  });

  it('is not there for anyone else: no link, and the API answers 403', async () => {
    const operator = await signIn(t, { roles: ['operator', 'reviewer'] });
    const { context, page } = await c.as(operator);
    await page.goto(`${c.base}/`);
    await page.getByRole('navigation').first().waitFor();
    expect(await page.getByRole('link', { name: 'System' }).count()).to.equal(0);
    const answer = await page.evaluate(async () => (await fetch('/api/v1/admin/system')).status);
    expect(answer).to.equal(403);
    await page.goto(`${c.base}/system`);
    await page.getByRole('alert').first().waitFor();
    expect(await page.getByRole('table').count()).to.equal(0);
    await context.close();

    const otherAdmin = await signIn(t, { roles: ['admin'], tenantId: randomUUID() });
    const other = await c.as(otherAdmin);
    await other.page.goto(`${c.base}/system`);
    await other.page.getByRole('alert').filter({ hasText: 'operator tenant' }).waitFor();
    expect(await other.page.getByRole('table').count()).to.equal(0);
    await other.context.close();
  });
});
