import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { countTokens } from '../tokens';

/**
 * The `builtin/*` models: deterministic and offline, implemented as a real AI SDK language
 * model so a turn on them runs the same SDK path as one on a hosted provider (generated, not
 * streamed: `ModelRouter.streams`; `doStream` serves direct SDK streaming). Each step asks
 * a `BuiltinAssistant` for the next tool calls or the answer; the kernel's generic one plans:
 *  - a well (API number), lease or operator named → the graph tools on that entity;
 *  - a skill's trigger word → `load_skill` (the catalogue is read from the system prompt);
 *  - a filing intent (submit or file a form) → `request_approval` (unless a reviewer already decided);
 * and, once tool results are back, answers from them. Usage is the true token count (the
 * project's tokenizer) of what it read and what it wrote.
 */
export const BUILTIN_MODELS = ['deterministic', 'deterministic-fast'] as const;

/** What the builtin model knows of the turn when it decides its next step. */
export interface BuiltinTurn {
  userText: string;
  systemText: string;
  /** The tools the turn offers, by name. */
  tools: ReadonlySet<string>;
  /** Results of the tools called since the user's message, in order, with the arguments they were called with. */
  results: ReadonlyArray<{ toolName: string; input: Record<string, unknown>; text: string }>;
  /** The `deterministic-fast` variant: shorter answers. */
  short: boolean;
}

export type BuiltinStep = { calls: PlannedCall[] } | { text: string };

/**
 * The part of the builtin model that knows a domain: from the turn so far, the next tool
 * calls or the answer. The kernel's own (`genericAssistant`) knows entities and skills only;
 * a context hands a richer one to the model router (the agents context's compliance assistant).
 */
export interface BuiltinAssistant {
  next(turn: BuiltinTurn): BuiltinStep;
}

const WELL_API = /\b\d{2}-\d{3}-\d{5}\b/g;
const LEASE_ID = /\b[OG]-\d{1,2}[A-Z]{0,2}-\d+\b/g;
const OPERATOR_ID = /\bP5-\d+\b/g;
const NAMED = /\b(well|lease|operator)\s+(?:#\s*)?([A-Za-z0-9][A-Za-z0-9-]*\d[A-Za-z0-9-]*)/gi;
const SKILL_LINE = /^- skill ([a-z0-9][a-z0-9_-]*):.*?Triggers: (.+)$/gm;
const LOADED = /^Skill loaded: (.+?) \(([a-z0-9_-]+)\)/m;
export const DECISION = /Reviewer decision on approval (\S+) \(([^)]+)\): (approved|rejected|modified|pending)/;
const FORMS = /\b(W-10|G-10|W-1|W-2|G-1|PR|P-5|H-10)\b/i;
/** A filing intent: to submit or file a form or a filing, never the word "file" alone ("what file formats…"). */
export const FILING_INTENT =
  /\b(submit|file)\b(?=.*\b(form|filing|report|W-10|G-10|W-1|W-2|G-1|PR|P-5|H-10|R-32)\b)|\b(form|filing|report|W-10|G-10|W-1|W-2|G-1|PR|P-5|H-10|R-32)\b.*\b(submit|file)\b/i;

export interface PlannedCall {
  toolName: string;
  input: Record<string, unknown>;
}

type Message = LanguageModelV3Prompt[number];

function textOf(message: Message): string {
  if (message.role === 'system') return message.content;
  return message.content
    .map((part) => {
      if (part.type === 'text' || part.type === 'reasoning') return part.text;
      if (part.type === 'tool-call') return `${part.toolName}(${JSON.stringify(part.input)})`;
      if (part.type === 'tool-result') return `${part.toolName}: ${resultText(part.output)}`;
      return '';
    })
    .join('\n');
}

