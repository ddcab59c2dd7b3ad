import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { conversationsContext } from '../../../src/contexts/conversations/module';
import { projectContext } from '../../../queries/conversations/projects';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { type Session, signIn } from '../../support/auth';
import * as files from '../../support/files';

describe('projects over HTTP', () => {
  let t: TestPlatform;
  let alice: Session;
  let bob: Session;
  let carol: Session; // another tenant

  before(async () => {
    t = await startTestPlatform({ contexts: [conversationsContext] });
    alice = await signIn(t);
    bob = await signIn(t);
    carol = await signIn(t, { tenantId: randomUUID() });
  });
  after(() => t.close());

  const newProject = async (who: Session, body: Record<string, unknown> = {}) =>
    (await t.api.post('/projects', { name: 'Permian filings', ...body }, who.headers)).body;
  const knowledgeUrl = (id: string) => `${t.publicUrl}/api/v1/projects/${id}/knowledge`;
  const addKnowledge = (who: Session, id: string, text: string, filename = 'rules.txt') =>
    files.upload(knowledgeUrl(id), { bytes: Buffer.from(text), filename }, { headers: who.headers });

  it('creates a project with instructions and a thinking-mode default, and reads it back', async () => {
    const created = await t.api.post(
      '/projects',
      {
        name: 'Permian filings',
        description: 'Texas RRC',
        instructions: 'Answer with lease numbers.',
        defaults: { thinking_mode: 'adaptive' },
      },
      alice.headers,
    );
    expect(created.status).to.equal(201);
    expect(created.body).to.include({
      name: 'Permian filings',
      description: 'Texas RRC',
      instructions: 'Answer with lease numbers.',
      member_count: 0,
      knowledge_file_count: 0,
    });
    expect(created.body.defaults).to.deep.equal({ thinking_mode: 'adaptive' });
    expect(created.body.knowledge_files).to.deep.equal([]);
    const read = await t.api.get(`/projects/${created.body.id}`, alice.headers);
    expect(read.body).to.deep.equal(created.body);
  });

  it('validates the body with 422 (name required, known thinking modes, no unknown fields)', async () => {
    for (const body of [
      {},
      { name: '' },
      { name: 'x', defaults: { thinking_mode: 'maximal' } },
      { name: 'x', colour: 'red' },
    ]) {
      expect((await t.api.post('/projects', body, alice.headers)).status, JSON.stringify(body)).to.equal(422);
    }
  });

  it("lists only the caller's projects with member counts that leave out deleted conversations", async () => {
    const user = await signIn(t);
    const project = await newProject(user);
    const conversations: string[] = [];
    for (let i = 0; i < 3; i++)
      conversations.push(
        (await t.api.post('/conversations', { agent_id: 'a', project_id: project.id }, user.headers)).body.id,
      );
    await t.api.delete(`/conversations/${conversations[0]}`, user.headers);
    await newProject(alice);
    const { body } = await t.api.get('/projects', user.headers);
    expect(body.total).to.equal(1);
    expect(body.projects[0]).to.include({ id: project.id, member_count: 2 });
  });

  it('PATCH updates name, description, instructions and defaults', async () => {
    const project = await newProject(alice);
    const response = await t.api.patch(
      `/projects/${project.id}`,
      { name: 'Delaware', instructions: 'Cite the form.', defaults: { thinking_mode: 'disabled' }, description: null },
      alice.headers,
    );
    expect(response.status).to.equal(200);
    expect(response.body).to.include({ name: 'Delaware', instructions: 'Cite the form.', description: null });
    expect(response.body.defaults).to.deep.equal({ thinking_mode: 'disabled' });
    expect((await t.api.patch(`/projects/${project.id}`, {}, alice.headers)).status).to.equal(422);
  });

  it('holds five knowledge files and answers 409 for the sixth; a removal frees a place', async () => {
    const project = await newProject(alice);
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) {
      const response = await addKnowledge(
        alice,
        project.id,
        `Rule ${i}: report spills within 24 hours.`,
        `rule-${i}.txt`,
      );
      expect(response.status).to.equal(200);
      expect(response.body).to.include({ filename: `rule-${i}.txt`, content_type: 'text/plain', truncated: false });
      ids.push(response.body.id);
    }
    const sixth = await addKnowledge(alice, project.id, 'Rule 6');
    expect(sixth.status).to.equal(409);
    const read = await t.api.get(`/projects/${project.id}`, alice.headers);
    expect(read.body.knowledge_files.map((f: { id: string }) => f.id)).to.deep.equal(ids);
    expect(read.body.knowledge_files[0]).to.have.all.keys(
      'id',
      'filename',
      'content_type',
      'size_bytes',
      'token_estimate',
      'truncated',
      'created_at',
    );
    expect((await t.api.delete(`/projects/${project.id}/knowledge/${ids[2]}`, alice.headers)).body).to.deep.equal({
      id: ids[2],
      status: 'deleted',
    });
    expect((await addKnowledge(alice, project.id, 'Rule 6 again')).status).to.equal(200);
  });

  it('knowledge uploads share the attachment limits: 413, 415, 422', async () => {
    const project = await newProject(alice);
    const big = await files.upload(
      knowledgeUrl(project.id),
      { bytes: files.textOfSize(11 * 1024 * 1024), filename: 'big.txt' },
      { headers: alice.headers },
    );
    expect(big.status).to.equal(413);
    const png = await files.upload(
      knowledgeUrl(project.id),
      { bytes: files.grayscalePng(8, 8), filename: 'x.txt' },
      { headers: alice.headers },
    );
    expect(png.status).to.equal(415);
    const encrypted = await files.upload(
      knowledgeUrl(project.id),
      { bytes: files.encryptedPdf(), filename: 'locked.pdf' },
      { headers: alice.headers },
    );
    expect(encrypted.status).to.equal(422);
    expect((await t.api.get(`/projects/${project.id}`, alice.headers)).body.knowledge_files).to.deep.equal([]);
  });

  it('a turn can reload the project: instructions, defaults and knowledge text', async () => {
    const project = await newProject(alice, { instructions: 'Use barrels.', defaults: { thinking_mode: 'adaptive' } });
    await addKnowledge(alice, project.id, 'Spills over 5 bbl are reportable.');
    const context = await projectContext(t.deps.knex, alice.tenantId, project.id);
    expect(context).to.deep.include({ instructions: 'Use barrels.', defaults: { thinking_mode: 'adaptive' } });
    expect(context!.knowledge.map((k) => k.text)).to.deep.equal(['Spills over 5 bbl are reportable.']);
  });

  it('DELETE detaches member conversations (project_id becomes null) and removes knowledge files', async () => {
    const project = await newProject(alice);
    const member = (await t.api.post('/conversations', { agent_id: 'a', project_id: project.id }, alice.headers)).body
      .id;
    await addKnowledge(alice, project.id, 'knowledge to be removed');
    const response = await t.api.delete(`/projects/${project.id}`, alice.headers);
    expect(response.body).to.deep.equal({ id: project.id, status: 'deleted' });
    expect((await t.api.get(`/projects/${project.id}`, alice.headers)).status).to.equal(404);
    const list = await t.api.get('/conversations?limit=200', alice.headers);
    expect(list.body.conversations.find((c: { id: string }) => c.id === member).project_id).to.equal(null);
    expect(
      await t.deps.knex('conversations_project_files').where({ tenant_id: alice.tenantId, project_id: project.id }),
    ).to.deep.equal([]);
    // A deleted project takes no new members.
    expect(
      (await t.api.post('/conversations', { agent_id: 'a', project_id: project.id }, alice.headers)).status,
    ).to.equal(404);
  });

  it('every project route answers 404 to another user and another tenant, and changes nothing', async () => {
    const project = await newProject(alice, { name: 'Private' });
    const file = (await addKnowledge(alice, project.id, 'private knowledge')).body.id;
    for (const other of [bob, carol]) {
      expect((await t.api.get(`/projects/${project.id}`, other.headers)).status).to.equal(404);
      expect((await t.api.patch(`/projects/${project.id}`, { name: 'Mine now' }, other.headers)).status).to.equal(404);
      expect((await addKnowledge(other, project.id, 'intruder')).status).to.equal(404);
      expect((await t.api.delete(`/projects/${project.id}/knowledge/${file}`, other.headers)).status).to.equal(404);
      expect((await t.api.delete(`/projects/${project.id}`, other.headers)).status).to.equal(404);
      expect(
        (await t.api.get('/projects', other.headers)).body.projects.map((p: { id: string }) => p.id),
      ).not.to.include(project.id);
    }
    const read = await t.api.get(`/projects/${project.id}`, alice.headers);
    expect(read.body).to.include({ name: 'Private', knowledge_file_count: 1 });
  });

  it('projects need a user: 401 without identity on the public and the internal listener', async () => {
    expect((await t.api.get('/projects')).status).to.equal(401);
    expect((await t.internal.get('/projects')).status).to.equal(401);
    expect((await t.internal.get(`/projects?user_id=${alice.userId}&tenant_id=${alice.tenantId}`)).status).to.equal(
      200,
    );
  });

  it('the read model rebuilds from the events alone', async () => {
    const project = await newProject(alice, { name: 'Rebuilt' });
    const member = (
      await t.api.post(
        '/conversations',
        { agent_id: 'a', project_id: project.id, title: 'Before rebuild' },
        alice.headers,
      )
    ).body.id;
    const before = await t.api.get(`/projects/${project.id}`, alice.headers);
    const listBefore = (await t.api.get('/conversations?limit=200', alice.headers)).body;
    await t.deps.projections.rebuild('conversations');
    expect((await t.api.get(`/projects/${project.id}`, alice.headers)).body).to.deep.equal(before.body);
    expect((await t.api.get('/conversations?limit=200', alice.headers)).body).to.deep.equal(listBefore);
    expect(listBefore.conversations.map((c: { id: string }) => c.id)).to.include(member);
  });
});
