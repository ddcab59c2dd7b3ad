import { expect } from 'chai';
import { identityDeps } from '../../../commands/identity/identity-deps';
import { signIn, type Session } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { inviteAndRedeem, sessionCookie, uniqueEmail } from './helpers';

describe('identity: login, me, refresh, logout, validate, resolve', () => {
  let t: TestPlatform;
  let admin: Session;

  before(async () => {
    t = await startTestPlatform();
    admin = await signIn(t, { roles: ['admin'] });
  });
  after(() => t.close());

  it('the bootstrap administrator logs in; the token comes only as an HttpOnly, Secure, SameSite=Lax cookie', async () => {
    const response = await t.api.post('/auth/token', { email: 'ADMIN@example.com', password: 'bootstrap-password-1' });
    expect(response.status).to.equal(200);
    expect(response.body).to.have.keys('expires_in', 'user_id', 'roles', 'email', 'display_name');
    expect(response.body).to.include({ expires_in: 86400, email: 'admin@example.com' });
    expect(response.body.roles).to.have.members(['admin', 'operator', 'reviewer']);
    const cookie = sessionCookie(response)!;
    expect(cookie.attributes).to.include.members(['Max-Age=86400', 'Path=/', 'HttpOnly', 'Secure', 'SameSite=Lax']);
    expect(response.text).not.to.contain(cookie.token);
    expect(cookie.token.split('.')).to.have.length(3);
  });

  it('a wrong password and an unknown e-mail get the same 401 body', async () => {
    const wrong = await t.api.post('/auth/token', { email: 'admin@example.com', password: 'not-the-password' });
    const unknown = await t.api.post('/auth/token', { email: 'nobody-here@example.com', password: 'not-the-password' });
    expect(wrong.status).to.equal(401);
    expect(unknown.status).to.equal(401);
    expect(wrong.body).to.deep.equal({ detail: 'Invalid email or password' });
    expect(unknown.body).to.deep.equal(wrong.body);
    expect(sessionCookie(wrong)).to.equal(null);
  });

  it('an invited (not yet redeemed) account cannot log in: 401', async () => {
    const email = uniqueEmail();
    await t.api.post('/auth/admin/users', { email, roles: [] }, admin.headers);
    const response = await t.api.post('/auth/token', { email, password: 'anything-at-all' });
    expect(response.status).to.equal(401);
    expect(response.body).to.deep.equal({ detail: 'Invalid email or password' });
  });

  it('a deactivated account cannot log in, and its live token stops resolving: 401 invalid token: inactive', async () => {
    const email = uniqueEmail();
    const user = await inviteAndRedeem(t, admin, { email, roles: ['operator'] }, 'password-123');
    expect((await t.api.patch(`/auth/admin/users/${user.id}`, { is_active: false }, admin.headers)).status).to.equal(
      200,
    );
    expect((await t.api.post('/auth/token', { email, password: 'password-123' })).status).to.equal(401);
    const me = await t.api.get('/auth/me', user.headers);
    expect(me.status).to.equal(401);
    expect(me.body).to.deep.equal({ error: 'invalid token: inactive' });
  });

  it('system accounts never log in, whatever password is tried', async () => {
    for (const password of ['', 'password', 'x'.repeat(10)]) {
      const response = await t.api.post('/auth/token', { email: 'system@accounts.internal', password });
      expect(response.status).to.equal(401);
    }
  });

  it('a login password over 72 bytes is refused rather than compared on a truncated prefix', async () => {
    const email = uniqueEmail();
    const password = 'p'.repeat(72);
    await inviteAndRedeem(t, admin, { email }, password);
    expect((await t.api.post('/auth/token', { email, password })).status).to.equal(200);
    expect((await t.api.post('/auth/token', { email, password: password + 'extra' })).status).to.equal(401);
  });

  it('a login body without a password answers 422', async () => {
    const response = await t.api.post('/auth/token', { email: 'admin@example.com' });
    expect(response.status).to.equal(422);
    expect(response.body.detail[0].loc).to.deep.equal(['body', 'password']);
  });

  it('GET /auth/me answers the caller with current roles and permissions, by Bearer or cookie', async () => {
    const bearer = await t.api.get('/auth/me', admin.headers);
    expect(bearer.status).to.equal(200);
    expect(bearer.body).to.have.keys('user_id', 'email', 'display_name', 'tenant_id', 'roles', 'permissions');
    expect(bearer.body).to.include({ user_id: admin.userId, tenant_id: admin.tenantId, email: admin.email });
    expect(bearer.body.permissions).to.include.members(['users.manage', 'roles.grant', 'hitl.approve']);
    const cookie = await t.api.get('/auth/me', { cookie: `theme=dark; svc_token=${admin.token}` });
    expect(cookie.body).to.deep.equal(bearer.body);
  });

  it('GET /auth/me without a token answers 401 missing authentication', async () => {
    const response = await t.api.get('/auth/me');
    expect(response.status).to.equal(401);
    expect(response.body).to.deep.equal({ error: 'missing authentication' });
  });

  it('refresh answers 204 for a token younger than 1 hour', async () => {
    const response = await t.api.post('/auth/refresh', undefined, admin.headers);
    expect(response.status).to.equal(204);
    expect(sessionCookie(response)).to.equal(null);
  });

  it('refresh of a token older than 1 hour answers 200 with a fresh 24-hour token in the body and the cookie', async () => {
    const session = await signIn(t, { roles: ['reviewer'] });
    const deps = identityDeps(t.deps);
    const old = await deps.tokens.issue(
      {
        userId: session.userId,
        email: session.email,
        roles: session.roles,
        tenantId: session.tenantId,
        tokenVersion: 0,
      },
      new Date(Date.now() - 2 * 3600 * 1000),
    );
    const response = await t.api.post('/auth/refresh', undefined, { authorization: `Bearer ${old.token}` });
    expect(response.status).to.equal(200);
    expect(response.body).to.include({ expires_in: 86400, user_id: session.userId });
    expect(response.body.token).to.equal(sessionCookie(response)!.token);
    const verified = await deps.tokens.verify(response.body.token);
    expect(verified.ok && verified.claims.expiresAt - Math.floor(Date.now() / 1000)).to.be.within(86390, 86400);
    expect((await t.api.get('/auth/me', { authorization: `Bearer ${response.body.token}` })).status).to.equal(200);
  });

  it('logout expires the cookie, needs no identity and is idempotent', async () => {
    for (const headers of [{}, admin.headers, { cookie: 'svc_token=garbage' }]) {
      const response = await t.api.post('/auth/logout', undefined, headers);
      expect(response.status).to.equal(204);
      const cookie = sessionCookie(response)!;
      expect(cookie.token).to.equal('');
      expect(cookie.attributes).to.include('Max-Age=0');
    }
  });

  it('logout-all revokes every outstanding token of the caller: invalid token: revoked', async () => {
    const session = await signIn(t, { roles: ['operator'] });
    const deps = identityDeps(t.deps);
    const second = await deps.tokens.issue(
      {
        userId: session.userId,
        email: session.email,
        roles: session.roles,
        tenantId: session.tenantId,
        tokenVersion: 0,
      },
      new Date(),
    );
    expect((await t.api.post('/auth/logout-all', undefined, session.headers)).status).to.equal(204);
    for (const token of [session.token, second.token]) {
      const response = await t.api.get('/auth/me', { authorization: `Bearer ${token}` });
      expect(response.status).to.equal(401);
      expect(response.body).to.deep.equal({ error: 'invalid token: revoked' });
    }
  });

  it('a token minted after logout-all works again (it carries the new token version)', async () => {
    const email = uniqueEmail();
    const user = await inviteAndRedeem(t, admin, { email }, 'password-123');
    await t.api.post('/auth/logout-all', undefined, user.headers);
    const login = await t.api.post('/auth/token', { email, password: 'password-123' });
    expect((await t.api.get('/auth/me', { cookie: `svc_token=${sessionCookie(login)!.token}` })).status).to.equal(200);
  });

  it('legacy validate decodes a good token, and answers valid: false for an empty or unparseable one', async () => {
    const good = await t.api.post(`/auth/validate?authorization=${encodeURIComponent(`Bearer ${admin.token}`)}`);
    expect(good.status).to.equal(200);
    expect(good.body).to.deep.equal({ valid: true, user_id: admin.userId, roles: ['admin'] });
    for (const query of [
      '',
      '?authorization=',
      `?authorization=${encodeURIComponent('Bearer not.a.jwt')}`,
      `?authorization=${encodeURIComponent(admin.token)}`,
    ]) {
      const bad = await t.api.post(`/auth/validate${query}`);
      expect(bad.status).to.equal(200);
      expect(bad.body).to.deep.equal({ valid: false, user_id: null, roles: [] });
    }
  });

  it('legacy validate checks neither active status nor token version', async () => {
    const session = await signIn(t, { roles: ['operator'] });
    await t.api.post('/auth/logout-all', undefined, session.headers);
    const response = await t.api.post(`/auth/validate?authorization=${encodeURIComponent(`Bearer ${session.token}`)}`);
    expect(response.body).to.include({ valid: true, user_id: session.userId });
  });

  it('resolve answers on the internal listener with the fresh identity, and 404 through the public gateway', async () => {
    const internal = await t.internal.post('/auth/resolve', undefined, admin.headers);
    expect(internal.status).to.equal(200);
    expect(internal.body).to.include({
      valid: true,
      user_id: admin.userId,
      email: admin.email,
      tenant_id: admin.tenantId,
    });
    expect(internal.body).to.have.keys(
      'valid',
      'user_id',
      'email',
      'display_name',
      'tenant_id',
      'roles',
      'permissions',
    );
    const viaCookie = await t.internal.post('/auth/resolve', undefined, { cookie: `svc_token=${admin.token}` });
    expect(viaCookie.body.user_id).to.equal(admin.userId);
    for (const path of ['/auth/resolve', '/AUTH/Resolve', '/auth/resolve/', '/auth//resolve', '/auth/%72esolve']) {
      const response = await t.api.post(path, undefined, admin.headers);
      expect(response.status, path).to.equal(404);
    }
  });

  it('resolve answers 200 valid: false with the reason for bad, revoked and missing tokens', async () => {
    const session = await signIn(t, { roles: ['reviewer'] });
    await t.api.post('/auth/logout-all', undefined, session.headers);
    const revoked = await t.internal.post('/auth/resolve', undefined, session.headers);
    expect(revoked.body).to.deep.equal({ valid: false, reason: 'revoked', roles: [], permissions: [] });
    const garbage = await t.internal.post('/auth/resolve', undefined, { authorization: 'Bearer x.y.z' });
    expect(garbage.body).to.deep.equal({ valid: false, reason: 'signature', roles: [], permissions: [] });
    const none = await t.internal.post('/auth/resolve');
    expect(none.status).to.equal(200);
    expect(none.body.valid).to.equal(false);
  });
});
