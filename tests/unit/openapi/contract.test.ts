import { expect } from 'chai';
import { buildOpenApiDocument, standardErrors, z, type ApiDescription } from '../../../src/platform/openapi/describe';
import { contractOf } from '../../../src/platform/openapi/contract';
import { OUTPUT_CEILINGS } from '../../../src/platform/openapi/output-bounds';

/** The document builder and the ajv response check the integration tests run on every response. */
const Thing = z.object({ id: z.string().uuid(), count: z.number().int(), note: z.string().nullable() });
const description: ApiDescription = {
  tag: 'things',
  public: () => [
    {
      method: 'get',
      path: '/things/:id',
      summary: 'one thing',
      params: z.object({ id: z.string().uuid() }),
      responses: { 200: Thing },
    },
    {
      method: 'get',
      path: '/things/special',
      summary: 'a literal segment',
      responses: { 200: z.object({ special: z.literal(true) }) },
    },
    {
      method: 'post',
      path: '/things',
      summary: 'create',
      body: z.object({ name: z.string().min(1) }),
      responses: { 201: Thing },
    },
    {
      method: 'post',
      path: '/things/:id/file',
      summary: 'upload',
      params: z.object({ id: z.string() }),
      body: 'multipart',
      responses: { 204: null },
    },
    {
      method: 'get',
      path: '/things/:id/events',
      summary: 'live',
      params: z.object({ id: z.string() }),
      responses: {
        200: { events: { token: z.object({ text: z.string() }), done: z.object({ message_id: z.string() }) } },
      },
    },
    {
      method: 'get',
      path: '/open',
      auth: 'public',
      summary: 'public',
      responses: { 200: z.object({ ok: z.boolean() }) },
    },
  ],
};
const document = buildOpenApiDocument([description], { listener: 'public' });
const contract = contractOf(document);
const id = '5b0d8c1e-1f8e-4c53-9a51-3f7f8f3f1a11';
const paths = document.paths as Record<string, Record<string, any>>;

describe('the API contract builder', () => {
  it('writes express paths as OpenAPI templates under /api/v1 with their parameters', () => {
    expect(paths).to.have.keys(
      '/api/v1/things/{id}',
      '/api/v1/things/special',
      '/api/v1/things',
      '/api/v1/things/{id}/file',
      '/api/v1/things/{id}/events',
      '/api/v1/open',
    );
    expect(paths['/api/v1/things/{id}'].get.parameters).to.deep.include({
      schema: { type: 'string', format: 'uuid', maxLength: 36 },
      required: true,
      name: 'id',
      in: 'path',
    });
  });

  it('adds the error bodies a route can answer: gateway statuses, 422 for what it parses, 400/413 for a body', () => {
    const post = paths['/api/v1/things'].post;
    expect(Object.keys(post.responses)).to.include.members([
      '201',
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '422',
      '429',
      '500',
      '503',
    ]);
    expect(post.responses['422'].content['application/json'].schema).to.deep.equal({
      anyOf: [{ $ref: '#/components/schemas/ValidationError' }, { $ref: '#/components/schemas/ErrorDetail' }],
    });
    expect(
      standardErrors({ method: 'get', path: '/open', auth: 'public', summary: '', responses: {} }, 'public'),
    ).to.not.include(401);
    expect(paths['/api/v1/open'].get.security).to.deep.equal([{}, { bearer: [] }, { cookie: [] }]);
    expect(paths['/api/v1/things/{id}'].get.security).to.deep.equal([{ bearer: [] }, { cookie: [] }]);
  });

  it('describes uploads as multipart and live routes as text/event-stream', () => {
    expect(paths['/api/v1/things/{id}/file'].post.requestBody.content).to.have.key('multipart/form-data');
    expect(paths['/api/v1/things/{id}/file'].post.responses).to.include.keys('415');
    const stream = paths['/api/v1/things/{id}/events'].get.responses['200'].content;
    expect(stream).to.have.key('text/event-stream');
    const frames = stream['text/event-stream'].schema.anyOf;
    expect(frames.map((f: any) => f.properties.event.enum[0])).to.deep.equal(['token', 'done']);
    expect(frames[0].properties.data).to.deep.equal({
      type: 'object',
      properties: { text: { type: 'string', maxLength: OUTPUT_CEILINGS.textLength } },
      required: ['text'],
    });
  });
});

describe('the response contract check', () => {
  it('accepts a response that matches its schema', () => {
    expect(
      contract.check('GET', `/api/v1/things/${id}`, 200, 'application/json; charset=utf-8', {
        id,
        count: 2,
        note: null,
      }),
    ).to.deep.equal({ ok: true });
  });

  it('rejects a body with a wrong type or a missing field, naming where', () => {
    const verdict = contract.check('GET', `/api/v1/things/${id}`, 200, 'application/json', { id, count: '2' });
    expect(verdict.ok).to.equal(false);
    expect((verdict as { reason: string }).reason)
      .to.match(/\/count must be integer/)
      .and.match(/must have required property 'note'/);
  });

  it('rejects an undocumented status and an undocumented content type', () => {
    expect(
      (contract.check('GET', `/api/v1/things/${id}`, 418, 'application/json', {}) as { reason: string }).reason,
    ).to.match(/status 418 is not documented/);
    expect(
      (contract.check('GET', `/api/v1/things/${id}`, 200, 'text/plain', 'x') as { reason: string }).reason,
    ).to.match(/content-type 'text\/plain' not documented/);
  });

  it('checks error bodies: {detail}, the 422 issue list, the gateway {error}', () => {
    expect(
      contract.check('POST', '/api/v1/things', 422, 'application/json', {
        detail: [{ loc: ['body', 'name'], msg: 'Required', type: 'invalid_type' }],
      }).ok,
    ).to.equal(true);
    expect(
      contract.check('POST', '/api/v1/things', 422, 'application/json', { detail: [{ loc: 'body' }] }).ok,
    ).to.equal(false);
    expect(
      contract.check('POST', '/api/v1/things', 401, 'application/json', { error: 'missing authentication' }).ok,
    ).to.equal(true);
    expect(contract.check('POST', '/api/v1/things', 404, 'application/json', { message: 'nope' }).ok).to.equal(false);
  });

  it('prefers the literal segment over a parameter, ignores the query string, and says when no operation matches', () => {
    expect(contract.check('GET', '/api/v1/things/special?x=1', 200, 'application/json', { special: true }).ok).to.equal(
      true,
    );
    expect(contract.check('DELETE', '/api/v1/things', 204, '', '')).to.deep.include({ ok: false, undescribed: true });
  });

  it('does not parse a bodiless or streamed response', () => {
    expect(contract.check('POST', `/api/v1/things/${id}/file`, 204, '', '').ok).to.equal(true);
    expect(contract.check('GET', `/api/v1/things/${id}/events`, 200, 'text/event-stream', '').ok).to.equal(true);
  });
});
