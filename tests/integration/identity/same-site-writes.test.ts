import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { settingsContext } from '../../../src/contexts/settings/module';
import { signIn, type Session } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

/**
 * No state change from another site: a write authenticated by the session cookie is
 * refused 403 when the browser marks it cross-site; reads stay open to every origin,
 * and bearer clients are unaffected.
 */
describe('cookie-authenticated writes from another site', function () {
  this.timeout(60_000);
  let t: TestPlatform;
  let admin: Session;
  let cookie: Record<string, string>;
  const tokens = () =>
    t.api
      .get<{ settings: { max_tokens_per_day: number | null } }>('/settings', admin.headers)
      .then((r) => r.body.settings.max_tokens_per_day);

  before(async () => {
    t = await startTestPlatform({ contexts: [settingsContext] });
    admin = await signIn(t, { roles: ['admin'] });
    cookie = { cookie: `svc_token=${admin.token}` };
  });
  after(() => t.close());

  it('Sec-Fetch-Site: cross-site or a foreign Origin on a cookie write answers 403 {error} and changes nothing', async () => {
    const before = await tokens();
    for (const marks of <Record<string, string>[]>[
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { origin: 'https://evil.example', 'sec-fetch-site': 'same-origin' },
    ]) {
      for (const method of ['PUT', 'POST', 'PATCH', 'DELETE']) {
        const response = await t.api.request(method, '/settings', {
          body: { max_tokens_per_day: 123_456 },
          headers: { ...cookie, ...marks },
        });
        expect(response.status, `${method} ${JSON.stringify(marks)}`).to.equal(403);
        expect(response.body).to.deep.equal({ error: 'cross-site request refused' });
      }
    }
    expect(await tokens()).to.equal(before);
  });

  it('the stream GET that starts a turn is a write: refused cross-site with `message`, a plain read is not', async () => {
    const id = randomUUID();
    const start = await t.api.get(`/conversations/${id}/stream?message=hello`, {
      ...cookie,
      'sec-fetch-site': 'cross-site',
    });
    expect(start.status).to.equal(403);
    expect(start.body).to.deep.equal({ error: 'cross-site request refused' });
    expect(
      (await t.api.get(`/conversations/${id}/stream`, { ...cookie, 'sec-fetch-site': 'cross-site' })).status,
    ).to.not.equal(403);
    expect(
      (await t.api.get('/settings', { ...cookie, 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' }))
        .status,
    ).to.equal(200);
  });

  it("the platform's own pages write: same-origin fetch metadata, its own Origin, or no marks at all", async () => {
    for (const marks of <Record<string, string>[]>[
      { 'sec-fetch-site': 'same-origin', origin: t.publicUrl },
      { origin: t.publicUrl },
      { 'sec-fetch-site': 'same-site' },
      {},
    ]) {
      const response = await t.api.put('/settings', { max_tokens_per_day: 654_321 }, { ...cookie, ...marks });
      expect(response.status, JSON.stringify(marks)).to.equal(200);
    }
    expect(await tokens()).to.equal(654_321);
  });

  it('a bearer client is not affected by Origin or Sec-Fetch-Site', async () => {
    const response = await t.api.put(
      '/settings',
      { max_tokens_per_day: 777_777 },
      { ...admin.headers, origin: 'https://elsewhere.example', 'sec-fetch-site': 'cross-site' },
    );
    expect(response.status).to.equal(200);
    expect(await tokens()).to.equal(777_777);
  });

  it("a public write (log in) from another site goes on without the cookie's identity", async () => {
    const response = await t.api.post(
      '/auth/token',
      { email: 'nobody@example.com', password: 'wrong-password-1' },
      { ...cookie, origin: 'https://evil.example' },
    );
    expect(response.status).to.equal(401);
  });
});
