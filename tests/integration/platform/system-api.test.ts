import { expect } from 'chai';
import { contexts as productContexts } from '../../../src/contexts';
import { markDeadLettered, scheduleMessage } from '../../../src/platform/scheduling/schedule';
import { DEFAULT_TENANT, type Session, signIn } from '../../support/auth';
import { eventually } from '../../support/eventually';
import { flakyLanes } from '../../support/flaky-lanes';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

interface Letter {
  id: string;
  lane: string;
  kind: string;
  event_type: string;
  error: string;
  resolved_at: string | null;
}

/** The System page's API: the runtime's lanes and leaders, and dead letters produced for real and retried. */
describe('system API (/admin/system)', function () {
  this.timeout(60_000);
  let t: TestPlatform;
  let admin: Session;
  const flaky = flakyLanes();

  before(async () => {
    t = await startTestPlatform({ contexts: [...productContexts, flaky.context] });
    admin = await signIn(t, { roles: ['admin'] });
  });
  after(() => t?.close());

  const letters = async (): Promise<Letter[]> => {
    const r = await t.api.get('/admin/system/dead-letters', admin.headers);
    expect(r.status).to.equal(200);
    return r.body.dead_letters;
  };

  it('lists every lane with its lag and state, the leader of each leadership, and the scheduled messages', async () => {
    const r = await t.api.get('/admin/system', admin.headers);
    expect(r.status).to.equal(200);
    const names = r.body.lanes.map((l: { name: string; kind: string }) => `${l.kind}:${l.name}`);
    expect(names).to.include.members(['projection:toy_notes', 'reactor:toy.flaky', 'scheduler:scheduler']);
    const notes = r.body.lanes.find((l: { name: string }) => l.name === 'toy_notes');
    expect(notes).to.include({ kind: 'projection', dead_letters: 0 });
    expect(['caught_up', 'running']).to.include(notes.state);
    expect(r.body.leadership.map((l: { name: string }) => l.name)).to.deep.equal([
      'projections',
      'reactors',
      'scheduler',
    ]);
    for (const lead of r.body.leadership) expect(lead).to.include({ instance: r.body.instance, this_instance: true });
    expect(r.body.scheduled).to.include.keys('due', 'overdue', 'retrying', 'dead_lettered', 'next');
  });

  it('refuses everyone but the operator tenant administrators, before reading anything', async () => {
    const operator = await signIn(t, { roles: ['operator', 'reviewer', 'power_user'] });
    const otherAdmin = await signIn(t, { roles: ['admin'], tenantId: '00000000-0000-0000-0000-0000000000aa' });
    expect(otherAdmin.tenantId).to.not.equal(DEFAULT_TENANT);
    for (const [path, method] of [
      ['/admin/system', 'get'],
      ['/admin/system/dead-letters', 'get'],
      ['/admin/system/dead-letters/1/retry', 'post'],
    ] as const) {
      const asOperator = await (method === 'get'
        ? t.api.get(path, operator.headers)
        : t.api.post(path, {}, operator.headers));
      expect(asOperator.status, `${path} as operator`).to.equal(403);
      expect(asOperator.body).to.deep.equal({ error: 'admin role required' });
      const asOther = await (method === 'get'
        ? t.api.get(path, otherAdmin.headers)
        : t.api.post(path, {}, otherAdmin.headers));
      expect(asOther.status, `${path} as another tenant's admin`).to.equal(403);
      expect(asOther.body).to.deep.equal({ detail: 'Insufficient permissions' });
      const anonymous = await (method === 'get' ? t.api.get(path) : t.api.post(path, {}));
      expect(anonymous.status).to.equal(401);
    }
  });

  it('a reaction that keeps failing is listed; a retry that still fails is 409 and changes nothing; after the fix it resolves once', async () => {
    await flaky.note(t, 'poison-reaction 1');
    const [letter] = await eventually(async () => {
      const open = await letters();
      return open.length > 0 ? open : null;
    }, 30_000);
    expect(letter).to.include({ lane: 'toy.flaky', kind: 'reactor', event_type: 'NoteCreated', resolved_at: null });
    expect(letter.error).to.contain('the flaky reactor refuses this note');
    const system = await t.api.get('/admin/system', admin.headers);
    expect(system.body.lanes.find((l: { name: string }) => l.name === 'toy.flaky')).to.include({
      state: 'dead_lettered',
      dead_letters: 1,
    });

    const still = await t.api.post(`/admin/system/dead-letters/${letter.id}/retry`, {}, admin.headers);
    expect(still.status).to.equal(409);
    expect(still.body.detail).to.contain('still fails');
    expect((await letters()).map((l) => l.id)).to.deep.equal([letter.id]);

    flaky.fix();
    const retried = await t.api.post(`/admin/system/dead-letters/${letter.id}/retry`, {}, admin.headers);
    expect(retried.status).to.equal(200);
    expect(retried.body.dead_letter.id).to.equal(letter.id);
    expect(retried.body.dead_letter.resolved_at).to.be.a('string');
    expect(await letters()).to.deep.equal([]);

    const again = await t.api.post(`/admin/system/dead-letters/${letter.id}/retry`, {}, admin.headers);
    expect(again.status).to.equal(409);
    expect(again.body).to.deep.equal({ detail: 'Dead letter already resolved' });
  });

  it('an unknown dead letter is 404 and a malformed id 422, in the spec error shapes', async () => {
    const unknown = await t.api.post('/admin/system/dead-letters/987654321/retry', {}, admin.headers);
    expect(unknown.status).to.equal(404);
    expect(unknown.body).to.deep.equal({ detail: 'Dead letter not found' });
    const beyond = await t.api.post('/admin/system/dead-letters/9999999999999999999/retry', {}, admin.headers);
    expect(beyond.status).to.equal(404);
    const malformed = await t.api.post('/admin/system/dead-letters/abc/retry', {}, admin.headers);
    expect(malformed.status).to.equal(422);
    expect(malformed.body.detail[0].loc).to.deep.equal(['path', 'id']);
  });

  it('a dead-lettered scheduled message is listed and made due again once; unknown is 404, not parked is 409', async () => {
    const context = { tenantId: DEFAULT_TENANT, actorId: admin.userId };
    const messageId = `toy-parked-${Date.now()}`;
    const dueAt = new Date(Date.now() + 3_600_000).toISOString();
    await scheduleMessage(t.deps.handle, context, { messageId, dueAt, handler: 'toy.never-known', payload: {} });
    await markDeadLettered(t.deps.handle, context, messageId, 8, 'the handler kept failing');
    const before = await t.api.get('/admin/system', admin.headers);
    expect(before.body.scheduled.dead_lettered).to.equal(1);
    expect(before.body.scheduled.parked).to.have.length(1);
    expect(before.body.scheduled.parked[0]).to.include({
      message_id: messageId,
      handler: 'toy.never-known',
      error: 'the handler kept failing',
    });
    expect(before.body.lanes.find((l: { name: string }) => l.name === 'scheduler').state).to.equal('dead_lettered');

    const path = `/admin/system/scheduled/${DEFAULT_TENANT}/${messageId}/retry`;
    const retried = await t.api.post(path, {}, admin.headers);
    expect(retried.status).to.equal(200);
    expect(retried.body.scheduled_message.message_id).to.equal(messageId);
    const after = await t.api.get('/admin/system', admin.headers);
    expect(after.body.scheduled.parked).to.deep.equal([]);
    expect(after.body.scheduled.next.map((m: { message_id: string }) => m.message_id)).to.include(messageId);

    const again = await t.api.post(path, {}, admin.headers);
    expect(again.status).to.equal(409);
    expect(again.body).to.deep.equal({ detail: 'Scheduled message is not dead-lettered' });
    const unknown = await t.api.post(`/admin/system/scheduled/${DEFAULT_TENANT}/nothing-here/retry`, {}, admin.headers);
    expect(unknown.status).to.equal(404);
    expect(unknown.body).to.deep.equal({ detail: 'Scheduled message not found' });
  });
});

