import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { contexts as productContexts } from '../../../src/contexts';
import { permissionsFor } from '../../../streams/identity/permissions';
import { signIn } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { fill, type RouteEntry, routesOf } from './routes';

/**
 * Hostile and careless input, sent to every route of every context (found by walking the
 * context routers, so routes added later are probed too), on both listeners: no answer is
 * a 5xx. The probes are the ones that answered 500/503 before the input-hygiene stage.
 */
const DEEP = 10_000;
const deepArray = '['.repeat(DEEP) + ']'.repeat(DEEP);
const deepObject = '{"a":'.repeat(DEEP) + '1' + '}'.repeat(DEEP);

const PARAM_PROBES = ['%00', '%ZZ', '%ED%A0%80', 'x%00y', '%', '00000000-0000-0000-0000-000000000000', 'a'.repeat(600)];
const QUERY_PROBES = ['?q=%00', '?limit=%ZZ', '?limit=-1&offset=1e309', '?x=%ED%A0%80', '?q=%E0%A4%A'];
const BODY_PROBES: Array<{ name: string; body: string; type?: string }> = [
  { name: 'deep array', body: deepArray },
  { name: 'deep object', body: deepObject },
  {
    name: 'NUL in a string',
    body: '{"name":"a\\u0000b","email":"a\\u0000@x.io","query":"\\u0000","template_id":"\\u0000","password":"\\u0000"}',
  },
  { name: 'lone surrogate', body: '{"name":"\\ud800","email":"\\udc00@x.io","query":"\\ud800","password":"\\ud800"}' },
  { name: 'NUL in a key', body: '{"a\\u0000":1}' },
  { name: '__proto__', body: '{"__proto__":{"admin":true},"name":"x"}' },
  { name: 'constructor.prototype', body: '{"constructor":{"prototype":{"admin":true}}}' },
  { name: 'not JSON', body: '{"name":' },
  { name: 'scalar', body: '"text"' },
  { name: 'null', body: 'null' },
  { name: 'empty object', body: '{}' },
  { name: 'huge numbers', body: '{"limit":1e309,"max_tokens":-1e400,"name":123456789012345678901234567890}' },
  { name: 'wrong types everywhere', body: '{"name":[],"email":{},"roles":"admin","params":"x","properties":[1,2]}' },
  { name: 'form body', body: 'a=1&b=%00', type: 'application/x-www-form-urlencoded' },
  { name: 'multipart without a boundary', body: '--x\r\n', type: 'multipart/form-data' },
];

/**
 * Body field names the routes' schemas know, read from the sources (so a new context's
 * fields are probed too): a probe value under a real field name gets past "unknown field"
 * and reaches the code behind the schema.
 */
function schemaFieldNames(): string[] {
  const names = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const full = path.join(dir, entry);
      if (statSync(full).isDirectory()) walk(full);
      else if (full.endsWith('.ts'))
        for (const m of readFileSync(full, 'utf8').matchAll(/([A-Za-z_][A-Za-z0-9_]*)\??\s*:\s*z\./g)) names.add(m[1]);
    }
  };
  for (const dir of ['src/contexts', 'commands', 'queries']) {
    try {
      walk(dir);
    } catch {
      // A folder a checkout does not have.
    }
  }
  return [...names].sort();
}

function fieldBodies(): Array<{ name: string; body: string }> {
  const fields = schemaFieldNames();
  const everywhere = (value: unknown) => JSON.stringify(Object.fromEntries(fields.map((f) => [f, value])));
  // Past the hygiene stage's depth limit under every field at once (the 10,000-deep probes
  // above cover the parser and the stage themselves).
  const deepValue = JSON.parse('{"a":'.repeat(200) + '1' + '}'.repeat(200)) as unknown;
  return [
    { name: 'NUL under every known field', body: everywhere('a\u0000b') },
    { name: 'lone surrogate under every known field', body: everywhere('\ud800') },
    { name: 'NUL in every known field, one array item', body: everywhere(['\u0000']) },
    { name: 'NUL key under every known field', body: everywhere({ 'k\u0000': 'v' }) },
    { name: '200 deep under every known field', body: everywhere(deepValue) },
  ];
}

