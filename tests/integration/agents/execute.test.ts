import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import sinon from 'sinon';
import { EventStoreUnavailableError } from '../../../src/platform/eventstore/types';
import { edgesOf, listVertices } from '../../../queries/graph/entities';
import { approvalAggregate } from '../../../streams/approvals/approval';
import { readTurnEvent, turnAggregate } from '../../../streams/agents/turn';
import { namespaceOf } from '../../../streams/graph/names';
import { conversationStream } from '../../../streams/conversations/conversation';
import { type Session, signIn } from '../../support/auth';
import * as files from '../../support/files';
import { type TestPlatform } from '../../support/platform';
import { type ChatServer } from './chat-completions-server';
import { startSeededPlatform } from './seeded-platform';

describe('agent turns over POST /execute', function () {
  this.timeout(30_000);
  let t: TestPlatform;
  let chat: ChatServer;
  let alice: Session;
  let bob: Session;
  let wellApi: string;

  before(async function () {
    // Start-up and the graph seed, generous for a loaded CI machine.
    this.timeout(120_000);
    ({ t, chat, alice, wellApi } = await startSeededPlatform({ wells: 12, seed: 7 }));
    bob = await signIn(t);
  });
  after(async () => {
    await t.close();
    await chat.close();
  });
  beforeEach(() => {
    chat.requests.length = 0;
    chat.script.length = 0;
    chat.fallback = () => ({ text: 'ok' });
  });

  const newConversation = async (who: Session, body: Record<string, unknown> = {}) =>
    (await t.api.post('/conversations', { agent_id: 'compliance', ...body }, who.headers)).body.id as string;
  const execute = (who: Session, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    t.api.post('/execute', body, { ...who.headers, ...headers });
  const turnEvents = async (tenantId: string, executionId: string) =>
    (await t.deps.store.readStream(turnAggregate.stream(tenantId, executionId))).map(readTurnEvent);
  const nodesOf = async (tenantId: string, executionId: string) =>
    (await turnEvents(tenantId, executionId)).flatMap((e) => (e.type === 'NodeCompleted' ? [e.data.node] : []));
  const setSettings = async (admin: Session, body: Record<string, unknown>) =>
    expect((await t.api.put('/settings', body, admin.headers)).status).to.equal(200);

  it("a question about a well calls the compliance tool and answers from it, with the spec's nodes in order and every result field", async () => {
    expect((await t.api.post('/compliance/assess', {}, alice.headers)).status).to.equal(200);
    const conversationId = await newConversation(alice);
    const response = await execute(alice, {
      conversation_id: conversationId,
      message: `What is the status of well ${wellApi}?`,
    });
    expect(response.status).to.equal(200);
    const result = response.body;
    expect(result).to.have.keys(
      'execution_id',
      'conversation_id',
      'status',
      'messages',
      'tokens_used',
      'cost_usd',
      'skills_injected',
      'thinking_mode',
      'referenced_entities',
      'hitl_approval_id',
      'hitl_checkpoint_type',
      'error',
    );
    expect(result).to.include({
      conversation_id: conversationId,
      status: 'completed',
      cost_usd: 0,
      thinking_mode: 'adaptive',
      hitl_approval_id: null,
      hitl_checkpoint_type: null,
      error: null,
    });
    // The well is found first (whatever its entity id), then the compliance tool is given its entity id.
    expect(result.messages.map((m: any) => m.role)).to.deep.equal([
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(result.messages[0].tool_calls[0]).to.deep.include({
      name: 'find_entities',
      args: { reference: wellApi, entity_type: 'Well' },
    });
    expect(result.messages[2].tool_calls).to.have.length(1);
    expect(result.messages[2].tool_calls[0]).to.deep.include({
      name: 'compliance_status',
      args: { entity_id: wellApi },
    });
    expect(result.messages[3].content).to.contain(wellApi);
    // The answer is the tool's sentences (the rules by name, the reasons), not a dump of fields.
    expect(result.messages[4].content.split('\n')[0]).to.match(new RegExp(`^Well .+ \\(${wellApi}\\) (is|has)`));
    expect(result.messages[4].content).to.not.match(/\w+_\w+: /);
    expect(result.referenced_entities).to.deep.equal([
      { entity_id: wellApi, name: result.referenced_entities[0].name, entity_type: 'Well' },
    ]);
    expect(result.tokens_used).to.be.a('number').greaterThan(0);

    expect(await nodesOf(alice.tenantId, result.execution_id)).to.deep.equal([
      'system_prompt_node',
      'memory_node',
      'resume_guard',
      'initial_llm_call',
      'tool_node',
      'initial_llm_call',
      'tool_node',
      'initial_llm_call',
      'approval_node',
      'output_format',
    ]);
    const events = await turnEvents(alice.tenantId, result.execution_id);
    expect(events[0].type).to.equal('TurnStarted');
    expect(events.map((e) => e.type).filter((type) => type.startsWith('Tool'))).to.deep.equal([
      'ToolCalled',
      'ToolReturned',
      'ToolCalled',
      'ToolReturned',
    ]);
    expect(events.slice(-2).map((e) => e.type)).to.deep.equal(['UsageRecorded', 'TurnCompleted']);
    // tokens_used is the sum of what the model calls reported.
    const perCall = events.flatMap((e) =>
      e.type === 'NodeCompleted' && e.data.node === 'initial_llm_call' ? [e.data.tokensUsed!] : [],
    );
    expect(result.tokens_used).to.equal(perCall.reduce((a, b) => a + b, 0));

    const { body } = await t.api.get(`/conversations/${conversationId}/messages`, alice.headers);
    expect(body.messages.map((m: any) => m.role)).to.deep.equal(['user', 'tool', 'tool', 'assistant']);
    for (const m of body.messages) expect(m.metadata.execution_id).to.equal(result.execution_id);
    const tool = body.messages[2];
    expect(tool.tool_name).to.equal('compliance_status');
    expect(tool.metadata.tool_result).to.deep.include({
      kind: 'table',
      columns: ['rule', 'status', 'reason', 'due_date'],
    });
    // People read the headers, with units where there are any.
    expect(tool.metadata.tool_result.headers).to.deep.equal({
      rule: 'Rule',
      status: 'Status',
      reason: 'Reason',
      due_date: 'Due date',
    });
  });

  it("POST /agents/{agent_id}/execute is the same turn; an operator's wells are listed as a table with headers", async () => {
    const namespace = namespaceOf(alice.tenantId);
    const [well] = await listVertices(t.deps.knex, namespace, 'Well', 1);
    const [{ neighbor: operator }] = await edgesOf(t.deps.knex, namespace, well.id, {
      edgeLabel: 'OPERATED_BY',
      direction: 'out',
    });
    const conversationId = await newConversation(alice);
    const response = await t.api.post(
      '/agents/whatever/execute',
      { conversation_id: conversationId, message: `Which wells does operator ${operator.entity_id} run?` },
      alice.headers,
    );
    expect(response.status).to.equal(200);
    expect(response.body.messages.flatMap((m: any) => m.tool_calls.map((c: any) => c.name))).to.deep.equal([
      'find_entities',
      'compliance_list',
    ]);
    const { body } = await t.api.get(`/conversations/${conversationId}/messages`, alice.headers);
    const table = body.messages.find((m: any) => m.tool_name === 'compliance_list').metadata.tool_result;
    expect(table).to.include({ kind: 'table' });
    expect(table.headers).to.include({ entity_id: 'Entity id', entity_name: 'Name', due_date: 'Due date' });
    expect(table.rows.length).to.equal(Math.min(10, table.total_rows));
  });

  it("a skill's trigger word loads it mid-turn: skills_injected on the result, skills_loaded on that tool_node", async () => {
    const conversationId = await newConversation(alice);
    const { body: result } = await execute(alice, {
      conversation_id: conversationId,
      message: 'How much flaring is allowed without an exception?',
    });
    expect(result.status).to.equal('completed');
    expect(result.skills_injected).to.deep.equal(['flaring_authorization']);
    expect(result.messages.at(-1).content).to.contain(
      'Following the Flaring authorizations (Statewide Rule 32) skill.',
    );
    const events = await turnEvents(alice.tenantId, result.execution_id);
    const toolNode = events.find((e) => e.type === 'NodeCompleted' && e.data.node === 'tool_node');
    expect(toolNode!.data).to.deep.include({ skillsLoaded: ['flaring_authorization'] });
    expect(events.some((e) => e.type === 'SkillLoaded' && e.data.skillKey === 'flaring_authorization')).to.equal(true);
  });

  it('answers 422 for a malformed agent_type or a missing field; an unknown well-formed type degrades to the core tools', async () => {
    const conversationId = await newConversation(alice);
    for (const body of [
      { conversation_id: conversationId, message: 'hi', agent_type: 'Not A Slug!' },
      { conversation_id: conversationId },
      { message: 'hi' },
    ]) {
      expect((await execute(alice, body)).status, JSON.stringify(body)).to.equal(422);
    }
    const { body: result } = await execute(alice, {
      conversation_id: conversationId,
      agent_type: 'mystery_agent',
      message: `What is the impact if well ${wellApi} goes down?`,
    });
    expect(result.status).to.equal('completed');
    // impact_analysis is not a core tool: the well is found, then the graph context about it runs instead.
    expect(result.messages.flatMap((m: any) => m.tool_calls.map((c: any) => c.name))).to.deep.equal([
      'find_entities',
      'graph_context',
    ]);
    const events = await turnEvents(alice.tenantId, result.execution_id);
    const system = events.find((e) => e.type === 'NodeCompleted' && e.data.node === 'system_prompt_node');
    expect((system!.data as any).detail).to.deep.include({ agent_type: 'mystery_agent', agent_type_known: false });
    const general = (
      await execute(alice, {
        conversation_id: conversationId,
        message: `What is the impact if well ${wellApi} goes down?`,
      })
    ).body;
    expect(general.messages.flatMap((m: any) => m.tool_calls.map((c: any) => c.name))).to.deep.equal([
      'find_entities',
      'impact_analysis',
    ]);
  });

  it("an unknown conversation or another user's answers 404 and appends nothing", async () => {
    const conversationId = await newConversation(alice);
    const before = await t.deps.store.readStream(conversationStream(alice.tenantId, conversationId));
    expect((await execute(bob, { conversation_id: conversationId, message: 'hello' })).status).to.equal(404);
    expect((await execute(alice, { conversation_id: 'no-such-conversation', message: 'hello' })).status).to.equal(404);
    expect(await t.deps.store.readStream(conversationStream(alice.tenantId, conversationId))).to.have.length(
      before.length,
    );
  });

  it("asking to submit pauses the turn awaiting_hitl with an approval; the next turn's resume_guard reconciles the decision by approval id", async () => {
    const conversationId = await newConversation(alice);
    const { body: paused } = await execute(alice, {
      conversation_id: conversationId,
      message: `Please submit the W-10 for well ${wellApi}.`,
      agent_type: 'filing_prep',
    });
    expect(paused).to.include({ status: 'awaiting_hitl', hitl_checkpoint_type: 'filing_submission' });
    expect(paused.hitl_approval_id).to.be.a('string');
    const approvalStream = approvalAggregate.stream(alice.tenantId, paused.hitl_approval_id);
    const [requested] = await t.deps.store.readStream(approvalStream);
    expect(requested.type).to.equal('ApprovalRequested');
    expect(requested.data).to.deep.include({
      conversationId,
      agentType: 'filing_prep',
      checkpointType: 'filing_submission',
    });
    // The shared filing payload: W-10 has no checklist template, so the reviewer is told nothing was validated.
    const payload = (requested.data as any).payload;
    expect(payload).to.deep.include({
      kind: 'filing',
      form: 'W-10',
      form_label: 'Form W-10',
      figures: [],
      checklist_id: null,
      conversation_id: conversationId,
      execution_id: paused.execution_id,
    });
    expect(payload.entity).to.deep.include({ id: wellApi, type: 'Well', api_number: wellApi });
    expect(payload.validations).to.deep.equal([
      {
        key: 'checklist_template',
        label: 'Checklist template',
        status: 'unknown',
        message: 'no checklist template for Form W-10: nothing was validated before review',
      },
    ]);
    expect((await turnEvents(alice.tenantId, paused.execution_id)).at(-1)!.type).to.equal('TurnPaused');

    // Still pending: the guard says so and the model does not ask again.
    const { body: waiting } = await execute(alice, { conversation_id: conversationId, message: 'Any news?' });
    const pendingGuard = (await turnEvents(alice.tenantId, waiting.execution_id)).find(
      (e) => e.type === 'NodeCompleted' && e.data.node === 'resume_guard',
    );
    expect(pendingGuard!.data).to.deep.include({ status: 'pending' });
    expect(waiting.messages.at(-1).content).to.contain('still waiting for a reviewer');

    const reviewer = randomUUID();
    const { body: again } = await execute(alice, {
      conversation_id: conversationId,
      message: `Please submit the W-10 for well ${wellApi} again.`,
      agent_type: 'filing_prep',
    });
    // Asked again while it is pending: the turn pauses on the same approval, no second one opens.
    expect(again).to.include({ status: 'awaiting_hitl', hitl_approval_id: paused.hitl_approval_id });
    // A reviewer decides (the approvals context's decide appends this event).
    await t.deps.store.append(approvalAggregate.stream(alice.tenantId, again.hitl_approval_id), [
      {
        type: 'ApprovalDecided',
        data: {
          approvalId: again.hitl_approval_id,
          decision: 'modified',
          reviewerId: reviewer,
          comments: 'use the corrected test date',
          modifications: { test_date: '2026-01-12' },
          decidedAt: new Date().toISOString(),
        },
        metadata: {
          tenantId: alice.tenantId,
          actorId: reviewer,
          correlationId: randomUUID(),
          causationId: randomUUID(),
        },
      },
    ]);
    const { body: resumed } = await execute(alice, {
      conversation_id: conversationId,
      message: 'Go ahead and submit it.',
      agent_type: 'filing_prep',
    });
    expect(resumed.status).to.equal('completed');
    expect(resumed.hitl_approval_id).to.equal(null);
    const guard = (await turnEvents(alice.tenantId, resumed.execution_id)).find(
      (e) => e.type === 'NodeCompleted' && e.data.node === 'resume_guard',
    );
    expect((guard!.data as any).status).to.equal('resumed');
    expect((guard!.data as any).detail).to.deep.include({
      approval_id: again.hitl_approval_id,
      decision: 'modified',
      reviewer_id: reviewer,
      comments: 'use the corrected test date',
      modifications: { test_date: '2026-01-12' },
    });
    expect(resumed.messages.at(-1).content).to.contain(`The reviewer modified approval ${again.hitl_approval_id}`);
  });

  it("a per-turn token budget stops the tool loop with status error, keeping the turn's events", async () => {
    const conversationId = await newConversation(alice);
    const { body } = await execute(alice, {
      conversation_id: conversationId,
      message: `Status of well ${wellApi}?`,
      max_tokens: 40,
    });
    expect(body.status).to.equal('error');
    expect(body.error).to.match(/^token budget exceeded: \d+ of 40 tokens$/);
    const events = await turnEvents(alice.tenantId, body.execution_id);
    expect(events.at(-1)!.type).to.equal('TurnFailed');
    expect(events.filter((e) => e.type === 'NodeCompleted').length).to.be.greaterThan(3);
  });

  it('the tenant daily token cap is checked before the turn: 429 once the counters reach it; a user override caps that user alone', async () => {
    const tenantId = randomUUID();
    const admin = await signIn(t, { tenantId, roles: ['admin'] });
    const user = await signIn(t, { tenantId });
    const other = await signIn(t, { tenantId });
    await t.api.put(`/settings/user-overrides/${user.userId}`, { max_tokens_per_day: 1 }, admin.headers);
    const first = await execute(user, { conversation_id: await newConversation(user), message: 'hello' });
    expect(first.status).to.equal(200);
    const capped = await execute(user, { conversation_id: await newConversation(user), message: 'hello again' });
    expect(capped.status).to.equal(429);
    expect(capped.text).to.contain('daily token cap');
    expect((await execute(other, { conversation_id: await newConversation(other), message: 'hello' })).status).to.equal(
      200,
    );
    await setSettings(admin, { max_tokens_per_day: first.body.tokens_used });
    expect((await execute(other, { conversation_id: await newConversation(other), message: 'hello' })).status).to.equal(
      429,
    );
  });

  it("thinking_mode is clamped to the tenant ceiling, never rejected; a project's default joins the chain", async () => {
    const tenantId = randomUUID();
    const admin = await signIn(t, { tenantId, roles: ['admin'] });
    const conversationId = await newConversation(admin);
    expect(
      (await execute(admin, { conversation_id: conversationId, message: 'hi', thinking_mode: 'maximal' })).body
        .thinking_mode,
    ).to.equal('adaptive');
    await setSettings(admin, { max_thinking_mode: 'disabled' });
    const clamped = await execute(admin, { conversation_id: conversationId, message: 'hi', thinking_mode: 'adaptive' });
    expect(clamped.status).to.equal(200);
    expect(clamped.body.thinking_mode).to.equal('disabled');
    await setSettings(admin, { max_thinking_mode: null });
    const project = (
      await t.api.post('/projects', { name: 'Quiet', defaults: { thinking_mode: 'disabled' } }, admin.headers)
    ).body;
    const inProject = await newConversation(admin, { project_id: project.id });
    expect((await execute(admin, { conversation_id: inProject, message: 'hi' })).body.thinking_mode).to.equal(
      'disabled',
    );
    expect(
      (await execute(admin, { conversation_id: inProject, message: 'hi', thinking_mode: 'adaptive' })).body
        .thinking_mode,
    ).to.equal('adaptive');
  });

  it('project instructions and knowledge are injected once per conversation as system messages', async () => {
    const project = (
      await t.api.post('/projects', { name: 'Permian', instructions: 'Always cite the lease number.' }, alice.headers)
    ).body;
    await files.upload(
      `${t.publicUrl}/api/v1/projects/${project.id}/knowledge`,
      { bytes: Buffer.from('District 08 wells report monthly.'), filename: 'notes.txt' },
      { headers: alice.headers },
    );
    const conversationId = await newConversation(alice, { project_id: project.id });
    await execute(alice, { conversation_id: conversationId, message: 'first' });
    await execute(alice, { conversation_id: conversationId, message: 'second' });
    const { body } = await t.api.get(`/conversations/${conversationId}/messages`, alice.headers);
    const system = body.messages.filter((m: any) => m.role === 'system');
    expect(system).to.have.length(1);
    expect(system[0].content)
      .to.contain('Always cite the lease number.')
      .and.to.contain('District 08 wells report monthly.');
    expect(system[0].metadata.project_context).to.equal(project.id);
  });

  it('attachments reach the model as extracted text while the stored user message keeps only the typed text; a foreign id is 422', async () => {
    const conversationId = await newConversation(alice);
    const uploaded = await files.upload(
      `${t.publicUrl}/api/v1/conversations/${conversationId}/attachments`,
      { bytes: Buffer.from('The December report shows 1,200 bbl produced.'), filename: 'december.txt' },
      { headers: alice.headers },
    );
    const attachmentId = uploaded.body.id;
    const { body } = await execute(alice, {
      conversation_id: conversationId,
      message: 'Summarize the attachment',
      attachment_ids: [attachmentId],
    });
    expect(body.status).to.equal('completed');
    expect(body.messages.at(-1).content).to.contain('I read 1 attached file.');
    const { body: stored } = await t.api.get(`/conversations/${conversationId}/messages`, alice.headers);
    expect(stored.messages[0].content).to.equal('Summarize the attachment');
    expect(stored.messages[0].metadata.attachments).to.deep.equal([{ id: attachmentId, filename: 'december.txt' }]);

    const elsewhere = await newConversation(alice);
    const foreign = await execute(alice, {
      conversation_id: elsewhere,
      message: 'Use it',
      attachment_ids: [attachmentId],
    });
    expect(foreign.status).to.equal(422);
    expect((await t.api.get(`/conversations/${elsewhere}/messages`, alice.headers)).body.total).to.equal(0);
    expect(
      (await execute(alice, { conversation_id: elsewhere, message: 'x', attachment_ids: ['a', 'b', 'c', 'd'] })).status,
    ).to.equal(422);
  });

  it('runs over an OpenAI-compatible endpoint end to end: streamed tool call, streamed answer, reported usage priced by us', async () => {
    const conversationId = await newConversation(alice);
    chat.script.push(
      {
        toolCalls: [{ id: 'call_1', name: 'graph_context', arguments: { entity_type_key: 'well', id: wellApi } }],
        usage: { prompt_tokens: 500, completion_tokens: 20 },
      },
      { text: `Well ${wellApi} is producing.`, usage: { prompt_tokens: 900, completion_tokens: 12 } },
    );
    const { body } = await execute(alice, {
      conversation_id: conversationId,
      message: 'How is my well?',
      model: 'local/llama-3.1-8b-instruct',
    });
    expect(body.status).to.equal('completed');
    expect(body.tokens_used).to.equal(1432);
    expect(body.cost_usd).to.equal(0);
    expect(body.messages.at(-1).content).to.equal(`Well ${wellApi} is producing.`);
    expect(chat.requests).to.have.length(2);
    expect(chat.requests[0]).to.deep.include({ model: 'llama-3.1-8b-instruct', stream: true });
    expect(chat.requests[0].tools.map((x: any) => x.function.name)).to.include.members([
      'graph_context',
      'load_skill',
      'request_approval',
    ]);
    const toolMessage = chat.requests[1].messages.find((m: any) => m.role === 'tool');
    expect(toolMessage).to.include({ tool_call_id: 'call_1' });
    expect(toolMessage.content).to.contain(wellApi);
  });

  it("the system prompt comes from the prompts context's agents:<type> template when one is active, else the built-in one", async () => {
    const tenantId = randomUUID();
    const author = await signIn(t, { tenantId, roles: ['admin'] });
    const approver = await signIn(t, { tenantId, roles: ['admin'] });
    const namespace = await t.api.post('/prompts/namespaces', { name: 'agents' }, author.headers);
    expect(namespace.status, namespace.text).to.equal(201);
    const template = await t.api.post(
      '/prompts/templates',
      { namespace_id: namespace.body.id, slug: 'field_event' },
      author.headers,
    );
    expect(template.status, template.text).to.equal(201);
    const version = await t.api.post(
      `/prompts/templates/${template.body.id}/versions`,
      { body: 'You assist field staff ({{ agent_type }}). Be brief.' },
      author.headers,
    );
    expect(version.status, version.text).to.equal(201);
    expect(
      (await t.api.post(`/prompts/versions/${version.body.id}/promote-active`, {}, approver.headers)).status,
    ).to.equal(200);

    chat.fallback = () => ({ text: 'noted' });
    const { body } = await execute(author, {
      conversation_id: await newConversation(author),
      message: 'hi',
      agent_type: 'field_event',
      model: 'local/llama-3.1-8b-instruct',
    });
    expect(body.status).to.equal('completed');
    expect(chat.requests[0].messages[0].role).to.equal('system');
    expect(chat.requests[0].messages[0].content).to.match(/^You assist field staff \(field_event\)\. Be brief\./);
    const node = (await turnEvents(tenantId, body.execution_id)).find(
      (e) => e.type === 'NodeCompleted' && e.data.node === 'system_prompt_node',
    );
    expect((node!.data as any).detail).to.deep.include({
      prompt_source: 'prompts',
      prompt_version_id: version.body.id,
      prompt_status: 'active',
    });

    const general = (
      await execute(author, { conversation_id: await newConversation(author), message: 'hi', agent_type: 'general' })
    ).body;
    const builtin = (await turnEvents(tenantId, general.execution_id)).find(
      (e) => e.type === 'NodeCompleted' && e.data.node === 'system_prompt_node',
    );
    expect((builtin!.data as any).detail).to.deep.include({ prompt_source: 'builtin' });
  });

  it('usage a provider does not report stays unknown (null), never 0', async () => {
    chat.script.push({ text: 'No usage from me.', usage: null });
    const { body } = await execute(alice, {
      conversation_id: await newConversation(alice),
      message: 'hi',
      model: 'local/llama-3.1-8b-instruct',
    });
    expect(body).to.include({ status: 'completed', tokens_used: null, cost_usd: null });
    const events = await turnEvents(alice.tenantId, body.execution_id);
    expect(events.find((e) => e.type === 'UsageRecorded')!.data).to.deep.include({
      tokensUsed: null,
      costUsd: null,
      inputTokens: null,
    });
  });

  it("a provider error retries once on the tenant's fallback model; with no fallback the turn ends in error with a readable message", async () => {
    const tenantId = randomUUID();
    const admin = await signIn(t, { tenantId, roles: ['admin'] });
    chat.script.push({ status: 500, error: 'GPU on fire' });
    const failed = (
      await execute(admin, {
        conversation_id: await newConversation(admin),
        message: 'hi',
        model: 'local/llama-3.1-8b-instruct',
      })
    ).body;
    expect(failed.status).to.equal('error');
    expect(failed.error).to.contain('GPU on fire');
    expect((await turnEvents(tenantId, failed.execution_id)).map((e) => e.type)).to.include.members([
      'TurnStarted',
      'NodeCompleted',
      'TurnFailed',
    ]);

    await setSettings(admin, { fallback_model: 'builtin/deterministic-fast' });
    chat.script.push({ status: 500, error: 'GPU on fire' });
    const rescued = (
      await execute(admin, {
        conversation_id: await newConversation(admin),
        message: 'hi',
        model: 'local/llama-3.1-8b-instruct',
      })
    ).body;
    expect(rescued.status).to.equal('completed');
    const call = (await turnEvents(tenantId, rescued.execution_id)).find(
      (e) => e.type === 'NodeCompleted' && e.data.node === 'initial_llm_call',
    );
    expect((call!.data as any).detail).to.deep.include({ model: 'builtin/deterministic-fast', fallback_used: true });
  });

  it("a retried POST with the same Idempotency-Key answers the first turn's result and runs nothing again", async () => {
    const conversationId = await newConversation(alice);
    const key = randomUUID();
    const first = await execute(
      alice,
      { conversation_id: conversationId, message: `Well ${wellApi}?` },
      { 'idempotency-key': key },
    );
    const second = await execute(
      alice,
      { conversation_id: conversationId, message: `Well ${wellApi}?` },
      { 'idempotency-key': key },
    );
    expect(second.status).to.equal(200);
    expect(second.body).to.deep.equal(first.body);
    expect((await t.api.get(`/conversations/${conversationId}/messages`, alice.headers)).body.total).to.equal(4);
  });

  it("skills are edited with skills.author: a new skill's trigger loads it; retiring hides it", async () => {
    const tenantId = randomUUID();
    const author = await signIn(t, { tenantId, roles: ['power_user'] });
    const member = await signIn(t, { tenantId });
    const skill = {
      name: 'Spill reporting',
      description: 'Rule 20 notices',
      trigger_words: ['spill'],
      instructions: 'Report spills over 5 bbl to the district office within 24 hours.',
    };
    expect((await t.api.put('/skills/spill_reporting', skill, member.headers)).status).to.equal(403);
    const created = await t.api.put('/skills/spill_reporting', skill, author.headers);
    expect(created.status).to.equal(200);
    expect(created.body).to.deep.include({
      key: 'spill_reporting',
      trigger_words: ['spill'],
      version: 1,
      built_in: false,
    });
    expect((await t.api.get('/skills', member.headers)).body.skills.map((s: any) => s.key)).to.include.members([
      'spill_reporting',
      'flaring_authorization',
    ]);
    const { body } = await execute(member, {
      conversation_id: await newConversation(member),
      message: 'We had a spill at the tank battery',
    });
    expect(body.skills_injected).to.deep.equal(['spill_reporting']);
    expect((await t.api.delete('/skills/spill_reporting', author.headers)).status).to.equal(200);
    expect((await t.api.get('/skills/spill_reporting', member.headers)).status).to.equal(404);
    expect((await t.api.put('/skills/Bad Key', skill, author.headers)).status).to.be.oneOf([404, 422]);
  });

  it('a turn whose reply cannot be recorded answers 503, never a success the conversation does not hold', async () => {
    const conversationId = await newConversation(alice);
    // The database goes away just as the turn ends: every write carrying the reply fails.
    const replyIn = (events: { type: string; data?: unknown }[]) =>
      events.some((e) => e.type === 'MessageAppended' && (e.data as { role?: string })?.role === 'assistant');
    const down = () => Promise.reject(new EventStoreUnavailableError('write ECONNRESET'));
    const { store } = t.deps;
    const appendMany = sinon.stub(store, 'appendMany').callsFake(async function (this: unknown, writes) {
      if (writes.some((w) => replyIn(w.events))) return down();
      return appendMany.wrappedMethod.call(store, writes);
    });
    const append = sinon.stub(store, 'append').callsFake(async function (this: unknown, stream, events, options) {
      if (replyIn(events)) return down();
      return append.wrappedMethod.call(store, stream, events, options);
    });
    let response;
    try {
      response = await execute(alice, { conversation_id: conversationId, message: 'Hello there' });
    } finally {
      appendMany.restore();
      append.restore();
    }
    expect(response.status, JSON.stringify(response.body)).to.equal(503);
    expect(response.body.detail, JSON.stringify(response.body)).to.match(/could not be recorded/);
    const messages = (await t.api.get(`/conversations/${conversationId}/messages`, alice.headers)).body;
    expect(messages.messages.filter((m: { role: string }) => m.role === 'assistant')).to.have.length(0);
  });
});
