import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { signIn, type Session } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { apiSpec } from '../../support/specs';

describe('commands over HTTP: Idempotency-Key and API specs', () => {
  let t: TestPlatform;
  let alice: Session;

  before(async () => {
    t = await startTestPlatform();
    alice = await signIn(t, { roles: ['operator'] });
  });
  after(() => t.close());

  const count = async (type: string) =>
    Number((await t.deps.knex('events').where({ type }).count<{ count: string }[]>('* as count'))[0].count);

  it('a retried create with the same key appends nothing new and answers as the first did', async () => {
    const key = randomUUID();
    const headers = { ...alice.headers, 'idempotency-key': key };
    const before = await count('VertexCreated');
    const first = await t.api.post(
      '/graph/entities',
      { label: 'Well', properties: { api_number: '42-501-00042' } },
      headers,
    );
    const retry = await t.api.post(
      '/graph/entities',
      { label: 'Well', properties: { api_number: '42-501-00042' } },
      headers,
    );
    expect(first.status).to.equal(201);
    expect(retry.status).to.equal(201);
    expect(retry.body).to.deep.equal(first.body);
    expect(await count('VertexCreated')).to.equal(before + 1);
  });

  it('another key is another request', async () => {
    const a = await t.api.post(
      '/conversations',
      { agent_id: 'filing-agent' },
      { ...alice.headers, 'idempotency-key': randomUUID() },
    );
    const b = await t.api.post(
      '/conversations',
      { agent_id: 'filing-agent' },
      { ...alice.headers, 'idempotency-key': randomUUID() },
    );
    expect(a.body.id).not.to.equal(b.body.id);
  });

  it('concurrent retries of one create store it once', async () => {
    const headers = { ...alice.headers, 'idempotency-key': randomUUID() };
    const before = await count('ProjectCreated');
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => t.api.post('/projects', { name: 'Permian March filing' }, headers)),
    );
    expect(
      responses.map((r) => r.status),
      JSON.stringify(responses.map((r) => r.body)),
    ).to.deep.equal([201, 201, 201, 201, 201]);
    expect(new Set(responses.map((r) => r.body.id)).size).to.equal(1);
    expect(responses.every((r) => r.status < 300)).to.equal(true);
    expect(await count('ProjectCreated')).to.equal(before + 1);
  });

  it('a malformed key answers 400 and changes nothing', async () => {
    const response = await t.api.post(
      '/conversations',
      { agent_id: 'x' },
      { ...alice.headers, 'idempotency-key': 'has spaces in it' },
    );
    expect(response.status).to.equal(400);
    expect(response.body.detail).to.match(/Idempotency-Key/);
  });

  describe('API specs: a request and the events it appends', () => {
    it('POST /conversations appends ConversationCreated, correlated to the request', async () => {
      await apiSpec(t.api, t.deps.knex)
        .when('POST', '/conversations', { agent_id: 'filing-agent', title: 'March Form PR' }, alice.headers)
        .thenAppended(['ConversationCreated'], 200);
    });

    it('an invalid body appends nothing', async () => {
      await apiSpec(t.api, t.deps.knex)
        .when('POST', '/conversations', { agent_id: '' }, alice.headers)
        .thenNothingAppended(422);
    });

    it('creating a well appends its entity_id reservation and the vertex in one request', async () => {
      await apiSpec(t.api, t.deps.knex)
        .when(
          'POST',
          '/graph/entities',
          { label: 'Well', properties: { entity_id: `W-${randomUUID()}` } },
          alice.headers,
        )
        .thenAppended(['ReservationClaimed', 'VertexCreated'], 201);
    });
  });
});