describe('no client input answers 5xx (fuzz over every route)', function () {
  this.timeout(600_000);
  let t: TestPlatform;
  let publicHeaders: Record<string, string>;
  let internalHeaders: Record<string, string>;
  let publicRoutes: RouteEntry[];
  let internalRoutes: RouteEntry[];
  const FIELD_BODIES = fieldBodies();

  before(async () => {
    t = await startTestPlatform({ env: { RATE_LIMIT_BURST: '1000000', RATE_LIMIT_PER_MINUTE: '1000000' } });
    const session = await signIn(t, { roles: ['admin', 'operator', 'reviewer', 'power_user'] });
    publicHeaders = session.headers;
    internalHeaders = {
      'x-user-id': session.userId,
      'x-tenant-id': session.tenantId,
      'x-permissions': permissionsFor(session.roles).join(','),
    };
    publicRoutes = productContexts.flatMap((c) => (c.publicRouter ? routesOf(c.publicRouter(t.deps)) : []));
    internalRoutes = productContexts.flatMap((c) => (c.internalRouter ? routesOf(c.internalRouter(t.deps)) : []));
  });
  after(async () => t?.close());

  const freshHeaders = async () =>
    (await signIn(t, { roles: ['admin', 'operator', 'reviewer', 'power_user'] })).headers;

  async function probe(
    base: string,
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: { body: string; type?: string },
  ): Promise<{ status: number; text: string }> {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body && method !== 'GET' && method !== 'HEAD') {
      init.body = body.body;
      (init.headers as Record<string, string>)['content-type'] = body.type ?? 'application/json';
    }
    const response = await fetch(`${base}/api/v1${path}`, init);
    return { status: response.status, text: method === 'HEAD' ? '' : await response.text() };
  }

  async function sweep(
    base: string,
    routes: RouteEntry[],
    headers: Record<string, string>,
    anonymous: boolean,
  ): Promise<string[]> {
    const failures: string[] = [];
    const check = async (
      method: string,
      path: string,
      hdrs: Record<string, string>,
      body?: { name: string; body: string; type?: string },
    ) => {
      const { status, text } = await probe(base, method, path, hdrs, body);
      if (status >= 500)
        failures.push(`${method} ${path}${body ? ` [${body.name}]` : ''} → ${status} ${text.slice(0, 120)}`);
      // Every refusal keeps the spec's error shape.
      else if (status >= 400 && text) {
        const parsed = JSON.parse(text) as Record<string, unknown>;
        if (!('detail' in parsed) && !('error' in parsed))
          failures.push(`${method} ${path} → ${status} without the error shape: ${text.slice(0, 120)}`);
      }
    };
    let session = headers;
    for (const route of routes) {
      // A probe may end the session it came with (logout-all): then the next route gets a fresh one.
      if (anonymous && (await probe(base, 'GET', '/settings/model-options', session)).status === 401)
        session = await freshHeaders();
      const identities = anonymous ? [session, {}] : [headers];
      for (const hdrs of identities) {
        const signedIn = Object.keys(hdrs).length > 0;
        const plain = fill(route.path, '00000000-0000-4000-8000-000000000000');
        // Anonymous callers are mostly stopped by the gateway: the cheap probes suffice.
        const probes: Array<[string, { name: string; body: string; type?: string }?]> = [
          ...PARAM_PROBES.map((p) => [fill(route.path, p)] as [string]),
          ...(signedIn ? QUERY_PROBES.map((q) => [plain + q] as [string]) : []),
          ...(['POST', 'PUT', 'PATCH', 'DELETE'].includes(route.method)
            ? [...BODY_PROBES, ...(signedIn ? FIELD_BODIES : [])].map(
                (b) => [plain, b] as [string, { name: string; body: string }],
              )
            : []),
        ];
        // A few at a time: the listener sees concurrent hostile traffic, and the sweep stays short.
        for (let i = 0; i < probes.length; i += 4)
          await Promise.all(probes.slice(i, i + 4).map(([path, body]) => check(route.method, path, hdrs, body)));
      }
    }
    return failures;
  }

  it('finds the routes of every context on both listeners', () => {
    expect(publicRoutes.length).to.be.greaterThan(20);
    expect(publicRoutes.map((r) => `${r.method} ${r.path}`)).to.include.members([
      'POST /auth/token',
      'GET /entity-types/:key',
    ]);
    expect(internalRoutes.length).to.be.greaterThan(0);
  });

  it('public listener: signed in and anonymous, every probe answers below 500 in the error shape', async () => {
    const failures = await sweep(t.publicUrl, publicRoutes, publicHeaders, true);
    expect(failures, failures.join('\n')).to.deep.equal([]);
  });

  it('internal listener: every probe answers below 500 in the error shape', async () => {
    const failures = await sweep(t.internalUrl, internalRoutes, internalHeaders, false);
    expect(failures, failures.join('\n')).to.deep.equal([]);
  });

  it('paths no route knows are refused before routing: %00 and %ZZ on public routes are 400', async () => {
    for (const path of ['/entity-types/%00', '/auth/invites/%ZZ', '/auth/invites/%ED%A0%80']) {
      const response = await probe(t.publicUrl, 'GET', path, {});
      expect(response.status, path).to.equal(400);
      expect(JSON.parse(response.text))
        .to.have.property('detail')
        .that.matches(/^Malformed request/);
    }
  });

  it('POST /auth/token before login: NUL, lone surrogate and depth are 4xx and name no secret', async () => {
    const nul = await probe(
      t.publicUrl,
      'POST',
      '/auth/token',
      {},
      { body: '{"email":"admin@example.com","password":"secret\\u0000x"}' },
    );
    expect(nul.status).to.equal(422);
    expect(JSON.parse(nul.text).detail[0])
      .to.include({ type: 'string.nul' })
      .and.to.have.property('loc')
      .that.deep.equals(['body', 'password']);
    expect(nul.text).to.not.contain('secret');
    const lone = await probe(t.publicUrl, 'POST', '/auth/token', {}, { body: '{"email":"\\ud800","password":"x"}' });
    expect(lone.status).to.equal(422);
    const deep = await probe(t.publicUrl, 'POST', '/auth/token', {}, { body: deepObject });
    expect(deep.status).to.equal(400);
  });

  it('a NUL in a query-template parameter is a 422 naming the parameter, not a 503 that invites retries', async () => {
    const response = await probe(t.publicUrl, 'POST', '/graph/query-template', await freshHeaders(), {
      body: '{"template_id":"operator_wells","params":{"operator_id":"op\\u0000x"}}',
    });
    expect(response.status).to.equal(422);
    expect(JSON.parse(response.text).detail[0]).to.deep.include({
      loc: ['body', 'params', 'operator_id'],
      type: 'string.nul',
    });
  });

  it('__proto__ in a body is an unknown field (422) like any other', async () => {
    const response = await probe(
      t.publicUrl,
      'POST',
      '/auth/token',
      {},
      { body: '{"email":"a@b.io","password":"x","__proto__":{"roles":["admin"]}}' },
    );
    expect(response.status).to.equal(422);
    expect(JSON.parse(response.text).detail[0]).to.deep.include({
      loc: ['body', '__proto__'],
      type: 'unrecognized_keys',
    });
  });
});
