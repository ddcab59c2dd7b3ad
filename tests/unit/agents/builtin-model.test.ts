import { expect } from 'chai';
import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { builtinLanguageModel, entitiesIn } from '../../../src/platform/infra/llm/builtin-model';
import { countTokens } from '../../../src/platform/infra/tokens';

const tool = (name: string) => ({
  type: 'function' as const,
  name,
  description: name,
  inputSchema: { type: 'object' as const },
});
const TOOLS = ['graph_context', 'graph_query_template', 'impact_analysis', 'load_skill', 'request_approval'].map(tool);
const SYSTEM =
  'You are a compliance assistant.\n\nSkills:\n- skill flaring_authorization: Flaring. Rule 32. Triggers: flare, flaring, rule 32';

function call(user: string, extra: Partial<LanguageModelV3CallOptions> = {}): LanguageModelV3CallOptions {
  return {
    prompt: [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: [{ type: 'text', text: user }] },
    ],
    tools: TOOLS,
    ...extra,
  };
}

async function generate(options: LanguageModelV3CallOptions, model = 'deterministic') {
  return builtinLanguageModel(model).doGenerate(options);
}

const toolCalls = (content: Awaited<ReturnType<typeof generate>>['content']) =>
  content.flatMap((c) => (c.type === 'tool-call' ? [{ name: c.toolName, input: JSON.parse(c.input) }] : []));

describe('builtin deterministic model', () => {
  it('finds wells by API number, leases and operators by their ids or by name', () => {
    expect(entitiesIn('well 42-329-12345 on lease O-08-41234 of P5-123456')).to.deep.equal([
      { type: 'well', id: '42-329-12345' },
      { type: 'lease', id: 'O-08-41234' },
      { type: 'operator', id: 'P5-123456' },
    ]);
    expect(entitiesIn('what about operator ACME-7?')).to.deep.equal([{ type: 'operator', id: 'ACME-7' }]);
    expect(entitiesIn('hello there')).to.deep.equal([]);
  });

  it('asked about a well, calls graph_context; about its impact, impact_analysis too', async () => {
    const result = await generate(call('What is the impact if well 42-329-12345 is shut in?'));
    expect(result.finishReason.unified).to.equal('tool-calls');
    expect(toolCalls(result.content)).to.deep.equal([
      { name: 'graph_context', input: { entity_type_key: 'well', id: '42-329-12345' } },
      { name: 'impact_analysis', input: { label: 'Well', id: '42-329-12345' } },
    ]);
  });

  it('loads a skill when one of its trigger words appears, and only tools it was offered', async () => {
    expect(toolCalls((await generate(call('Is our flaring within limits?'))).content)).to.deep.equal([
      { name: 'load_skill', input: { skill_key: 'flaring_authorization' } },
    ]);
    expect(
      toolCalls((await generate(call('Is our flaring within limits?', { tools: [tool('graph_context')] }))).content),
    ).to.deep.equal([]);
  });

  it('asks for approval when told to file or submit, naming the form and entity; not after a reviewer decided', async () => {
    expect(toolCalls((await generate(call('Please file the G-10 for well 42-329-12345'))).content)).to.deep.include({
      name: 'request_approval',
      input: {
        checkpoint_type: 'filing_submission',
        summary: 'Please file the G-10 for well 42-329-12345',
        filing_type: 'G-10',
        entity_id: '42-329-12345',
      },
    });
    const decided = call('Submit it now', {
      prompt: [
        { role: 'system', content: `${SYSTEM}\nReviewer decision on approval a-1 (filing_submission): approved.` },
        { role: 'user', content: [{ type: 'text', text: 'Submit it now' }] },
      ],
    });
    const result = await generate(decided);
    expect(toolCalls(result.content)).to.deep.equal([]);
    expect((result.content[0] as { text: string }).text).to.contain(
      'The reviewer approved approval a-1 (filing_submission). The filing can proceed.',
    );
  });

  it('answers from tool results once they are back', async () => {
    const options = call('Status of well 42-329-12345?');
    options.prompt.push(
      {
        role: 'assistant',
        content: [
          {
            type: 'tool-call',
            toolCallId: 'c1',
            toolName: 'graph_context',
            input: { entity_type_key: 'well', id: '42-329-12345' },
          },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'graph_context',
            output: { type: 'text', value: '# Well SMITH 1 (entity_id 42-329-12345)\nstatus: producing' },
          },
        ],
      },
    );
    const result = await generate(options);
    expect(result.finishReason.unified).to.equal('stop');
    expect(result.content).to.deep.equal([
      { type: 'text', text: 'graph_context: # Well SMITH 1 (entity_id 42-329-12345) status: producing' },
    ]);
  });

  it('reports the true token counts of what it read and wrote, and is deterministic', async () => {
    const options = call('hello there');
    const a = await generate(options);
    const b = await generate(options);
    expect(a.content).to.deep.equal(b.content);
    const text = (a.content[0] as { text: string }).text;
    expect(a.usage.outputTokens.total).to.equal(countTokens(text));
    expect(a.usage.inputTokens.total).to.equal(
      countTokens(`${SYSTEM}\nhello there`) + countTokens(JSON.stringify(TOOLS.map((t) => t.name))),
    );
  });

  it('streams the same answer as text deltas, then a finish part with the usage', async () => {
    const options = call('hello there');
    const generated = await generate(options);
    const { stream } = await builtinLanguageModel('deterministic').doStream(options);
    const parts: LanguageModelV3StreamPart[] = [];
    for await (const part of stream as unknown as AsyncIterable<LanguageModelV3StreamPart>) parts.push(part);
    const text = parts.flatMap((p) => (p.type === 'text-delta' ? [p.delta] : [])).join('');
    expect(text).to.equal((generated.content[0] as { text: string }).text);
    expect(parts.at(-1)).to.deep.equal({
      type: 'finish',
      usage: generated.usage,
      finishReason: { unified: 'stop', raw: 'stop' },
    });
  });

  it('the fast variant answers shorter', async () => {
    const question =
      'Could you tell me everything that matters about the monthly production reporting obligations in district 8?';
    const long = (await generate(call(question))).content[0] as { text: string };
    const short = (await generate(call(question), 'deterministic-fast')).content[0] as { text: string };
    expect(short.text.length).to.be.lessThan(long.text.length);
  });
});