function resultText(output: { type: string; value?: unknown }): string {
  if (output.type === 'text' || output.type === 'error-text') return String(output.value ?? '');
  return JSON.stringify(output.value ?? null);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

interface Entity {
  type: 'well' | 'lease' | 'operator';
  id: string;
}

export function entitiesIn(text: string): Entity[] {
  const found = new Map<string, Entity>();
  const add = (type: Entity['type'], id: string) => {
    if (!found.has(id)) found.set(id, { type, id });
  };
  for (const m of text.matchAll(WELL_API)) add('well', m[0]);
  for (const m of text.matchAll(LEASE_ID)) add('lease', m[0]);
  for (const m of text.matchAll(OPERATOR_ID)) add('operator', m[0]);
  for (const m of text.matchAll(NAMED)) add(m[1].toLowerCase() as Entity['type'], m[2]);
  return [...found.values()].slice(0, 3);
}

/** `load_skill` calls for the skills of the system prompt's catalogue whose trigger words the user used. */
export function skillCalls(userText: string, systemText: string, tools: ReadonlySet<string>): PlannedCall[] {
  if (!tools.has('load_skill')) return [];
  const calls: PlannedCall[] = [];
  for (const m of systemText.matchAll(SKILL_LINE)) {
    const triggers = m[2]
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    if (
      triggers.some((t) =>
        new RegExp(`(^|[^a-z0-9])${escapeRegExp(t.toLowerCase())}($|[^a-z0-9])`).test(userText.toLowerCase()),
      )
    ) {
      calls.push({ toolName: 'load_skill', input: { skill_key: m[1] } });
    }
  }
  return calls;
}

function plan(userText: string, systemText: string, tools: Set<string>): PlannedCall[] {
  const calls: PlannedCall[] = skillCalls(userText, systemText, tools);
  const entities = entitiesIn(userText);
  for (const entity of entities) {
    if (tools.has('graph_context'))
      calls.push({ toolName: 'graph_context', input: { entity_type_key: entity.type, id: entity.id } });
    if (entity.type === 'operator' && tools.has('graph_query_template')) {
      calls.push({
        toolName: 'graph_query_template',
        input: { template_id: 'operator_wells', params: { operator_id: entity.id } },
      });
    }
    if (/\bimpact\b/i.test(userText) && tools.has('impact_analysis')) {
      calls.push({
        toolName: 'impact_analysis',
        input: {
          label: entity.type === 'well' ? 'Well' : entity.type === 'lease' ? 'Lease' : 'Operator',
          id: entity.id,
        },
      });
    }
  }
  const decided = DECISION.exec(systemText);
  if (FILING_INTENT.test(userText) && tools.has('request_approval') && !(decided && decided[3] !== 'pending')) {
    const form = FORMS.exec(userText)?.[1]?.toUpperCase();
    calls.push({
      toolName: 'request_approval',
      input: {
        checkpoint_type: 'filing_submission',
        summary: userText.slice(0, 200),
        ...(form ? { filing_type: form } : {}),
        ...(entities[0] ? { entity_id: entities[0].id } : {}),
      },
    });
  }
  return calls;
}

function answer(
  userText: string,
  systemText: string,
  results: Array<{ toolName: string; text: string }>,
  short: boolean,
): string {
  const lines: string[] = [];
  const loaded = LOADED.exec(`${systemText}\n${results.map((r) => r.text).join('\n')}`);
  if (loaded) lines.push(`Following the ${loaded[1]} skill.`);
  const decided = DECISION.exec(systemText);
  if (decided) {
    lines.push(
      decided[3] === 'pending'
        ? `Approval ${decided[1]} (${decided[2]}) is still waiting for a reviewer.`
        : `The reviewer ${decided[3]} approval ${decided[1]} (${decided[2]}).${decided[3] === 'rejected' ? ' Nothing will be filed.' : ' The filing can proceed.'}`,
    );
  }
  for (const result of results) {
    if (result.toolName === 'load_skill') continue;
    if (result.toolName === 'request_approval') {
      lines.push('I prepared the submission and asked a reviewer to approve it before anything is filed.');
      continue;
    }
    const firstLines = result.text
      .split('\n')
      .filter(Boolean)
      .slice(0, short ? 1 : 4)
      .join(' ');
    lines.push(`${result.toolName}: ${clipToTokens(firstLines, short ? 40 : 150)}`);
  }
  if (lines.length === 0) {
    const attachments = (userText.match(/^--- attachment: /gm) ?? []).length;
    lines.push(`You asked: "${userText.split('\n')[0].slice(0, short ? 80 : 200)}".`);
    if (attachments > 0) lines.push(`I read ${attachments} attached file${attachments === 1 ? '' : 's'}.`);
    lines.push(
      'Name a well by API number, a lease or an operator (P5 number) and I will look it up in the knowledge graph.',
    );
  }
  return (short ? lines.slice(0, 2) : lines).join('\n');
}

function usage(input: number, output: number): LanguageModelV3Usage {
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
  };
}

/** The kernel's assistant: graph tools on named entities, skills by trigger word, approval on a filing intent. */
export const genericAssistant: BuiltinAssistant = {
  next(turn) {
    if (turn.results.length === 0) {
      const calls = plan(turn.userText, turn.systemText, new Set(turn.tools));
      if (calls.length > 0) return { calls };
    }
    return { text: answer(turn.userText, turn.systemText, [...turn.results], turn.short) };
  },
};

