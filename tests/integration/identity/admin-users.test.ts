import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { signIn, type Session } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { inviteAndRedeem, sessionCookie, uniqueEmail } from './helpers';

describe('identity: user administration and the tenant directory', () => {
  let t: TestPlatform;
  let admin: Session;
  let operator: Session;

  before(async () => {
    t = await startTestPlatform();
    admin = await signIn(t, { roles: ['admin'] });
    operator = await signIn(t, { roles: ['operator'] });
  });
  after(() => t.close());

  it('a caller without users.manage cannot create, list, edit or reset users: 403 Insufficient permissions', async () => {
    const calls = [
      t.api.post('/auth/admin/users', { email: uniqueEmail(), roles: [] }, operator.headers),
      t.api.get('/auth/admin/users', operator.headers),
      t.api.patch(`/auth/admin/users/${admin.userId}`, { display_name: 'x' }, operator.headers),
      t.api.post(`/auth/admin/users/${admin.userId}/reset-password`, undefined, operator.headers),
    ];
    for (const response of await Promise.all(calls)) {
      expect(response.status).to.equal(403);
      expect(response.body).to.deep.equal({ detail: 'Insufficient permissions' });
    }
  });

  it('an e-mail already in use, in any letter case and in any tenant, answers 409', async () => {
    const email = uniqueEmail();
    expect((await t.api.post('/auth/admin/users', { email, roles: [] }, admin.headers)).status).to.equal(201);
    const again = await t.api.post('/auth/admin/users', { email: email.toUpperCase(), roles: [] }, admin.headers);
    expect(again.status).to.equal(409);
    const otherTenantAdmin = await signIn(t, { roles: ['admin'], tenantId: randomUUID() });
    expect((await t.api.post('/auth/admin/users', { email, roles: [] }, otherTenantAdmin.headers)).status).to.equal(
      409,
    );
  });

  it('an unknown role, a malformed e-mail or an unexpected field answers 422 and creates nothing', async () => {
    const before = await t.api.get('/auth/admin/users', admin.headers);
    const cases = [
      { email: uniqueEmail(), roles: ['superuser'] },
      { email: 'not-an-email', roles: [] },
      { email: uniqueEmail(), roles: [], tenant_id: randomUUID() },
    ];
    for (const body of cases) {
      const response = await t.api.post('/auth/admin/users', body, admin.headers);
      expect(response.status, JSON.stringify(body)).to.equal(422);
      expect(response.body.detail[0].loc[0]).to.equal('body');
    }
    const after = await t.api.get('/auth/admin/users', admin.headers);
    expect(after.body).to.have.length(before.body.length);
  });

  it("the admin directory lists the tenant's people with roles, is_active and status, never system accounts", async () => {
    const response = await t.api.get('/auth/admin/users', admin.headers);
    expect(response.status).to.equal(200);
    const me = response.body.find((u: { id: string }) => u.id === admin.userId);
    expect(me).to.deep.equal({
      id: admin.userId,
      email: admin.email,
      display_name: me.display_name,
      roles: ['admin'],
      is_active: true,
      status: 'active',
    });
    expect(response.body.map((u: { email: string }) => u.email)).not.to.include('system@accounts.internal');
  });

  it('PATCH changes display name and roles and answers the updated user; the new roles bind at once', async () => {
    const user = await inviteAndRedeem(t, admin, { email: uniqueEmail(), roles: ['operator'] }, 'password-123');
    expect((await t.api.get('/admin/anything', user.headers)).status).to.equal(403);
    const response = await t.api.patch(
      `/auth/admin/users/${user.id}`,
      { display_name: 'Field Lead', roles: ['power_user', 'admin'] },
      admin.headers,
    );
    expect(response.status).to.equal(200);
    expect(response.body).to.include({ id: user.id, display_name: 'Field Lead', status: 'active', is_active: true });
    expect(response.body.roles).to.deep.equal(['power_user', 'admin']);
    const me = await t.api.get('/auth/me', user.headers);
    expect(me.body.roles).to.deep.equal(['power_user', 'admin']);
    expect(me.body.permissions).to.include('users.manage');
  });

  it('PATCH refuses mass assignment of tenant, status, token version or e-mail (422) and an empty body (422)', async () => {
    const user = await signIn(t, { roles: ['operator'] });
    for (const body of [
      { tenant_id: randomUUID() },
      { status: 'active' },
      { token_version: 0 },
      { email: 'x@example.com' },
      { roles: ['admin'], tenant_id: randomUUID() },
      {},
    ]) {
      const response = await t.api.patch(`/auth/admin/users/${user.userId}`, body, admin.headers);
      expect(response.status, JSON.stringify(body)).to.equal(422);
    }
    const me = await t.api.get('/auth/me', user.headers);
    expect(me.body).to.include({ tenant_id: user.tenantId });
    expect(me.body.roles).to.deep.equal(['operator']);
  });

  it("an admin of another tenant cannot see, edit or reset this tenant's users: 404", async () => {
    const outsider = await signIn(t, { roles: ['admin'], tenantId: randomUUID() });
    const patch = await t.api.patch(`/auth/admin/users/${operator.userId}`, { roles: ['admin'] }, outsider.headers);
    expect(patch.status).to.equal(404);
    const reset = await t.api.post(`/auth/admin/users/${operator.userId}/reset-password`, undefined, outsider.headers);
    expect(reset.status).to.equal(404);
    const list = await t.api.get('/auth/admin/users', outsider.headers);
    expect(list.body.map((u: { id: string }) => u.id)).to.deep.equal([outsider.userId]);
    expect((await t.api.get('/auth/me', operator.headers)).body.roles).to.deep.equal(['operator']);
  });

  it('removing the last active admin answers 409, by deactivation or by role change', async () => {
    const soleAdmin = await signIn(t, { roles: ['admin'], tenantId: randomUUID() });
    const deactivate = await t.api.patch(
      `/auth/admin/users/${soleAdmin.userId}`,
      { is_active: false },
      soleAdmin.headers,
    );
    expect(deactivate.status).to.equal(409);
    expect(deactivate.body.detail).to.match(/last active admin/);
    expect(
      (await t.api.patch(`/auth/admin/users/${soleAdmin.userId}`, { roles: ['operator'] }, soleAdmin.headers)).status,
    ).to.equal(409);
    const second = await signIn(t, { roles: ['admin'], tenantId: soleAdmin.tenantId });
    expect(
      (await t.api.patch(`/auth/admin/users/${soleAdmin.userId}`, { roles: ['operator'] }, second.headers)).status,
    ).to.equal(200);
    expect(
      (await t.api.patch(`/auth/admin/users/${second.userId}`, { is_active: false }, second.headers)).status,
    ).to.equal(409);
  });

  it('two admins demoting each other at the same time leave one admin standing', async () => {
    const a = await signIn(t, { roles: ['admin'], tenantId: randomUUID() });
    const b = await signIn(t, { roles: ['admin'], tenantId: a.tenantId });
    const [ab, ba] = await Promise.all([
      t.api.patch(`/auth/admin/users/${b.userId}`, { is_active: false }, a.headers),
      t.api.patch(`/auth/admin/users/${a.userId}`, { is_active: false }, b.headers),
    ]);
    expect([ab.status, ba.status].sort()).to.deep.equal([200, 409].sort());
    const listing = await t.api.get('/auth/admin/users', ab.status === 200 ? a.headers : b.headers);
    expect(listing.body.filter((u: { status: string }) => u.status === 'active')).to.have.length(1);
  });

  it('deactivation ends sessions; reactivation lets the user log in again while old tokens stay revoked', async () => {
    const email = uniqueEmail();
    const user = await inviteAndRedeem(t, admin, { email, roles: ['reviewer'] }, 'password-123');
    const off = await t.api.patch(`/auth/admin/users/${user.id}`, { is_active: false }, admin.headers);
    expect(off.body).to.include({ status: 'disabled', is_active: false });
    const on = await t.api.patch(`/auth/admin/users/${user.id}`, { is_active: true }, admin.headers);
    expect(on.body).to.include({ status: 'active', is_active: true });
    const old = await t.api.get('/auth/me', user.headers);
    expect(old.body).to.deep.equal({ error: 'invalid token: revoked' });
    const login = await t.api.post('/auth/token', { email, password: 'password-123' });
    expect((await t.api.get('/auth/me', { cookie: `svc_token=${sessionCookie(login)!.token}` })).status).to.equal(200);
  });

  it('deactivating an invited user voids the invite', async () => {
    const created = await t.api.post('/auth/admin/users', { email: uniqueEmail(), roles: [] }, admin.headers);
    await t.api.patch(`/auth/admin/users/${created.body.id}`, { is_active: false }, admin.headers);
    expect((await t.api.get(`/auth/invites/${created.body.invite_token}`)).status).to.equal(404);
  });

  it('a reset for an invited or unknown user answers 409 and 404', async () => {
    const created = await t.api.post('/auth/admin/users', { email: uniqueEmail(), roles: [] }, admin.headers);
    expect(
      (await t.api.post(`/auth/admin/users/${created.body.id}/reset-password`, undefined, admin.headers)).status,
    ).to.equal(409);
    expect(
      (await t.api.post(`/auth/admin/users/${randomUUID()}/reset-password`, undefined, admin.headers)).status,
    ).to.equal(404);
    expect((await t.api.patch(`/auth/admin/users/not-a-uuid`, { display_name: 'x' }, admin.headers)).status).to.equal(
      422,
    );
  });

  it('GET /auth/users gives an admin the tenant directory and a non-admin 403', async () => {
    const response = await t.api.get('/auth/users', admin.headers);
    expect(response.status).to.equal(200);
    const row = response.body.find((u: { id: string }) => u.id === operator.userId);
    expect(row).to.have.keys('id', 'email', 'display_name', 'roles', 'is_active');
    expect(row).to.include({ email: operator.email, is_active: true });
    const denied = await t.api.get('/auth/users', operator.headers);
    expect(denied.status).to.equal(403);
    const outsider = await signIn(t, { roles: ['admin'], tenantId: randomUUID() });
    const theirs = await t.api.get('/auth/users', outsider.headers);
    expect(theirs.body.map((u: { id: string }) => u.id)).to.deep.equal([outsider.userId]);
  });

  it("every user change is a domain event on the user's stream, none holding a password hash", async () => {
    const user = await inviteAndRedeem(t, admin, { email: uniqueEmail(), roles: ['operator'] }, 'password-123');
    await t.api.patch(`/auth/admin/users/${user.id}`, { roles: ['reviewer'] }, admin.headers);
    const events = await t.deps.store.readStream(`identity.user-${admin.tenantId}-${user.id}`);
    expect(events.map((e) => e.type)).to.deep.equal(['UserInvited', 'InviteAccepted', 'PasswordSet', 'RolesChanged']);
    expect(JSON.stringify(events.map((e) => e.data))).not.to.match(/\$2[aby]\$/);
    expect(events[3].metadata.actorId).to.equal(admin.userId);
  });
});