describe('runtime view gauges()', function () {
  this.timeout(60_000);
  let t: TestPlatform;
  const flaky = flakyLanes();

  before(async () => {
    t = await startTestPlatform({ contexts: [flaky.context] });
  });
  after(() => t?.close());

  it('agrees with system() on every lane’s dead letters and on the scheduled due and overdue', async () => {
    const runtime = t.deps.runtime!;
    await flaky.note(t, 'poison-reaction gauges');
    await eventually(async () => ((await runtime.deadLetters(10)).length > 0 ? true : null), 30_000);
    const context = { tenantId: DEFAULT_TENANT, actorId: 'gauges-test' };
    const dueAt = new Date(Date.now() - 3_600_000).toISOString();
    // A handler nobody registers: the message stays due (and overdue) instead of firing.
    await scheduleMessage(t.deps.handle, context, {
      messageId: 'gauges-due',
      dueAt,
      handler: 'toy.unknown',
      payload: {},
    });
    await scheduleMessage(t.deps.handle, context, {
      messageId: 'gauges-parked',
      dueAt,
      handler: 'toy.unknown',
      payload: {},
    });
    await markDeadLettered(t.deps.handle, context, 'gauges-parked', 8, 'the handler kept failing');

    const [gauges, system] = await Promise.all([runtime.gauges(), runtime.system()]);
    const letters = (lanes: Array<{ kind: string; name: string; dead_letters: number }>) =>
      Object.fromEntries(lanes.map((l) => [`${l.kind}:${l.name}`, l.dead_letters]));
    expect(letters(gauges.lanes)).to.deep.equal(letters(system.lanes));
    expect(letters(gauges.lanes)).to.include({ 'reactor:toy.flaky': 1, 'scheduler:scheduler': 1 });
    expect(gauges.scheduled).to.deep.equal({ due: system.scheduled.due, overdue: system.scheduled.overdue });
    expect(gauges.scheduled).to.deep.equal({ due: 1, overdue: 1 });
  });
});
