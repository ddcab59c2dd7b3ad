import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { EventSource } from 'eventsource';
import { latestTurns } from '../../../queries/agents/turns';
import { TERMINAL_TURN_EVENTS, turnAggregate } from '../../../streams/agents/turn';
import { type Session, signIn } from '../../support/auth';
import { type TestPlatform } from '../../support/platform';
import { type ChatServer } from './chat-completions-server';
import { startSeededPlatform } from './seeded-platform';

interface Frame {
  event: string;
  id: string;
  data: { event: string; node: string; data: Record<string, any> };
}

const NAMED_EVENTS = ['node_end', 'done', 'error'];

/**
 * A real EventSource client (the `eventsource` package, the WHATWG algorithm) against the
 * real app. `headers` go on every request it makes (cookie, Last-Event-ID); `stopAfter`
 * closes the connection from the client side once that many frames arrived.
 */
function listen(
  url: string,
  options: { headers?: Record<string, string>; stopAfter?: number } = {},
): Promise<{ frames: Frame[]; responses: Array<{ status: number; headers: Headers }> }> {
  const frames: Frame[] = [];
  const responses: Array<{ status: number; headers: Headers }> = [];
  return new Promise((resolve, reject) => {
    const source = new EventSource(url, {
      fetch: async (input, init) => {
        const headers = new Headers(init?.headers as HeadersInit);
        for (const [k, v] of Object.entries(options.headers ?? {})) headers.set(k, v);
        const response = await fetch(input, { ...init, headers } as RequestInit);
        responses.push({ status: response.status, headers: response.headers });
        return response;
      },
    });
    let finished = false;
    const finish = () => {
      finished = true;
      source.close();
      resolve({ frames, responses });
    };
    for (const name of NAMED_EVENTS) {
      source.addEventListener(name, (e: MessageEvent) => {
        // Frames parsed from the same chunk still dispatch after close(): the client saw none of them.
        if (finished) return;
        frames.push({ event: name, id: e.lastEventId, data: JSON.parse(e.data) });
        if (name !== 'node_end' || frames.length === options.stopAfter) finish();
      });
    }
    source.onerror = (error: any) => {
      // A 204 (nothing more to read) closes the source for good: that is the expected end.
      if (source.readyState === EventSource.CLOSED)
        return responses.at(-1)?.status === 204
          ? finish()
          : reject(new Error(`event source failed: ${error?.message ?? error?.code}`));
    };
  });
}

