import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { conversationsContext } from '../../../src/contexts/conversations/module';
import { appendMessage } from '../../../commands/conversations/append-message';
import { ValidationFailed } from '../../../src/platform/domain-errors';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { type Session, signIn } from '../../support/auth';

describe('conversations over HTTP', () => {
  let t: TestPlatform;
  let alice: Session;
  let bob: Session;
  let carol: Session; // another tenant

  before(async () => {
    t = await startTestPlatform({ contexts: [conversationsContext] });
    alice = await signIn(t);
    bob = await signIn(t, { roles: ['reviewer'] });
    carol = await signIn(t, { tenantId: randomUUID() });
  });
  after(() => t.close());

  const create = (who: Session, body: Record<string, unknown> = {}) =>
    t.api.post('/conversations', { agent_id: 'filing-agent', ...body }, who.headers);
  const say = (who: Session, conversationId: string, content: string, role: 'user' | 'assistant' = 'user') =>
    appendMessage(t.deps, { tenantId: who.tenantId, conversationId, callerId: who.userId }, { role, content });

  describe('create', () => {
    it('creates with a server-made id and answers {id, status: created}', async () => {
      const response = await create(alice);
      expect(response.status).to.equal(200);
      expect(response.body.status).to.equal('created');
      expect(response.body.id).to.match(/^[0-9a-f-]{36}$/);
      const list = await t.api.get('/conversations', alice.headers);
      const row = list.body.conversations.find((c: { id: string }) => c.id === response.body.id);
      expect(row).to.include({
        agent_id: 'filing-agent',
        user_id: alice.userId,
        status: 'created',
        title: 'New conversation',
        project_id: null,
        preview: null,
      });
    });

    it('is idempotent on a caller-supplied id for the same owner', async () => {
      const id = `harness:${randomUUID()}`;
      expect((await create(alice, { id, title: 'First' })).body).to.deep.equal({ id, status: 'created' });
      expect((await create(alice, { id, title: 'Second' })).body).to.deep.equal({ id, status: 'created' });
      const streamEvents = await t.deps.store.readStream(`conversations.conversation-${alice.tenantId}-${id}`);
      expect(streamEvents.map((e) => e.type)).to.deep.equal(['ConversationCreated']);
    });

    it('answers 409 for an id another user owns, and a same id in another tenant is another conversation', async () => {
      const id = `shared-${randomUUID()}`;
      await create(alice, { id });
      expect((await create(bob, { id })).status).to.equal(409);
      expect((await create(carol, { id })).status).to.equal(200);
    });

    it('validates agent_id, the id alphabet and the conversation type with 422', async () => {
      const missing = await t.api.post('/conversations', {}, alice.headers);
      expect(missing.status).to.equal(422);
      expect(missing.body.detail[0].loc).to.deep.equal(['body', 'agent_id']);
      expect((await create(alice, { id: 'has spaces' })).status).to.equal(422);
      expect((await create(alice, { id: 'x'.repeat(129) })).status).to.equal(422);
      expect((await create(alice, { conversation_type: 'chat' })).status).to.equal(422);
    });

    it("a project that is not the caller's answers 404", async () => {
      const project = await t.api.post('/projects', { name: 'Alice only' }, alice.headers);
      expect((await create(bob, { project_id: project.body.id })).status).to.equal(404);
      expect((await create(alice, { project_id: randomUUID() })).status).to.equal(404);
    });
  });

  describe('list', () => {
    it('puts the newest activity first and falls back to the first user message for the title', async () => {
      const user = await signIn(t);
      const first = (await create(user)).body.id;
      const second = (await create(user)).body.id;
      await say(user, first, 'Which wells need a March Form PR?');
      await say(
        user,
        first,
        'The assistant answer is long enough to show that only the first eighty characters of the last message become the preview.',
        'assistant',
      );
      const { body } = await t.api.get('/conversations', user.headers);
      expect(body.total).to.equal(2);
      expect(body.conversations.map((c: { id: string }) => c.id)).to.deep.equal([first, second]);
      const top = body.conversations[0];
      expect(top.title).to.equal('Which wells need a March Form PR?');
      expect(top.preview).to.equal('The assistant answer is long enough to show that only the first eighty character');
      expect(top.status).to.equal('active');
      expect(top.last_message_at).to.be.a('string');
    });

    it('hides soft-deleted, replay and test conversations', async () => {
      const user = await signIn(t);
      const kept = (await create(user, { conversation_type: 'filing_prep' })).body.id;
      await create(user, { conversation_type: 'replay' });
      await create(user, { conversation_type: 'test' });
      const gone = (await create(user)).body.id;
      await t.api.delete(`/conversations/${gone}`, user.headers);
      const { body } = await t.api.get('/conversations', user.headers);
      expect(body.conversations.map((c: { id: string }) => c.id)).to.deep.equal([kept]);
      expect(body.total).to.equal(1);
    });

    it('pages with limit (default 50, 1 to 200) and reports the full total', async () => {
      const user = await signIn(t);
      for (let i = 0; i < 52; i++) await create(user);
      const page = await t.api.get('/conversations', user.headers);
      expect(page.body.conversations).to.have.length(50);
      expect(page.body.total).to.equal(52);
      expect((await t.api.get('/conversations?limit=3', user.headers)).body.conversations).to.have.length(3);
      for (const bad of ['0', '201', 'ten']) {
        const response = await t.api.get(`/conversations?limit=${bad}`, user.headers);
        expect(response.status, bad).to.equal(422);
        expect(response.body.detail[0].loc).to.deep.equal(['query', 'limit']);
      }
    });

    it('filters by project_id', async () => {
      const user = await signIn(t);
      const project = (await t.api.post('/projects', { name: 'Delaware basin' }, user.headers)).body.id;
      const member = (await create(user, { project_id: project })).body.id;
      await create(user);
      const { body } = await t.api.get(`/conversations?project_id=${project}`, user.headers);
      expect(body.conversations.map((c: { id: string }) => c.id)).to.deep.equal([member]);
      expect(body.conversations[0].project_id).to.equal(project);
    });

    it("shows only the caller's conversations of the caller's tenant", async () => {
      const mine = (await create(alice)).body.id;
      for (const other of [bob, carol]) {
        const { body } = await t.api.get('/conversations?limit=200', other.headers);
        expect(body.conversations.map((c: { id: string }) => c.id)).not.to.include(mine);
      }
    });

    it('answers 401 without identity on both listeners', async () => {
      expect((await t.api.get('/conversations')).status).to.equal(401);
      expect((await t.internal.get('/conversations')).status).to.equal(401);
    });

    it('lets a header-less internal caller name itself with user_id, while stamped headers win', async () => {
      const mine = (await create(alice)).body.id;
      const fallback = await t.internal.get(
        `/conversations?user_id=${alice.userId}&tenant_id=${alice.tenantId}&limit=200`,
      );
      expect(fallback.status).to.equal(200);
      expect(fallback.body.conversations.map((c: { id: string }) => c.id)).to.include(mine);
      const headers = { 'x-user-id': bob.userId, 'x-tenant-id': bob.tenantId, 'x-permissions': 'conversations.use' };
      const stamped = await t.internal.get(
        `/conversations?user_id=${alice.userId}&tenant_id=${alice.tenantId}&limit=200`,
        headers,
      );
      expect(stamped.body.conversations.map((c: { id: string }) => c.id)).not.to.include(mine);
      // On the public listener a user_id in the query never overrides the token.
      const publicList = await t.api.get(`/conversations?user_id=${alice.userId}&limit=200`, bob.headers);
      expect(publicList.body.conversations.map((c: { id: string }) => c.id)).not.to.include(mine);
    });

    it('refuses a stamped identity without conversations.use with 403', async () => {
      const response = await t.internal.get('/conversations', {
        'x-user-id': alice.userId,
        'x-tenant-id': alice.tenantId,
        'x-permissions': 'dashboards.read',
      });
      expect(response.status).to.equal(403);
    });

    it('an internal tool may pre-register with a fallback owner in the body', async () => {
      const id = `pre-${randomUUID()}`;
      const response = await t.internal.post('/conversations', {
        agent_id: 'eval-runner',
        id,
        user_id: alice.userId,
        tenant_id: alice.tenantId,
        conversation_type: 'test',
      });
      expect(response.body).to.deep.equal({ id, status: 'created' });
      // Owned by alice, so the public route shows it to her (type test stays hidden from lists).
      expect((await t.api.get(`/conversations/${id}/messages`, alice.headers)).status).to.equal(200);
      expect((await t.api.get(`/conversations/${id}/messages`, bob.headers)).status).to.equal(404);
    });
  });

  describe('messages', () => {
    it('lists messages in sequence order with a total', async () => {
      const id = (await create(alice)).body.id;
      await say(alice, id, 'one');
      await say(alice, id, 'two', 'assistant');
      await appendMessage(
        t.deps,
        { tenantId: alice.tenantId, conversationId: id, callerId: alice.userId },
        { role: 'tool', content: '{"rows":3}', tool_name: 'query_wells', metadata: { tool_result: { rows: 3 } } },
      );
      const { status, body } = await t.api.get(`/conversations/${id}/messages`, alice.headers);
      expect(status).to.equal(200);
      expect(body.total).to.equal(3);
      expect(
        body.messages.map((m: { sequence_number: number; content: string }) => [m.sequence_number, m.content]),
      ).to.deep.equal([
        [1, 'one'],
        [2, 'two'],
        [3, '{"rows":3}'],
      ]);
      expect(body.messages[2]).to.include({
        role: 'tool',
        tool_name: 'query_wells',
        user_id: alice.userId,
        conversation_id: id,
      });
      expect(body.messages[2].metadata).to.deep.equal({ tool_result: { rows: 3 } });
    });

    it('a retried append with the same message id stores one message', async () => {
      const id = (await create(alice)).body.id;
      const target = { tenantId: alice.tenantId, conversationId: id, callerId: alice.userId };
      const a = await appendMessage(t.deps, target, { message_id: 'm-1', role: 'user', content: 'hello' });
      const b = await appendMessage(t.deps, target, { message_id: 'm-1', role: 'user', content: 'hello' });
      expect(b).to.deep.equal(a);
      expect((await t.api.get(`/conversations/${id}/messages`, alice.headers)).body.total).to.equal(1);
    });

    it('another user, another tenant and a missing id all get 404', async () => {
      const id = (await create(alice)).body.id;
      expect((await t.api.get(`/conversations/${id}/messages`, bob.headers)).status).to.equal(404);
      expect((await t.api.get(`/conversations/${id}/messages`, carol.headers)).status).to.equal(404);
      const missing = await t.api.get(`/conversations/${randomUUID()}/messages`, alice.headers);
      expect(missing.status).to.equal(404);
      expect(missing.body).to.deep.equal({ detail: 'Conversation not found' });
    });

    it('appending with a fourth attachment id fails', async () => {
      const id = (await create(alice)).body.id;
      const failure = await appendMessage(
        t.deps,
        { tenantId: alice.tenantId, conversationId: id, callerId: alice.userId },
        { role: 'user', content: 'x', attachment_ids: ['a', 'b', 'c', 'd'] },
      ).catch((e) => e);
      expect(failure).to.be.instanceOf(ValidationFailed);
      expect((await t.api.get(`/conversations/${id}/messages`, alice.headers)).body.total).to.equal(0);
    });
  });

  describe('update and delete', () => {
    it('PATCH sets title and status and answers with the conversation', async () => {
      const id = (await create(alice)).body.id;
      const response = await t.api.patch(
        `/conversations/${id}`,
        { title: 'March Form PR', status: 'awaiting_hitl' },
        alice.headers,
      );
      expect(response.status).to.equal(200);
      expect(response.body).to.include({ id, title: 'March Form PR', status: 'awaiting_hitl' });
    });

    it('PATCH refuses an empty body, an unknown status and the deleted status with 422', async () => {
      const id = (await create(alice)).body.id;
      for (const body of [{}, { status: 'archived' }, { status: 'deleted' }, { title: '' }]) {
        expect((await t.api.patch(`/conversations/${id}`, body, alice.headers)).status, JSON.stringify(body)).to.equal(
          422,
        );
      }
    });

    it('PATCH and DELETE of a conversation the caller does not own answer 404 and change nothing', async () => {
      const id = (await create(alice, { title: 'Keep me' })).body.id;
      for (const other of [bob, carol]) {
        expect((await t.api.patch(`/conversations/${id}`, { title: 'Stolen' }, other.headers)).status).to.equal(404);
        expect((await t.api.delete(`/conversations/${id}`, other.headers)).status).to.equal(404);
      }
      const { body } = await t.api.get('/conversations?limit=200', alice.headers);
      expect(body.conversations.find((c: { id: string }) => c.id === id)).to.include({
        title: 'Keep me',
        status: 'created',
      });
    });

    it('DELETE soft-deletes: {id, status: deleted}, hidden afterwards, repeatable by the owner', async () => {
      const id = (await create(alice)).body.id;
      const response = await t.api.delete(`/conversations/${id}`, alice.headers);
      expect(response.status).to.equal(200);
      expect(response.body).to.deep.equal({ id, status: 'deleted' });
      expect((await t.api.get(`/conversations/${id}/messages`, alice.headers)).status).to.equal(404);
      expect((await t.api.patch(`/conversations/${id}`, { title: 'x' }, alice.headers)).status).to.equal(404);
      expect((await t.api.delete(`/conversations/${id}`, alice.headers)).status).to.equal(200);
      const row = await t.deps.knex('conversations_conversations').where({ tenant_id: alice.tenantId, id }).first();
      expect(row.status).to.equal('deleted');
      expect(row.deleted_at).to.be.instanceOf(Date);
    });

    it('DELETE of a missing conversation answers 404', async () => {
      expect((await t.api.delete(`/conversations/${randomUUID()}`, alice.headers)).status).to.equal(404);
    });
  });
});