/** At most `tokens` tokens of `text`, cut after a whole word. */
export function clipToTokens(text: string, tokens: number): string {
  if (countTokens(text) <= tokens) return text;
  const words = text.match(/\S+\s*/g) ?? [];
  let out = '';
  for (const word of words) {
    if (countTokens(out + word) > tokens) break;
    out += word;
  }
  return out.trimEnd();
}

/** One deterministic step: tool calls when the turn needs them, else the answer. */
function respond(
  modelId: string,
  assistant: BuiltinAssistant,
  options: LanguageModelV3CallOptions,
): { content: LanguageModelV3Content[]; usage: LanguageModelV3Usage; finish: 'stop' | 'tool-calls' } {
  const prompt = options.prompt;
  const lastUser = prompt.map((m) => m.role).lastIndexOf('user');
  const userText = lastUser >= 0 ? textOf(prompt[lastUser]) : '';
  const systemText = prompt
    .filter((m) => m.role === 'system')
    .map(textOf)
    .join('\n');
  const after = lastUser >= 0 ? prompt.slice(lastUser + 1) : [];
  const inputs = new Map<string, Record<string, unknown>>();
  for (const m of after)
    if (m.role === 'assistant')
      for (const p of m.content)
        if (p.type === 'tool-call')
          inputs.set(
            p.toolCallId,
            (typeof p.input === 'string' ? JSON.parse(p.input) : p.input) as Record<string, unknown>,
          );
  const results = after.flatMap((m) =>
    m.role === 'tool'
      ? m.content.flatMap((p) =>
          p.type === 'tool-result'
            ? [{ toolName: p.toolName, input: inputs.get(p.toolCallId) ?? {}, text: resultText(p.output) }]
            : [],
        )
      : [],
  );
  const tools = new Set((options.tools ?? []).map((t) => t.name));
  const read =
    countTokens(prompt.map(textOf).join('\n')) + countTokens(JSON.stringify((options.tools ?? []).map((t) => t.name)));
  const step = assistant.next({ userText, systemText, tools, results, short: modelId === 'deterministic-fast' });
  if ('calls' in step && step.calls.length > 0) {
    const content: LanguageModelV3Content[] = step.calls.map((call, i) => ({
      type: 'tool-call',
      toolCallId: `call_${lastUser}_${after.length}_${i}`,
      toolName: call.toolName,
      input: JSON.stringify(call.input),
    }));
    return {
      content,
      usage: usage(read, countTokens(step.calls.map((c) => `${c.toolName}(${JSON.stringify(c.input)})`).join('\n'))),
      finish: 'tool-calls',
    };
  }
  let text = 'text' in step ? step.text : '';
  if (options.maxOutputTokens !== undefined) text = clipToTokens(text, options.maxOutputTokens);
  return { content: [{ type: 'text', text }], usage: usage(read, countTokens(text)), finish: 'stop' };
}

export function builtinLanguageModel(modelId: string, assistant: BuiltinAssistant = genericAssistant): LanguageModelV3 {
  if (!(BUILTIN_MODELS as readonly string[]).includes(modelId)) throw new Error(`unknown builtin model ${modelId}`);
  return {
    specificationVersion: 'v3',
    provider: 'builtin',
    modelId,
    supportedUrls: {},
    async doGenerate(options) {
      const { content, usage: used, finish } = respond(modelId, assistant, options);
      return { content, usage: used, finishReason: { unified: finish, raw: finish }, warnings: [] };
    },
    async doStream(options) {
      const { content, usage: used, finish } = respond(modelId, assistant, options);
      const parts: LanguageModelV3StreamPart[] = [
        { type: 'stream-start', warnings: [] },
        { type: 'response-metadata', id: `builtin-${Date.now()}`, modelId, timestamp: new Date() },
      ];
      content.forEach((item, i) => {
        if (item.type === 'text') {
          const id = `text-${i}`;
          parts.push({ type: 'text-start', id });
          // Word-sized deltas, as a hosted model streams them.
          for (const piece of item.text.match(/\S+\s*|\s+/g) ?? [])
            parts.push({ type: 'text-delta', id, delta: piece });
          parts.push({ type: 'text-end', id });
        } else parts.push(item as LanguageModelV3StreamPart);
      });
      parts.push({ type: 'finish', usage: used, finishReason: { unified: finish, raw: finish } });
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      });
      return { stream };
    },
  };
}
