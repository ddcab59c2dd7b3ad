import { expect } from 'chai';
import { runOneTimeTokenCommand } from '../../../commands/identity/onetime-token-commands';
import { identityDeps } from '../../../commands/identity/identity-deps';
import { newOneTimeToken } from '../../../commands/identity/onetime-secrets';
import { signIn, type Session } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { sessionCookie, uniqueEmail } from './helpers';

describe('identity: invites and their redemption', () => {
  let t: TestPlatform;
  let admin: Session;

  before(async () => {
    t = await startTestPlatform();
    admin = await signIn(t, { roles: ['admin'] });
  });
  after(() => t.close());

  const invite = async (roles: string[] = ['operator'], email = uniqueEmail()) => {
    const response = await t.api.post(
      '/auth/admin/users',
      { email, display_name: 'Dana Driller', roles },
      admin.headers,
    );
    expect(response.status, response.text).to.equal(201);
    return response.body;
  };

  it('creating a user answers 201 with status invited, an invite token and URL, and stores only the token hash', async () => {
    const email = uniqueEmail('Invitee');
    const created = await invite(['operator', 'reviewer'], email);
    expect(created).to.include({
      email: email.toLowerCase(),
      display_name: 'Dana Driller',
      status: 'invited',
      is_active: true,
    });
    expect(created.roles).to.deep.equal(['operator', 'reviewer']);
    expect(created.id).to.match(/^[0-9a-f-]{36}$/);
    expect(created.invite_token).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(created.invite_url).to.contain(encodeURIComponent(created.invite_token));
    const stored = await t.deps
      .knex('events')
      .whereRaw('data::text like ?', [`%${created.invite_token}%`])
      .count<{ count: string }[]>('* as count');
    expect(Number(stored[0].count)).to.equal(0);
  });

  it('inspecting an invite answers its e-mail, display name, purpose and a 7-day expiry', async () => {
    const created = await invite();
    const response = await t.api.get(`/auth/invites/${created.invite_token}`);
    expect(response.status).to.equal(200);
    expect(response.body).to.have.keys('email', 'display_name', 'purpose', 'expires_at');
    expect(response.body).to.include({ email: created.email, display_name: 'Dana Driller', purpose: 'invite' });
    const days = (Date.parse(response.body.expires_at) - Date.now()) / 86400000;
    expect(days).to.be.within(6.99, 7.01);
  });

  it('an unknown token answers 404 on inspect and on redeem', async () => {
    expect((await t.api.get('/auth/invites/not-a-real-token')).status).to.equal(404);
    const redeem = await t.api.post('/auth/invites/redeem', { token: 'not-a-real-token', password: 'long-enough-pw' });
    expect(redeem.status).to.equal(404);
    expect(redeem.body).to.have.property('detail');
  });

  it('redeeming sets the password, logs the user in with the cookie, and the user can then log in', async () => {
    const created = await invite(['operator']);
    const redeemed = await t.api.post('/auth/invites/redeem', {
      token: created.invite_token,
      password: 'correct horse battery',
    });
    expect(redeemed.status).to.equal(200);
    expect(redeemed.body).to.deep.equal({
      expires_in: 86400,
      user_id: created.id,
      roles: ['operator'],
      email: created.email,
      display_name: 'Dana Driller',
    });
    const cookie = sessionCookie(redeemed)!;
    expect(cookie.attributes).to.include.members(['Max-Age=86400', 'Path=/', 'HttpOnly', 'Secure', 'SameSite=Lax']);
    const me = await t.api.get('/auth/me', { cookie: `svc_token=${cookie.token}` });
    expect(me.status).to.equal(200);
    expect(me.body.user_id).to.equal(created.id);
    const login = await t.api.post('/auth/token', {
      email: created.email.toUpperCase(),
      password: 'correct horse battery',
    });
    expect(login.status).to.equal(200);
    const listed = await t.api.get('/auth/admin/users', admin.headers);
    expect(listed.body.find((u: { id: string }) => u.id === created.id)).to.include({
      status: 'active',
      is_active: true,
    });
  });

  it('redeeming twice answers 404 the second time, and inspect then answers 404', async () => {
    const created = await invite();
    expect(
      (await t.api.post('/auth/invites/redeem', { token: created.invite_token, password: 'first-password' })).status,
    ).to.equal(200);
    const again = await t.api.post('/auth/invites/redeem', {
      token: created.invite_token,
      password: 'second-password',
    });
    expect(again.status).to.equal(404);
    expect((await t.api.get(`/auth/invites/${created.invite_token}`)).status).to.equal(404);
    const login = await t.api.post('/auth/token', { email: created.email, password: 'second-password' });
    expect(login.status).to.equal(401);
  });

  it('of 20 concurrent redemptions of one invite exactly one succeeds; the others answer 404', async () => {
    const created = await invite();
    const attempts = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.api.post('/auth/invites/redeem', { token: created.invite_token, password: `password-number-${i}` }),
      ),
    );
    const statuses = attempts.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).to.have.length(1);
    expect(statuses.filter((s) => s === 404)).to.have.length(19);
    const winner = attempts.findIndex((a) => a.status === 200);
    expect(
      (await t.api.post('/auth/token', { email: created.email, password: `password-number-${winner}` })).status,
    ).to.equal(200);
    const loser = (winner + 1) % 20;
    expect(
      (await t.api.post('/auth/token', { email: created.email, password: `password-number-${loser}` })).status,
    ).to.equal(401);
  });

  it('a password under 8 characters answers 422 and leaves the invite usable', async () => {
    const created = await invite();
    const short = await t.api.post('/auth/invites/redeem', { token: created.invite_token, password: 'short' });
    expect(short.status).to.equal(422);
    expect(short.body.detail[0].loc).to.deep.equal(['body', 'password']);
    expect((await t.api.get(`/auth/invites/${created.invite_token}`)).status).to.equal(200);
  });

  it('a password over 72 bytes is refused with 422, not silently truncated', async () => {
    const created = await invite();
    const long = await t.api.post('/auth/invites/redeem', { token: created.invite_token, password: 'é'.repeat(37) });
    expect(long.status).to.equal(422);
    expect(long.body.detail[0].msg).to.match(/72 bytes/);
    expect((await t.api.get(`/auth/invites/${created.invite_token}`)).status).to.equal(200);
  });

  it('an expired invite answers 404 on inspect and redeem', async () => {
    const created = await invite();
    // A second, already expired token for the same user, issued straight through the aggregate.
    const deps = identityDeps(t.deps);
    const { token, tokenHash } = newOneTimeToken();
    await runOneTimeTokenCommand(
      deps.handle,
      {
        type: 'IssueOneTimeToken',
        tokenHash,
        purpose: 'invite',
        tenantId: admin.tenantId,
        userId: created.id,
        expiresAt: new Date(Date.now() - 1000).toISOString(),
      },
      { tenantId: admin.tenantId, actorId: admin.userId },
    );
    expect((await t.api.get(`/auth/invites/${token}`)).status).to.equal(404);
    expect((await t.api.post('/auth/invites/redeem', { token, password: 'long-enough-pw' })).status).to.equal(404);
  });

  it('a session token is never accepted as an invite token, nor an invite token as a session', async () => {
    const created = await invite();
    expect((await t.api.get(`/auth/invites/${admin.token}`)).status).to.equal(404);
    expect(
      (await t.api.post('/auth/invites/redeem', { token: admin.token, password: 'long-enough-pw' })).status,
    ).to.equal(404);
    const asSession = await t.api.get('/auth/me', { authorization: `Bearer ${created.invite_token}` });
    expect(asSession.status).to.equal(401);
    expect(asSession.body).to.deep.equal({ error: 'invalid token: signature' });
  });

  it('a password reset issues a 1-hour reset token that sets a new password and ends old sessions', async () => {
    const email = uniqueEmail();
    const created = await t.api.post('/auth/admin/users', { email, roles: ['reviewer'] }, admin.headers);
    const first = await t.api.post('/auth/invites/redeem', {
      token: created.body.invite_token,
      password: 'old-password-1',
    });
    const oldSession = { authorization: `Bearer ${sessionCookie(first)!.token}` };
    expect((await t.api.get('/auth/me', oldSession)).status).to.equal(200);

    const reset = await t.api.post(`/auth/admin/users/${created.body.id}/reset-password`, undefined, admin.headers);
    expect(reset.status).to.equal(200);
    expect(reset.body.reset_url).to.contain(encodeURIComponent(reset.body.reset_token));
    const revoked = await t.api.get('/auth/me', oldSession);
    expect(revoked.status).to.equal(401);
    expect(revoked.body).to.deep.equal({ error: 'invalid token: revoked' });

    const inspect = await t.api.get(`/auth/invites/${reset.body.reset_token}`);
    expect(inspect.body.purpose).to.equal('reset');
    const minutes = (Date.parse(inspect.body.expires_at) - Date.now()) / 60000;
    expect(minutes).to.be.within(59, 60.1);

    const redeemed = await t.api.post('/auth/invites/redeem', {
      token: reset.body.reset_token,
      password: 'new-password-2',
    });
    expect(redeemed.status).to.equal(200);
    expect((await t.api.post('/auth/token', { email, password: 'new-password-2' })).status).to.equal(200);
    expect((await t.api.post('/auth/token', { email, password: 'old-password-1' })).status).to.equal(401);
  });

  it('a new reset voids the previous open reset token', async () => {
    const email = uniqueEmail();
    const created = await t.api.post('/auth/admin/users', { email, roles: [] }, admin.headers);
    await t.api.post('/auth/invites/redeem', { token: created.body.invite_token, password: 'old-password-1' });
    const first = await t.api.post(`/auth/admin/users/${created.body.id}/reset-password`, undefined, admin.headers);
    const second = await t.api.post(`/auth/admin/users/${created.body.id}/reset-password`, undefined, admin.headers);
    expect((await t.api.get(`/auth/invites/${first.body.reset_token}`)).status).to.equal(404);
    expect(
      (await t.api.post('/auth/invites/redeem', { token: first.body.reset_token, password: 'whatever-pw' })).status,
    ).to.equal(404);
    expect((await t.api.get(`/auth/invites/${second.body.reset_token}`)).status).to.equal(200);
  });
});
