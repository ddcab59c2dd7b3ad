import { expect } from 'chai';
import { generateText, jsonSchema, type ModelMessage, tool } from 'ai';
import { createModelRouter } from '../../src/platform/infra/llm/model-router';
import { costOf } from '../../src/platform/infra/llm/model-prices';
import { readTurnEvent, turnAggregate } from '../../streams/agents/turn';
import { type Session, signIn } from '../support/auth';
import { type TestPlatform } from '../support/platform';
import { startSeededPlatform } from '../integration/agents/seeded-platform';
import { signatureOf, startWireServer, type WireServer } from './provider-wire-server';

/**
 * Hosted-model paths in their real wire formats: whole agent turns (tool call → tool result →
 * second tool call → answer) through the AI SDK's Anthropic, OpenAI and OpenAI-compatible
 * clients against a local server speaking each provider's protocol, which asserts what the
 * turn sends back — above all Anthropic's thinking blocks, signed, before the tool results.
 */
describe('model providers over their wire formats', function () {
  this.timeout(60_000);
  let t: TestPlatform;
  let wire: WireServer;
  let alice: Session;
  let wellApi: string;

  before(async function () {
    this.timeout(180_000);
    wire = await startWireServer();
    ({ t, alice, wellApi } = await startSeededPlatform(
      { wells: 6, seed: 3 },
      {
        ANTHROPIC_API_KEY: 'sk-ant-test',
        ANTHROPIC_BASE_URL: wire.baseUrl,
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: wire.baseUrl,
        LOCAL_LLM_BASE_URL: wire.baseUrl,
        AGENT_TURN_TIMEOUT_MS: '4000',
      },
    ));
  });
  after(async () => {
    await t.close();
    await wire.close();
  });
  beforeEach(() => {
    wire.requests.length = 0;
    wire.script.length = 0;
    wire.aborted = 0;
  });

  const execute = async (model: string, message = `What is the impact if well ${wellApi} goes down?`, who = alice) => {
    const conversation = (await t.api.post('/conversations', { agent_id: 'compliance' }, who.headers)).body.id;
    return (await t.api.post('/execute', { conversation_id: conversation, message, model }, who.headers)).body;
  };
  const twoToolRounds = (extra: { thinking?: (n: number) => string } = {}) => [
    {
      thinking: extra.thinking?.(1),
      toolCalls: [{ id: 'toolu_1', name: 'graph_context', input: { entity_type_key: 'well', id: wellApi } }],
      usage: { input: 400, output: 30 },
    },
    {
      thinking: extra.thinking?.(2),
      toolCalls: [{ id: 'toolu_2', name: 'impact_analysis', input: { label: 'Well', id: wellApi } }],
      usage: { input: 900, output: 25 },
    },
    {
      thinking: extra.thinking?.(3),
      text: `Shutting in ${wellApi} affects its facilities.`,
      usage: { input: 1500, output: 15 },
    },
  ];

  it('Anthropic Messages with extended thinking: each tool round sends back the signed thinking and tool_use before the tool_result', async () => {
    wire.script.push(...twoToolRounds({ thinking: (n) => `Round ${n}: I need the well's facts.` }));
    const result = await execute('anthropic/claude-sonnet-4-5');
    expect(result.status, JSON.stringify(result)).to.equal('completed');
    expect(result.messages.at(-1).content).to.equal(`Shutting in ${wellApi} affects its facilities.`);
    expect(wire.requests.map((r) => r.path)).to.deep.equal(['/v1/messages', '/v1/messages', '/v1/messages']);
    const [first, second, third] = wire.requests.map((r) => r.body);
    expect(first).to.deep.include({
      model: 'claude-sonnet-4-5',
      stream: true,
      thinking: { type: 'enabled', budget_tokens: 4096 },
    });
    expect(first.tools.map((x: any) => x.name)).to.include.members([
      'graph_context',
      'impact_analysis',
      'request_approval',
    ]);
    // Round 2: the assistant turn with its thinking block (signature intact) and tool_use, then the tool_result.
    const assistant = second.messages.at(-2);
    expect(assistant.role).to.equal('assistant');
    expect(assistant.content.map((b: any) => b.type)).to.deep.equal(['thinking', 'tool_use']);
    expect(assistant.content[0]).to.deep.include({
      thinking: "Round 1: I need the well's facts.",
      signature: signatureOf("Round 1: I need the well's facts."),
    });
    expect(assistant.content[1]).to.deep.include({
      id: 'toolu_1',
      name: 'graph_context',
      input: { entity_type_key: 'well', id: wellApi },
    });
    const toolResult = second.messages.at(-1);
    expect(toolResult.role).to.equal('user');
    expect(toolResult.content[0]).to.deep.include({ type: 'tool_result', tool_use_id: 'toolu_1' });
    // Round 3 carries both rounds, each with its own thinking.
    const assistants = third.messages.filter((m: any) => m.role === 'assistant');
    expect(assistants.map((m: any) => m.content[0].signature)).to.deep.equal([
      signatureOf("Round 1: I need the well's facts."),
      signatureOf("Round 2: I need the well's facts."),
    ]);
    // Usage and cost: the sum of the three calls, priced by our table.
    expect(result.tokens_used).to.equal(400 + 30 + 900 + 25 + 1500 + 15);
    expect(result.cost_usd).to.be.closeTo(costOf('anthropic/claude-sonnet-4-5', 2800, 70)!, 1e-9);
  });

  it('OpenAI Chat Completions: tool_calls and tool messages by id across two tool rounds, usage from the usage chunk', async () => {
    wire.script.push(...twoToolRounds());
    const result = await execute('openai/gpt-4.1-mini');
    expect(result.status, JSON.stringify(result)).to.equal('completed');
    const [first, second, third] = wire.requests.map((r) => r.body);
    expect(first).to.deep.include({ model: 'gpt-4.1-mini', stream: true });
    expect(first.stream_options).to.deep.equal({ include_usage: true });
    const assistant = second.messages.at(-2);
    expect(assistant).to.deep.include({ role: 'assistant' });
    expect(
      assistant.tool_calls.map((c: any) => ({
        id: c.id,
        type: c.type,
        name: c.function.name,
        args: JSON.parse(c.function.arguments),
      })),
    ).to.deep.equal([
      { id: 'toolu_1', type: 'function', name: 'graph_context', args: { entity_type_key: 'well', id: wellApi } },
    ]);
    expect(second.messages.at(-1)).to.deep.include({ role: 'tool', tool_call_id: 'toolu_1' });
    expect(third.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.tool_call_id)).to.deep.equal([
      'toolu_1',
      'toolu_2',
    ]);
    expect(result.tokens_used).to.equal(2870);
    expect(result.cost_usd).to.be.closeTo(costOf('openai/gpt-4.1-mini', 2800, 70)!, 1e-9);
  });

  it('an OpenAI-compatible local server (vLLM, Ollama): the same two tool rounds, priced at zero', async () => {
    wire.script.push(...twoToolRounds());
    const result = await execute('local/llama-3.1-8b-instruct');
    expect(result.status, JSON.stringify(result)).to.equal('completed');
    expect(wire.requests.map((r) => r.body.model)).to.deep.equal([
      'llama-3.1-8b-instruct',
      'llama-3.1-8b-instruct',
      'llama-3.1-8b-instruct',
    ]);
    expect(wire.requests[2].body.messages.filter((m: any) => m.role === 'tool')).to.have.length(2);
    expect(result).to.include({ tokens_used: 2870, cost_usd: 0 });
  });

  it('a provider error (Anthropic overloaded) retries the call once on the fallback model', async () => {
    const admin = await signIn(t, { roles: ['admin'] });
    expect((await t.api.put('/settings', { fallback_model: 'builtin/deterministic' }, admin.headers)).status).to.equal(
      200,
    );
    try {
      wire.script.push({ status: 529, type: 'overloaded_error', message: 'Overloaded' });
      const result = await execute('anthropic/claude-sonnet-4-5', `Is well ${wellApi} compliant?`, admin);
      expect(result.status, JSON.stringify(result)).to.be.oneOf(['completed']);
      const events = (await t.deps.store.readStream(turnAggregate.stream(admin.tenantId, result.execution_id))).map(
        readTurnEvent,
      );
      const call = events.find((e) => e.type === 'NodeCompleted' && e.data.node === 'initial_llm_call')!;
      expect((call.data as any).detail).to.deep.include({ model: 'builtin/deterministic', fallback_used: true });
    } finally {
      await t.api.put('/settings', { fallback_model: null }, admin.headers);
    }
  });

  it('the non-streamed path (doGenerate) of each provider carries the same two tool rounds, thinking blocks included', async () => {
    const router = createModelRouter({
      anthropicApiKey: 'sk-ant-test',
      anthropicBaseUrl: wire.baseUrl,
      openaiApiKey: 'sk-test',
      openaiBaseUrl: wire.baseUrl,
      localBaseUrl: wire.baseUrl,
      turnTimeoutMs: 5000,
    });
    const schema = jsonSchema({ type: 'object', properties: { id: { type: 'string' } } });
    const tools = {
      graph_context: tool({ description: 'facts', inputSchema: schema }),
      impact_analysis: tool({ description: 'impact', inputSchema: schema }),
    };
    for (const [modelId, providerOptions] of [
      ['anthropic/claude-sonnet-4-5', { anthropic: { thinking: { type: 'enabled', budgetTokens: 4096 } } }],
      ['openai/gpt-4.1-mini', undefined],
      ['local/llama-3.1-8b-instruct', undefined],
    ] as const) {
      wire.requests.length = 0;
      wire.script.push(
        ...twoToolRounds({ thinking: modelId.startsWith('anthropic/') ? (n) => `Round ${n}.` : undefined }),
      );
      const messages: ModelMessage[] = [{ role: 'user', content: `What is the impact if well ${wellApi} goes down?` }];
      let answer = '';
      for (let round = 0; round < 3 && !answer; round++) {
        const reply = await generateText({
          model: router.languageModel(modelId),
          messages,
          tools,
          providerOptions: providerOptions as any,
          maxRetries: 0,
        });
        messages.push(...reply.response.messages);
        if (reply.toolCalls.length === 0) answer = reply.text;
        else
          messages.push({
            role: 'tool',
            content: reply.toolCalls.map((c) => ({
              type: 'tool-result' as const,
              toolCallId: c.toolCallId,
              toolName: c.toolName,
              output: { type: 'text' as const, value: `facts for ${c.toolName}` },
            })),
          });
      }
      expect(answer, modelId).to.equal(`Shutting in ${wellApi} affects its facilities.`);
      expect(
        wire.requests.map((r) => r.body.stream ?? false),
        modelId,
      ).to.deep.equal([false, false, false]);
      const last = wire.requests[2].body.messages;
      if (modelId.startsWith('anthropic/')) {
        const assistants = last.filter((m: any) => m.role === 'assistant');
        expect(assistants.map((m: any) => m.content.map((b: any) => b.type))).to.deep.equal([
          ['thinking', 'tool_use'],
          ['thinking', 'tool_use'],
        ]);
        expect(assistants[1].content[0]).to.deep.include({ signature: signatureOf('Round 2.') });
        expect(last.at(-1).content[0]).to.deep.include({ type: 'tool_result', tool_use_id: 'toolu_2' });
      } else {
        expect(last.filter((m: any) => m.role === 'assistant').map((m: any) => m.tool_calls[0].id)).to.deep.equal([
          'toolu_1',
          'toolu_2',
        ]);
        expect(last.at(-1)).to.deep.include({
          role: 'tool',
          tool_call_id: 'toolu_2',
          content: 'facts for impact_analysis',
        });
      }
    }
  });

  it('cancellation: a reply slower than the turn deadline aborts the request and ends the turn in error', async () => {
    wire.script.push({ text: 'too late', delayMs: 6000 });
    const result = await execute('openai/gpt-4.1-mini', 'hello');
    expect(result.status).to.equal('error');
    expect(result.error).to.equal('the turn took longer than its deadline');
    await new Promise((r) => setTimeout(r, 200));
    expect(wire.aborted).to.equal(1);
  });
});
