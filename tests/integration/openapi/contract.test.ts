import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import { servedRoutes } from '../../support/routes';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import type { OpenApiDocument } from '../../../src/platform/openapi/describe';

/** The API contract: served on both listeners, and it describes every route the apps serve. */
describe('the API contract', function () {
  let t: TestPlatform;
  before(async () => {
    t = await startTestPlatform();
  });
  after(() => t?.close());

  // One path segment may hold several parameters (`{ns}:{slug}`) where the router takes it whole (`:ref`).
  const shape = (path: string) => path.replace(/\{[^}/]+\}(:\{[^}/]+\})*/g, '{}');
  const operations = (doc: OpenApiDocument) =>
    Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
      Object.keys(item as object).map((method) => `${method.toUpperCase()} ${shape(path)}`),
    );

  for (const listener of ['public', 'internal'] as const) {
    it(`describes every route the ${listener} listener serves, and nothing it does not`, async () => {
      const client = listener === 'public' ? t.api : t.internal;
      const { status, body } = await client.get<OpenApiDocument>('/openapi.json');
      expect(status).to.equal(200);
      const documented = new Set(operations(body));
      const app = listener === 'public' ? t.platform.apps.public! : t.platform.apps.internal;
      const served = servedRoutes(app).map((r) => ({ ...r, path: shape(r.path) }));
      const undescribed = served
        .filter((r) =>
          r.method === 'all'
            ? !['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].some((m) => documented.has(`${m} ${r.path}`))
            : !documented.has(`${r.method.toUpperCase()} ${r.path}`),
        )
        .map((r) => `${r.method.toUpperCase()} ${r.path}`);
      expect(undescribed, 'routes without a description in src/contexts/<ctx>/openapi.ts').to.deep.equal([]);
      const servedKeys = new Set(
        served.flatMap((r) =>
          r.method === 'all'
            ? ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => `${m} ${r.path}`)
            : [`${r.method.toUpperCase()} ${r.path}`],
        ),
      );
      expect(
        [...documented].filter((op) => !servedKeys.has(op)),
        'documented operations no route serves',
      ).to.deep.equal([]);
    });
  }

  it('serves an OpenAPI 3.1 document without a token, with both security schemes and the error bodies', async () => {
    const { status, body } = await t.api.get<OpenApiDocument>('/openapi.json');
    expect(status).to.equal(200);
    expect(body.openapi).to.equal('3.1.0');
    expect(Object.keys(body.components?.securitySchemes ?? {})).to.have.members(['bearer', 'cookie']);
    expect((body.components?.securitySchemes as any).cookie).to.include({ in: 'cookie', name: 'svc_token' });
    expect(Object.keys(body.components?.schemas ?? {})).to.include.members([
      'ErrorDetail',
      'ValidationError',
      'GatewayError',
    ]);
    const me = (body.paths as any)['/api/v1/auth/me'].get;
    expect(me.security).to.deep.equal([{ bearer: [] }, { cookie: [] }]);
    expect(me.responses['401'].content['application/json'].schema).to.be.an('object');
    expect((body.paths as any)['/api/v1/auth/token'].post.security).to.deep.equal([{}, { bearer: [] }, { cookie: [] }]);
  });

  it('serves documents that are valid OpenAPI 3.1 on both listeners', async () => {
    for (const client of [t.api, t.internal]) {
      const { body } = await client.get('/openapi.json');
      const result = await new Validator().validate(body);
      expect(result.errors ?? [], JSON.stringify(result.errors)).to.deep.equal([]);
      expect(result.valid).to.equal(true);
    }
  });

  it('serves a readable reference page at /docs on both listeners without a token', async () => {
    for (const [base, route] of [
      [t.publicUrl, '/api/v1/auth/me'],
      [t.internalUrl, '/api/v1/auth/resolve'],
    ]) {
      const response = await fetch(`${base}/docs`);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.match(/text\/html/);
      const html = await response.text();
      expect(html).to.include('/api/v1/openapi.json');
      expect(html).to.include(`<code>${route}</code>`);
    }
  });

  it('serves the internal listener its own document (internal-only routes, no gateway security)', async () => {
    const { body } = await t.internal.get<OpenApiDocument>('/openapi.json');
    expect(Object.keys(body.paths ?? {})).to.include('/api/v1/auth/resolve');
    const publicDoc = (await t.api.get<OpenApiDocument>('/openapi.json')).body;
    expect(Object.keys(publicDoc.paths ?? {})).not.to.include('/api/v1/auth/resolve');
  });

  it('writes the prompts hot path as `{ns}:{slug}`, both halves as path parameters', async () => {
    const paths = (await t.api.get<OpenApiDocument>('/openapi.json')).body.paths as any;
    for (const [path, method] of [
      ['/api/v1/prompts/resolve/{ns}:{slug}', 'get'],
      ['/api/v1/prompts/render/{ns}:{slug}', 'post'],
    ]) {
      expect(
        paths[path]?.[method]?.parameters.filter((p: any) => p.in === 'path').map((p: any) => p.name),
        path,
      ).to.deep.equal(['ns', 'slug']);
    }
  });

  it('every write operation describes its request body or says it takes none', async () => {
    for (const client of [t.api, t.internal]) {
      const paths = (await client.get<OpenApiDocument>('/openapi.json')).body.paths as any;
      const silent = Object.entries<any>(paths).flatMap(([path, item]) =>
        Object.entries<any>(item)
          .filter(
            ([method, op]) => method !== 'get' && !op.requestBody && !/No request body/.test(op.description ?? ''),
          )
          .map(([method]) => `${method.toUpperCase()} ${path}`),
      );
      expect(silent).to.deep.equal([]);
    }
  });
});
