import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import ExcelJS from 'exceljs';
import { userStream } from '../../../streams/identity/user';
import { signIn, type Session } from '../../support/auth';
import { superuserConnection } from '../../support/database';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

/** The audit review over HTTP: GET /admin/audit/events and /admin/audit/export. */
describe('audit review API', () => {
  let t: TestPlatform;

  before(async () => {
    t = await startTestPlatform();
  });
  after(() => t.close());

  async function tenantWithHistory(): Promise<{
    tenantId: string;
    admin: Session;
    ann: { id: string; email: string };
    correlation: string;
  }> {
    const tenantId = randomUUID();
    const admin = await signIn(t, { roles: ['admin'], tenantId });
    const email = `ann-${tenantId.slice(0, 6)}@example.com`;
    const invited = await t.api.post(
      '/auth/admin/users',
      { email, display_name: 'Ann', roles: ['operator'] },
      { ...admin.headers, 'x-request-id': `req-invite-${tenantId}` },
    );
    expect(invited.status).to.equal(201);
    const id = invited.body.id as string;
    const changed = await t.api.patch(
      `/auth/admin/users/${id}`,
      { roles: ['operator', 'reviewer'] },
      { ...admin.headers, 'x-request-id': `req-roles-${tenantId}` },
    );
    expect(changed.status).to.equal(200);
    return { tenantId, admin, ann: { id, email }, correlation: `req-roles-${tenantId}` };
  }

  it("reads a user's history by e-mail as a timeline: roles changed in words, actor by e-mail and roles, request id, signature verified", async () => {
    const { admin, ann, correlation } = await tenantWithHistory();
    const res = await t.api.get(
      `/admin/audit/events?user=${encodeURIComponent(ann.email.toUpperCase())}`,
      admin.headers,
    );
    expect(res.status).to.equal(200);
    const types = res.body.events.map((e: { type: string }) => e.type);
    expect(types[0]).to.equal('UserInvited');
    const roles = res.body.events.find((e: { type: string }) => e.type === 'RolesChanged');
    expect(roles.summary).to.equal('roles changed from [operator] to [operator, reviewer]');
    expect(roles.changes).to.deep.include({ field: 'roles', before: ['operator'], after: ['operator', 'reviewer'] });
    expect(roles.actor).to.deep.equal({ id: admin.userId, email: admin.email, roles: ['admin'] });
    expect(roles.correlation_id).to.equal(correlation);
    expect(roles.entity).to.deep.equal({ kind: 'user', id: ann.id });
    expect(res.body.events.every((e: { signature: string }) => e.signature === 'verified')).to.equal(true);
    expect(res.body.next_cursor).to.equal(null);
  });

  it('shows the actor with the roles they held at that moment, not the ones they hold now', async () => {
    const { tenantId, admin, ann } = await tenantWithHistory();
    const other = await signIn(t, { roles: ['admin'], tenantId });
    // After Ann's role change, the acting admin also becomes a reviewer.
    expect(
      (await t.api.patch(`/auth/admin/users/${admin.userId}`, { roles: ['admin', 'reviewer'] }, other.headers)).status,
    ).to.equal(200);
    const res = await t.api.get(`/admin/audit/events?actor=${encodeURIComponent(admin.email)}`, other.headers);
    expect(res.status).to.equal(200);
    const change = res.body.events.find(
      (e: { type: string; entity: { id: string } }) => e.type === 'RolesChanged' && e.entity.id === ann.id,
    );
    expect(change.actor.roles).to.deep.equal(['admin']);
    const now = await t.api.get(`/admin/audit/events?user=${admin.userId}`, other.headers);
    const own = now.body.events.find((e: { type: string }) => e.type === 'RolesChanged');
    expect(own.summary).to.equal('roles changed from [admin] to [admin, reviewer]');
    expect(own.actor.email).to.equal(other.email);
  });

  it('finds everything one request caused by its correlation id, across streams', async () => {
    const { tenantId, admin } = await tenantWithHistory();
    const res = await t.api.get(`/admin/audit/events?correlation=req-invite-${tenantId}`, admin.headers);
    expect(res.status).to.equal(200);
    expect(res.body.events.length).to.be.greaterThan(0);
    expect(
      res.body.events.every((e: { correlation_id: string }) => e.correlation_id === `req-invite-${tenantId}`),
    ).to.equal(true);
    expect(res.body.events.map((e: { type: string }) => e.type)).to.include('UserInvited');
  });

  it('pages with a keyset cursor: no event twice, none skipped', async () => {
    const { admin, ann } = await tenantWithHistory();
    const all = (await t.api.get(`/admin/audit/events?user=${ann.id}`, admin.headers)).body.events.map(
      (e: { event_id: string }) => e.event_id,
    );
    expect(all.length).to.be.greaterThan(1);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: { events: Array<{ event_id: string }>; next_cursor: string | null } } =
        await t.api.get(
          `/admin/audit/events?user=${ann.id}&limit=1${cursor ? `&cursor=${cursor}` : ''}`,
          admin.headers,
        );
      expect(page.status).to.equal(200);
      expect(page.body.events.length).to.be.at.most(1);
      seen.push(...page.body.events.map((e) => e.event_id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).to.deep.equal(all);
  });

  it('marks an altered stored event as tampered inline, and only that one', async () => {
    const { admin, ann } = await tenantWithHistory();
    // Only an owner of `events` (not the platform's own role) can even try this.
    const superuser = await superuserConnection(t.platform.db.url);
    const knex = superuser.knex;
    const stream = userStream(admin.tenantId, ann.id);
    await knex.raw('ALTER TABLE events DISABLE TRIGGER events_no_update_delete');
    try {
      await knex('events')
        .where({ stream_id: stream, type: 'RolesChanged' })
        .update({ data: knex.raw(`'{"roles":["operator","admin"]}'::jsonb`) });
    } finally {
      await knex.raw('ALTER TABLE events ENABLE TRIGGER events_no_update_delete');
      await superuser.close();
    }
    const res = await t.api.get(`/admin/audit/events?user=${ann.id}`, admin.headers);
    const statuses = res.body.events.map((e: { type: string; signature: string }) => `${e.type}:${e.signature}`);
    expect(statuses).to.include('RolesChanged:tampered');
    expect(statuses.filter((s: string) => s.endsWith(':tampered'))).to.have.length(1);
  });

  it('answers 404 "nothing found" for an unknown e-mail or another tenant\'s user, 422 naming the flag for a bad date', async () => {
    const { admin, ann } = await tenantWithHistory();
    const missing = await t.api.get('/admin/audit/events?user=nobody@example.com', admin.headers);
    expect(missing.status).to.equal(404);
    expect(JSON.stringify(missing.body)).to.contain('nothing found for --user nobody@example.com');
    const stranger = await signIn(t, { roles: ['admin'], tenantId: randomUUID() });
    expect((await t.api.get(`/admin/audit/events?user=${ann.id}`, stranger.headers)).status).to.equal(404);
    const badDate = await t.api.get('/admin/audit/events?from=03/03/2026', admin.headers);
    expect(badDate.status).to.equal(422);
    expect(JSON.stringify(badDate.body)).to.contain('--from').and.to.contain('ISO 8601');
    const approval = await t.api.get('/admin/audit/events?approval=abc', admin.headers);
    expect(approval.status).to.equal(404);
    expect(JSON.stringify(approval.body)).to.contain('nothing found for --approval abc');
  });

  it('is for administrators only', async () => {
    const operator = await signIn(t, { roles: ['operator'] });
    expect((await t.api.get('/admin/audit/events?from=2020-01-01', operator.headers)).status).to.equal(403);
  });

  it('streams an XLSX workbook (cover first with range, verification and anchor digest; one sheet per entity, frozen header) and records the export as an event', async () => {
    const { admin, ann } = await tenantWithHistory();
    const response = await fetch(
      `${t.publicUrl}/api/v1/admin/audit/export?format=xlsx&user=${encodeURIComponent(ann.email)}`,
      { headers: admin.headers },
    );
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.contain('spreadsheetml');
    const exportId = response.headers.get('x-audit-export-id');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(Buffer.from(await response.arrayBuffer()) as unknown as ArrayBuffer);
    const names = workbook.worksheets.map((w) => w.name);
    expect(names[0]).to.equal('Cover');
    expect(names).to.include(`user ${ann.email}`.slice(0, 28));
    const cover = workbook.getWorksheet('Cover')!;
    const coverText = cover
      .getSheetValues()
      .map((r) => (Array.isArray(r) ? r.join(' ') : ''))
      .join('\n');
    expect(coverText).to.match(/Verification.*all \d+ entries verified/);
    expect(coverText).to.match(/Anchor digest \(SHA-256\).*[0-9a-f]{64}/);
    expect(coverText).to.contain(`--user ${ann.email}`);
    const sheet = workbook.getWorksheet(`user ${ann.email}`.slice(0, 28))!;
    expect(sheet.getRow(1).getCell(1).value).to.equal('Time (UTC)');
    expect(sheet.views[0]).to.include({ state: 'frozen', ySplit: 1 });
    const rows = sheet
      .getSheetValues()
      .slice(2)
      .map((r) => (r as unknown[])[4]);
    expect(rows).to.include('roles changed from [operator] to [operator, reviewer]');
    const exports = await t.api.get(
      `/admin/audit/events?actor=${encodeURIComponent(admin.email)}&from=2020-01-01`,
      admin.headers,
    );
    const recorded = exports.body.events.find((e: { type: string }) => e.type === 'AuditTrailExported');
    expect(recorded.entity).to.deep.equal({ kind: 'audit-export', id: exportId });
    expect(recorded.changes).to.deep.include({ field: 'format', before: null, after: 'xlsx' });
  });

  it('exports CSV with a header row and one line per event', async () => {
    const { admin, ann } = await tenantWithHistory();
    const res = await t.api.get(`/admin/audit/export?format=csv&user=${ann.id}`, admin.headers);
    expect(res.status).to.equal(200);
    const lines = res.text.trim().split('\n');
    expect(lines[0]).to.match(/^time,entity,revision,actor_email/);
    expect(lines.some((l) => l.includes('roles changed from [operator] to [operator, reviewer]'))).to.equal(true);
  });
  it('finds a conversation by id and a prompt by namespace:slug, each with its events in words', async () => {
    const tenantId = randomUUID();
    const admin = await signIn(t, { roles: ['admin'], tenantId });
    const conversation = await t.api.post('/conversations', { agent_id: 'filing-agent' }, admin.headers);
    expect(conversation.status).to.be.oneOf([200, 201]);
    expect(
      (await t.api.patch(`/conversations/${conversation.body.id}`, { title: 'March Form PR' }, admin.headers)).status,
    ).to.equal(200);
    const timeline = await t.api.get(`/admin/audit/events?conversation=${conversation.body.id}`, admin.headers);
    expect(timeline.status).to.equal(200);
    const retitled = timeline.body.events.find((e: { type: string }) => e.type === 'ConversationRetitled');
    expect(retitled.summary).to.equal('conversation retitled');
    expect(retitled.changes).to.have.length(1);
    expect(retitled.changes[0]).to.include({ field: 'title', after: 'March Form PR' });
    expect((await t.api.get(`/admin/audit/events?conversation=no-such-conversation`, admin.headers)).status).to.equal(
      404,
    );

    const ns = await t.api.post(
      '/prompts/namespaces',
      { name: 'audit-ns', description: 'prompts under review' },
      admin.headers,
    );
    expect(ns.status, ns.text).to.equal(201);
    expect(
      (await t.api.post('/prompts/templates', { namespace_id: ns.body.id, slug: 'chat' }, admin.headers)).status,
    ).to.equal(201);
    const prompt = await t.api.get('/admin/audit/events?prompt=audit-ns:chat', admin.headers);
    expect(prompt.status).to.equal(200);
    expect(prompt.body.events[0]).to.include({
      type: 'PromptTemplateCreated',
      summary: 'prompt template created',
      signature: 'verified',
    });
    expect(prompt.body.events[0].entity.kind).to.equal('prompt-template');
  });
});
