import { expect } from 'chai';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { signIn } from '../../support/auth';
import { toyContext } from '../../support/toy-context';

describe('HTTP skeleton (through a toy context)', () => {
  let t: TestPlatform;
  let auth: Record<string, string>;

  before(async () => {
    t = await startTestPlatform({ contexts: [toyContext()] });
    auth = (await signIn(t)).headers;
  });
  after(() => t.close());

  it('GET /health answers 200 with status ok once ready', async () => {
    const response = await fetch(`${t.publicUrl}/health`);
    expect(response.status).to.equal(200);
    expect(await response.json()).to.include({ status: 'ok' });
  });

  it('a GET right after a POST sees the write (read-your-writes)', async () => {
    const created = await t.api.post('/toy/notes', { title: 'Form PR for March' }, auth);
    expect(created.status).to.equal(201);
    const read = await t.api.get(`/toy/notes/${created.body.id}`, auth);
    expect(read.status).to.equal(200);
    expect(read.body).to.include({ title: 'Form PR for March', status: 'active' });
    const renamed = await t.api.patch(`/toy/notes/${created.body.id}`, { title: 'Form PR for April' }, auth);
    expect(renamed.body).to.include({ title: 'Form PR for April', renames: 1 });
  });

  it('an invalid body answers 422 in the spec shape and stores nothing', async () => {
    const before = await t.deps.knex('events').count<{ count: string }[]>('* as count');
    const response = await t.api.post('/toy/notes', { title: '' }, auth);
    expect(response.status).to.equal(422);
    expect(response.body.detail).to.be.an('array').with.length(1);
    expect(response.body.detail[0].loc).to.deep.equal(['body', 'title']);
    expect(response.body.detail[0]).to.have.keys('loc', 'msg', 'type');
    const after = await t.deps.knex('events').count<{ count: string }[]>('* as count');
    expect(after[0].count).to.equal(before[0].count);
  });

  it('a malformed JSON body answers 400, never 500', async () => {
    const response = await t.api.request('POST', '/toy/notes', {
      raw: '{"title": ',
      headers: { ...auth, 'content-type': 'application/json' },
    });
    expect(response.status).to.equal(400);
    expect(response.body).to.deep.equal({ detail: 'Malformed JSON body' });
  });

  it('domain errors map to their status: 404 for a missing note, 422 for a bad path id', async () => {
    const missing = await t.api.patch('/toy/notes/00000000-0000-4000-8000-000000000000', { title: 'x' }, auth);
    expect(missing.status).to.equal(404);
    expect(missing.body).to.deep.equal({ detail: 'Note not found' });
    const badId = await t.api.get('/toy/notes/not-a-uuid', auth);
    expect(badId.status).to.equal(422);
    expect(badId.body.detail[0].loc).to.deep.equal(['path', 'id']);
  });

  it('an unexpected failure answers 500 without a stack or message and carries a request id', async () => {
    const response = await t.api.get('/toy/boom', auth);
    expect(response.status).to.equal(500);
    expect(response.body).to.deep.equal({ detail: 'Internal server error' });
    expect(response.text).not.to.contain('hunter2');
    expect(response.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });

  it('keeps a well-formed caller request id and answers unknown routes with 404', async () => {
    const response = await t.api.get('/no/such/route', { ...auth, 'x-request-id': 'trace-abc.123' });
    expect(response.status).to.equal(404);
    expect(response.headers.get('x-request-id')).to.equal('trace-abc.123');
  });

  it('allows cross-origin requests from any origin, preflight included', async () => {
    const response = await fetch(`${t.publicUrl}/api/v1/toy/notes`, {
      method: 'OPTIONS',
      headers: { origin: 'https://ops.example.org', 'access-control-request-method': 'POST' },
    });
    expect(response.status).to.equal(204);
    expect(response.headers.get('access-control-allow-origin')).to.equal('https://ops.example.org');
  });

  it('the internal listener is bound to loopback only', () => {
    expect(new URL(t.internalUrl).hostname).to.equal('127.0.0.1');
  });
});
