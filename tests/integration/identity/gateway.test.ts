import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Router } from 'express';
import { SignJWT, base64url } from 'jose';
import { identityContext } from '../../../src/contexts/identity/module';
import type { ContextModule } from '../../../src/platform/context-module';
import { identityOf } from '../../../src/platform/http/identity';
import { TOKEN_ISSUER } from '../../../commands/identity/session-tokens';
import { signIn, type Session } from '../../support/auth';
import { startTestPlatform, type TestPlatform, TEST_JWT_SECRET } from '../../support/platform';

/** Answers every path with the identity the gateway stamped, so tests can see what passed. */
const echoContext: ContextModule = {
  name: 'echo',
  publicRouter: () => {
    const router = Router();
    router.all('/{*rest}', (req, res) => {
      res.json({
        identity: identityOf(req),
        raw: req.rawHeaders.filter(
          (_h, i) => i % 2 === 0 && /^x-(user-id|tenant-id|permissions)$/i.test(req.rawHeaders[i]),
        ),
      });
    });
    return router;
  },
};

const key = new TextEncoder().encode(TEST_JWT_SECRET);
const enc = (value: object) => base64url.encode(JSON.stringify(value));

describe('identity: the gateway against forged and malformed tokens', () => {
  let t: TestPlatform;
  let user: Session;
  let claims: Record<string, unknown>;

  before(async () => {
    t = await startTestPlatform({ contexts: [identityContext, echoContext] });
    user = await signIn(t, { roles: ['operator'] });
    const now = Math.floor(Date.now() / 1000);
    claims = {
      user_id: user.userId,
      email: user.email,
      roles: ['admin'],
      tenant_id: user.tenantId,
      tv: 0,
      iss: TOKEN_ISSUER,
      iat: now,
      exp: now + 3600,
    };
  });
  after(() => t.close());

  const call = (token: string, path = '/anything') => t.api.get(path, { authorization: `Bearer ${token}` });
  const hs256 = (payload: Record<string, unknown>, header: Record<string, unknown> = {}) =>
    new SignJWT(payload).setProtectedHeader({ alg: 'HS256', ...header }).sign(key);
  const unsigned = (alg: string, payload = claims) => `${enc({ alg, typ: 'JWT' })}.${enc(payload)}.`;

  it('a well-formed token of our own passes, and the stamped identity is the resolved one', async () => {
    const response = await call(await hs256(claims));
    expect(response.status).to.equal(200);
    expect(response.body.identity.userId).to.equal(user.userId);
    // Roles come from the directory, not from the token's claim of admin.
    expect(response.body.identity.permissions).not.to.include('users.manage');
  });

  for (const alg of ['none', 'None', 'NONE', 'nOnE']) {
    it(`rejects alg "${alg}" with 401 invalid token: signature`, async () => {
      const response = await call(unsigned(alg));
      expect(response.status).to.equal(401);
      expect(response.body).to.deep.equal({ error: 'invalid token: signature' });
    });
  }

  it('rejects HS512 and RS256 tokens, and an HS256 header over an HS512 signature', async () => {
    const hs512 = await new SignJWT(claims).setProtectedHeader({ alg: 'HS512' }).sign(key);
    const [, body, sig] = hs512.split('.');
    const forged = [
      hs512,
      `${enc({ alg: 'RS256', typ: 'JWT' })}.${body}.${sig}`,
      `${enc({ alg: 'HS256' })}.${body}.${sig}`,
    ];
    for (const token of forged) expect((await call(token)).body).to.deep.equal({ error: 'invalid token: signature' });
  });

  it('rejects an empty, truncated or flipped signature, and a token signed with another key', async () => {
    const good = await hs256(claims);
    const [h, p, s] = good.split('.');
    const flipped = s.slice(0, -2) + (s.at(-2) === 'A' ? 'B' : 'A') + s.at(-1);
    const other = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode('another-secret-of-at-least-32-bytes!!'));
    for (const token of [`${h}.${p}.`, `${h}.${p}`, `${h}.${p}.${s.slice(0, 10)}`, `${h}.${p}.${flipped}`, other]) {
      const response = await call(token);
      expect(response.status, token).to.equal(401);
      expect(response.body).to.deep.equal({ error: 'invalid token: signature' });
    }
  });

  it('rejects a payload changed under a valid signature (privilege or tenant swap)', async () => {
    const [h, , s] = (await hs256(claims)).split('.');
    const swapped = `${h}.${enc({ ...claims, tenant_id: randomUUID() })}.${s}`;
    expect((await call(swapped)).status).to.equal(401);
  });

  it('rejects tokens without exp, with a string exp, or without iat', async () => {
    const { exp: _exp, ...noExp } = claims;
    const { iat: _iat, ...noIat } = claims;
    for (const payload of [
      noExp,
      { ...claims, exp: String(claims.exp) },
      { ...claims, exp: `${claims.exp}` + '0' },
      noIat,
    ]) {
      const response = await call(await hs256(payload));
      expect(response.status, JSON.stringify(payload)).to.equal(401);
      expect(response.body.error).to.match(/^invalid token: /);
    }
  });

  it('an expired token answers 401 invalid token: expired', async () => {
    const past = Math.floor(Date.now() / 1000) - 7200;
    const response = await call(await hs256({ ...claims, iat: past, exp: past + 60 }));
    expect(response.status).to.equal(401);
    expect(response.body).to.deep.equal({ error: 'invalid token: expired' });
  });

  it('rejects kid, jku, jwk, x5u and crit headers even over a valid signature', async () => {
    const headers = [
      { kid: 'k1' },
      { jku: 'https://evil.example/jwks.json' },
      { x5u: 'https://evil.example/cert' },
      { jwk: { kty: 'oct', k: 'AAAA' } },
    ];
    for (const header of headers)
      expect((await call(await hs256(claims, header))).status, JSON.stringify(header)).to.equal(401);
    const crit = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', crit: ['b64'], b64: true })
      .sign(key)
      .catch(() => null);
    if (crit) expect((await call(crit)).status).to.equal(401);
  });

  it('rejects a foreign issuer, a non-uuid user id and a user that does not exist', async () => {
    expect((await call(await hs256({ ...claims, iss: 'someone-else' }))).status).to.equal(401);
    expect((await call(await hs256({ ...claims, user_id: 'admin' }))).status).to.equal(401);
    const ghost = await call(await hs256({ ...claims, user_id: randomUUID() }));
    expect(ghost.body).to.deep.equal({ error: 'invalid token: unknown_user' });
    const otherTenant = await call(await hs256({ ...claims, tenant_id: randomUUID() }));
    expect(otherTenant.body).to.deep.equal({ error: 'invalid token: unknown_user' });
  });

  it("a token older than the user's token version answers invalid token: revoked; absent tv means 0", async () => {
    const { tv: _tv, ...noTv } = claims;
    expect((await call(await hs256(noTv))).status).to.equal(200);
    const session = await signIn(t, { roles: ['reviewer'] });
    await t.api.post('/auth/logout-all', undefined, session.headers);
    expect((await call(session.token)).body).to.deep.equal({ error: 'invalid token: revoked' });
  });

  it('strips client identity headers in every letter case and repetition, with or without a token', async () => {
    const forged = [
      'X-User-Id',
      randomUUID(),
      'x-tenant-id',
      randomUUID(),
      'X-PERMISSIONS',
      'users.manage',
      'x-user-id',
      randomUUID(),
      'X-Tenant-ID',
      'other',
    ];
    const headers = new Headers();
    for (let i = 0; i < forged.length; i += 2) headers.append(forged[i], forged[i + 1]);
    headers.set('authorization', `Bearer ${user.token}`);
    const withToken = await (await fetch(`${t.publicUrl}/api/v1/anything`, { headers })).json();
    expect(withToken.identity).to.deep.equal({
      userId: user.userId,
      tenantId: user.tenantId,
      permissions: ['compliance.assess', 'conversations.use', 'dashboards.read', 'filings.submit'],
    });
    headers.delete('authorization');
    const publicPath = await (await fetch(`${t.publicUrl}/api/v1/entity-types`, { headers })).json();
    expect(publicPath.identity).to.equal(null);
    expect(publicPath.raw).to.deep.equal([]);
    const denied = await fetch(`${t.publicUrl}/api/v1/anything`, { headers });
    expect(denied.status).to.equal(401);
    expect(await denied.json()).to.deep.equal({ error: 'missing authentication' });
  });

  it('public paths need no token; the others answer 401 missing authentication', async () => {
    expect((await t.api.get('/entity-types')).status).to.equal(200);
    expect((await t.api.get('/relationship-types/x')).status).to.equal(200);
    expect((await t.api.get('/relationship-rules')).status).to.equal(200);
    expect((await t.api.post('/entity-types', {})).body).to.deep.equal({ error: 'missing authentication' });
    expect((await t.api.get('/conversations')).body).to.deep.equal({ error: 'missing authentication' });
    expect((await t.api.get('/auth/tokenX')).status).to.equal(401);
  });

  it('internal-only routes answer 404 through the public gateway, whatever the letter case', async () => {
    const paths = [
      '/auth/resolve',
      '/connectors/status',
      '/connectors/erp/status',
      '/Connectors/ERP/Bindings',
      '/connectors/bindings',
      '/connectors/erp/execute',
      '/extract',
      '/duplication-rules',
      '/duplication-rules/reset',
      '/DUPLICATION-RULES/1',
    ];
    for (const path of paths) {
      const response = await t.api.post(path, {}, { authorization: `Bearer ${user.token}` });
      expect(response.status, path).to.equal(404);
    }
    expect((await t.api.get('/connectors/erp/exposures', user.headers)).status).to.equal(200);
  });

  it("role gates: /admin/* needs admin with the spec's message; the others name the roles they need", async () => {
    const admin = await signIn(t, { roles: ['admin'] });
    const power = await signIn(t, { roles: ['power_user'] });
    const reviewer = await signIn(t, { roles: ['reviewer'] });
    const cases: Array<[string, string, Session, number, string?]> = [
      ['GET', '/admin/settings', user, 403, 'admin role required'],
      ['GET', '/ADMIN/settings', user, 403, 'admin role required'],
      ['GET', '/admin/settings', admin, 200],
      ['GET', '/detection-rules', user, 403, 'power_user or admin role required'],
      ['GET', '/detection-rules/7', power, 200],
      ['POST', '/ingest/scada', reviewer, 403, 'power_user or admin role required'],
      ['POST', '/ingest/scada', admin, 200],
      ['POST', '/entity-types', user, 403, 'power_user or admin role required'],
      ['PATCH', '/event-types/1/guard-rules/2', reviewer, 403, 'power_user or admin role required'],
      ['DELETE', '/relationship-rules/1', power, 200],
      ['PUT', '/relationship-types/1', admin, 200],
      ['POST', '/approvals/abc/decide', user, 403, 'reviewer or admin role required'],
      ['POST', '/approvals/abc/decide', reviewer, 200],
      ['POST', '/approvals/abc/escalate', user, 200],
    ];
    for (const [method, path, session, status, error] of cases) {
      const response = await t.api.request(method, path, {
        body: method === 'GET' ? undefined : {},
        headers: session.headers,
      });
      expect(response.status, `${method} ${path} as ${session.roles}`).to.equal(status);
      if (error) expect(response.body).to.deep.equal({ error });
    }
  });

  it('when the resolve step fails the gateway answers 503, never passing the request through', async () => {
    const fresh = await signIn(t, { roles: ['admin'] });
    await t.deps.knex.schema.renameTable('identity_users', 'identity_users_away');
    try {
      const response = await call(fresh.token, '/admin/x');
      expect(response.status).to.equal(503);
      expect(response.body).to.deep.equal({ error: 'authorization service unavailable' });
    } finally {
      await t.deps.knex.schema.renameTable('identity_users_away', 'identity_users');
    }
    expect((await call(fresh.token, '/admin/x')).status).to.equal(200);
  });
});