describe('GET /conversations/{id}/stream (SSE)', function () {
  this.timeout(30_000);
  let t: TestPlatform;
  let chat: ChatServer;
  let alice: Session;
  let wellApi: string;

  before(async function () {
    // Start-up and the graph seed, generous for a loaded CI machine.
    this.timeout(120_000);
    ({ t, chat, alice, wellApi } = await startSeededPlatform({ wells: 6, seed: 3 }));
  });
  after(async () => {
    await t.close();
    await chat.close();
  });

  const newConversation = async (who: Session) =>
    (await t.api.post('/conversations', { agent_id: 'compliance' }, who.headers)).body.id as string;
  const streamUrl = (conversationId: string, query: Record<string, string> = {}) =>
    `${t.publicUrl}/api/v1/conversations/${conversationId}/stream${Object.keys(query).length ? `?${new URLSearchParams(query)}` : ''}`;
  const cookie = (who: Session) => ({ cookie: `svc_token=${who.token}` });
  const turnEnded = async (tenantId: string, executionId: string) => {
    const [last] = await t.deps.store.readStream(turnAggregate.stream(tenantId, executionId), {
      direction: 'backwards',
      limit: 1,
    });
    return last !== undefined && (TERMINAL_TURN_EVENTS as readonly string[]).includes(last.type);
  };

  it("streams a turn as named events with ids (cookie auth): node_end per node in the spec's order, then done with the result", async () => {
    const conversationId = await newConversation(alice);
    const { frames, responses } = await listen(streamUrl(conversationId, { message: `Status of well ${wellApi}?` }), {
      headers: cookie(alice),
    });
    expect(responses[0].status).to.equal(200);
    expect(responses[0].headers.get('content-type')).to.match(/^text\/event-stream/);
    expect(responses[0].headers.get('cache-control')).to.contain('no-cache');
    expect(responses[0].headers.get('x-accel-buffering')).to.equal('no');
    expect(frames.map((f) => `${f.event}:${f.data.node}`)).to.deep.equal([
      'node_end:system_prompt_node',
      'node_end:memory_node',
      'node_end:resume_guard',
      'node_end:initial_llm_call',
      'node_end:tool_node',
      'node_end:initial_llm_call',
      'node_end:tool_node',
      'node_end:initial_llm_call',
      'node_end:approval_node',
      'node_end:output_format',
      'done:done',
    ]);
    for (const f of frames) {
      expect(f.data.event).to.equal(f.event);
      expect(f.id).to.match(/^[0-9a-f-]{36}:\d+$/);
    }
    expect(new Set(frames.map((f) => f.id)).size).to.equal(frames.length);
    // The well is found first, then its compliance is asked by its entity id.
    const [search, call] = [frames[3].data.data, frames[5].data.data];
    expect(search.message.tool_calls[0]).to.deep.include({ name: 'find_entities' });
    expect(call).to.include({ status: 'ok' });
    expect(call.tokens_used).to.be.a('number');
    expect(call.message.tool_calls[0]).to.deep.include({ name: 'compliance_status' });
    const done = frames.at(-1)!.data.data;
    expect(done).to.include({
      status: 'completed',
      hitl_approval_id: null,
      hitl_checkpoint_type: null,
      thinking_mode: 'adaptive',
    });
    expect(done).to.have.keys(
      'execution_id',
      'status',
      'tokens_used',
      'cost_usd',
      'skills_injected',
      'thinking_mode',
      'referenced_entities',
      'hitl_approval_id',
      'hitl_checkpoint_type',
      'error',
    );
    expect(frames[0].id.startsWith(`${done.execution_id}:`)).to.equal(true);
    expect(t.deps.streamTail.followers).to.equal(0);
  });

  it('attaching without a message replays the last turn from the log; Last-Event-ID resumes right after that frame', async () => {
    const conversationId = await newConversation(alice);
    const { frames: live } = await listen(streamUrl(conversationId, { message: 'flaring limits?' }), {
      headers: cookie(alice),
    });
    expect(live.find((f) => f.data.node === 'tool_node')!.data.data.skills_loaded).to.deep.equal([
      'flaring_authorization',
    ]);
    const { frames: replay } = await listen(streamUrl(conversationId), {
      headers: { authorization: `Bearer ${alice.token}` },
    });
    expect(replay).to.deep.equal(live);
    const { frames: rest } = await listen(streamUrl(conversationId), {
      headers: { ...cookie(alice), 'last-event-id': live[2].id },
    });
    expect(rest).to.deep.equal(live.slice(3));
    // After the terminal frame there is nothing more: 204, and the client stops reconnecting.
    const after = await fetch(streamUrl(conversationId), {
      headers: { ...cookie(alice), 'last-event-id': live.at(-1)!.id },
    });
    expect(after.status).to.equal(204);
  });

  it('a client that disconnects mid-turn does not cancel it; reconnecting to the same URL with Last-Event-ID gets the rest, nothing lost or repeated', async () => {
    const conversationId = await newConversation(alice);
    chat.script.push({ text: 'Slow but steady answer from the local model.', delayMs: 700, chunkDelayMs: 20 });
    const url = streamUrl(conversationId, { message: 'Take your time', model: 'local/llama-3.1-8b-instruct' });
    const first = await listen(url, { headers: cookie(alice), stopAfter: 2 });
    expect(first.frames.map((f) => f.data.node)).to.deep.equal(['system_prompt_node', 'memory_node']);
    const executionId = first.frames[0].id.split(':')[0];
    expect(await turnEnded(alice.tenantId, executionId)).to.equal(false);
    // The follower is released once the socket is gone (no leaked subscription).
    for (let i = 0; i < 50 && t.deps.streamTail.followers > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(t.deps.streamTail.followers).to.equal(0);
    for (let i = 0; i < 200 && !(await turnEnded(alice.tenantId, executionId)); i++)
      await new Promise((r) => setTimeout(r, 25));
    expect(await turnEnded(alice.tenantId, executionId)).to.equal(true);

    const second = await listen(url, { headers: { ...cookie(alice), 'last-event-id': first.frames.at(-1)!.id } });
    const all = [...first.frames, ...second.frames];
    expect(all.map((f) => f.data.node)).to.deep.equal([
      'system_prompt_node',
      'memory_node',
      'resume_guard',
      'initial_llm_call',
      'approval_node',
      'output_format',
      'done',
    ]);
    expect(new Set(all.map((f) => f.id)).size).to.equal(all.length);
    expect(second.frames.at(-1)!.data.data.execution_id).to.equal(executionId);
    expect(chat.requests).to.have.length(1);
    // The reconnect did not start a second turn with the URL's message.
    await t.deps.projections.waitFor(await t.deps.store.headPosition(), 30_000);
    expect(
      (await t.api.get(`/conversations/${conversationId}/messages`, alice.headers)).body.messages.map(
        (m: any) => m.role,
      ),
    ).to.deep.equal(['user', 'assistant']);
  });

  it('a reader attached while the turn runs sees it live to the end', async () => {
    const conversationId = await newConversation(alice);
    chat.script.push({ text: 'Answer after a pause.', delayMs: 1500 });
    const starter = listen(streamUrl(conversationId, { message: 'go', model: 'local/llama-3.1-8b-instruct' }), {
      headers: cookie(alice),
    });
    let latest: Awaited<ReturnType<typeof latestTurns>> = [];
    for (let i = 0; i < 400 && latest.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 25));
      latest = await latestTurns(t.deps.knex, alice.tenantId, conversationId, 1);
    }
    expect(latest[0].status).to.equal('running');
    const attached = await listen(streamUrl(conversationId), { headers: cookie(alice) });
    const started = await starter;
    expect(attached.frames).to.deep.equal(started.frames);
  });

  it('an exhausted daily cap gives a terminal error frame instead of a turn', async () => {
    const tenantId = randomUUID();
    const admin = await signIn(t, { tenantId, roles: ['admin'] });
    expect((await t.api.put('/settings', { max_tokens_per_day: 1 }, admin.headers)).status).to.equal(200);
    await t.api.post(
      '/execute',
      { conversation_id: await newConversation(admin), message: 'use up the day' },
      admin.headers,
    );
    const { frames } = await listen(streamUrl(await newConversation(admin), { message: 'one more' }), {
      headers: cookie(admin),
    });
    expect(frames).to.have.length(1);
    expect(frames[0].event).to.equal('error');
    expect(frames[0].data.data.error).to.contain('daily token cap');
    expect(frames[0].id).to.match(/:rejected$/);
    // The browser's automatic reconnect (same URL, that id) is told to stop instead of trying again.
    const again = await fetch(streamUrl(await newConversation(admin), { message: 'one more' }), {
      headers: { ...cookie(admin), 'last-event-id': frames[0].id },
    });
    expect(again.status).to.equal(204);
  });

  it("answers 404 for another user's conversation or one without turns, 401 without a token, 422 for a malformed agent_type", async () => {
    const bob = await signIn(t);
    const conversationId = await newConversation(alice);
    expect((await fetch(streamUrl(conversationId, { message: 'hi' }), { headers: cookie(bob) })).status).to.equal(404);
    expect((await fetch(streamUrl(conversationId), { headers: cookie(alice) })).status).to.equal(404);
    expect((await fetch(streamUrl(conversationId, { message: 'hi' }))).status).to.equal(401);
    expect(
      (await fetch(streamUrl(conversationId, { message: 'hi', agent_type: 'NO WAY' }), { headers: cookie(alice) }))
        .status,
    ).to.equal(422);
    expect((await t.api.get(`/conversations/${conversationId}/messages`, alice.headers)).body.total).to.equal(0);
  });
});
