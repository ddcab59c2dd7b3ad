import { expect } from 'chai';
import sinon from 'sinon';
import { loadConfig } from '../../../src/platform/config';
import { Invalid } from '../../../src/platform/domain-errors';
import { callModel, createModelRouter } from '../../../src/platform/infra/llm/model-router';
import { costOf } from '../../../src/platform/infra/llm/model-prices';
import { MODEL_IDS } from '../../../src/platform/infra/llm/model-options';

const sse = (chunks: unknown[]) =>
  new Response(chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n', {
    status: 200,
    headers: { 'content-type': 'text/event-stream' },
  });

const ask = {
  system: 'You are terse.',
  messages: [{ role: 'user' as const, content: 'hi' }],
  tools: [],
  thinkingMode: 'disabled' as const,
};

describe('model routing', () => {
  it('every curated model has a price, so cost is computed from reported usage', () => {
    for (const id of MODEL_IDS) expect(costOf(id, 1_000_000, 0), id).to.be.a('number');
    expect(costOf('openai/gpt-4o', 1_000_000, 1_000_000)).to.equal(12.5);
    expect(costOf('openai/gpt-4o', null, 10)).to.equal(null);
    expect(costOf('not/priced', 10, 10)).to.equal(null);
  });

  it('refuses ids outside the curated list; local/* needs its endpoint', () => {
    const router = createModelRouter({ turnTimeoutMs: 1000 });
    expect(() => router.languageModel('openai/gpt-5-ultra')).to.throw(Invalid);
    expect(() => router.languageModel('local/llama-3.1-8b-instruct')).to.throw(/LOCAL_LLM_BASE_URL/);
    expect(router.languageModel('builtin/deterministic').provider).to.equal('builtin');
  });

  it('openai/* streams chat completions from api.openai.com with the configured key', async () => {
    const fetch = sinon.stub(globalThis, 'fetch').resolves(
      sse([
        {
          id: 'c',
          object: 'chat.completion.chunk',
          created: 1,
          model: 'gpt-4o-mini',
          choices: [{ index: 0, delta: { role: 'assistant', content: 'Hello' }, finish_reason: null }],
        },
        {
          id: 'c',
          object: 'chat.completion.chunk',
          created: 1,
          model: 'gpt-4o-mini',
          choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
        },
        {
          id: 'c',
          object: 'chat.completion.chunk',
          created: 1,
          model: 'gpt-4o-mini',
          choices: [],
          usage: { prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 },
        },
      ]),
    );
    const router = createModelRouter({ openaiApiKey: 'sk-test', turnTimeoutMs: 1000 });
    const reply = await callModel(router, 'openai/gpt-4o-mini', ask);
    const { assistantMessage, ...rest } = reply;
    expect(rest).to.deep.equal({ text: 'Hello', toolCalls: [], inputTokens: 9, outputTokens: 1 });
    expect(assistantMessage).to.deep.include({ role: 'assistant' });
    const [url, init] = fetch.firstCall.args as [string, RequestInit];
    expect(url).to.equal('https://api.openai.com/v1/chat/completions');
    expect(new Headers(init.headers).get('authorization')).to.equal('Bearer sk-test');
    const body = JSON.parse(String(init.body));
    expect(body).to.deep.include({ model: 'gpt-4o-mini', stream: true });
    expect(body.messages[0]).to.deep.equal({ role: 'system', content: 'You are terse.' });
  });

  it('anthropic/* calls the messages API with the key; a provider error surfaces as a thrown error with its message', async () => {
    const fetch = sinon
      .stub(globalThis, 'fetch')
      .resolves(
        new Response(
          JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }),
          { status: 401, headers: { 'content-type': 'application/json' } },
        ),
      );
    const router = createModelRouter({ anthropicApiKey: 'sk-ant-test', turnTimeoutMs: 1000 });
    let error: unknown;
    try {
      await callModel(router, 'anthropic/claude-haiku-4-5', { ...ask, thinkingMode: 'adaptive' });
    } catch (e) {
      error = e;
    }
    expect(String((error as Error)?.message)).to.contain('invalid x-api-key');
    const [url, init] = fetch.firstCall.args as [string, RequestInit];
    expect(url).to.equal('https://api.anthropic.com/v1/messages');
    expect(new Headers(init.headers).get('x-api-key')).to.equal('sk-ant-test');
    expect(JSON.parse(String(init.body)).thinking).to.deep.equal({ type: 'enabled', budget_tokens: 4096 });
  });

  it('live: a hosted model answers (runs only with OPENAI_API_KEY or ANTHROPIC_API_KEY set)', async function () {
    const config = loadConfig({ ...process.env, NODE_ENV: 'test' });
    const id = config.llm.openaiApiKey
      ? 'openai/gpt-4o-mini'
      : config.llm.anthropicApiKey
        ? 'anthropic/claude-haiku-4-5'
        : null;
    if (!id) this.skip();
    this.timeout(60_000);
    const reply = await callModel(createModelRouter(config.llm), id!, {
      ...ask,
      messages: [{ role: 'user', content: 'Say OK.' }],
    });
    expect(reply.text).to.match(/ok/i);
    expect(reply.inputTokens).to.be.a('number');
  });
});
