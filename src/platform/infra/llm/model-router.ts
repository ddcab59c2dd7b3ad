import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { ModelMessage, ToolSet } from 'ai';
import type { Config } from '../../config';
import { Invalid } from '../../domain-errors';
import { isModelId } from './model-options';
import type { ThinkingMode } from './thinking-mode';
import { type BuiltinAssistant, builtinLanguageModel } from './builtin-model';
import { aiSdk } from './ai-sdk';
import { modelTelemetry } from '../../observability/tracing';

/**
 * Routes a curated `<provider>/<model>` id to an AI SDK language model: `builtin/*` to the
 * offline deterministic model, `openai/*` and `anthropic/*` to their providers, `local/*`
 * to an OpenAI-compatible chat-completions endpoint (LOCAL_LLM_BASE_URL). A missing API key
 * surfaces as a model error at call time (so the fallback model can take over).
 */
export interface ModelRouter {
  languageModel(modelId: string): LanguageModelV3;
  /**
   * Whether a call to the model is streamed. A hosted model is: its reply crosses a network,
   * and the providers' streamed wire formats are the ones the turn is proven on. A model that
   * runs in this process answers at once, and the SDK's stream stages would cost more than
   * the answer (about 5 ms of CPU per call on Node 20, where every web stream is costly to make).
   */
  streams(modelId: string): boolean;
}

/** `assistant`: the domain knowledge of the `builtin/*` models (default: the kernel's generic one). */
export function createModelRouter(llm: Config['llm'], options: { assistant?: BuiltinAssistant } = {}): ModelRouter {
  // Each provider's SDK loads with its first model, not at boot: most processes only ever
  // run the builtin models.
  let openai: ReturnType<typeof import('@ai-sdk/openai').createOpenAI> | null = null;
  let anthropic: ReturnType<typeof import('@ai-sdk/anthropic').createAnthropic> | null = null;
  let local: ReturnType<typeof import('@ai-sdk/openai-compatible').createOpenAICompatible> | null = null;
  return {
    streams: (modelId) => !modelId.startsWith('builtin/'),
    languageModel(modelId) {
      if (!isModelId(modelId)) throw new Invalid(`"${modelId}" is not a model id from /settings/model-options`);
      const slash = modelId.indexOf('/');
      const provider = modelId.slice(0, slash);
      const name = modelId.slice(slash + 1);
      switch (provider) {
        case 'builtin':
          return builtinLanguageModel(name, options.assistant);
        case 'openai':
          openai ??= (require('@ai-sdk/openai') as typeof import('@ai-sdk/openai')).createOpenAI({
            apiKey: llm.openaiApiKey,
            baseURL: llm.openaiBaseUrl,
          });
          return openai.chat(name) as LanguageModelV3;
        case 'anthropic':
          anthropic ??= (require('@ai-sdk/anthropic') as typeof import('@ai-sdk/anthropic')).createAnthropic({
            apiKey: llm.anthropicApiKey,
            baseURL: llm.anthropicBaseUrl,
          });
          return anthropic(name) as LanguageModelV3;
        case 'local':
          if (!llm.localBaseUrl) throw new Error('LOCAL_LLM_BASE_URL is not set: local/* models have no endpoint');
          local ??= (
            require('@ai-sdk/openai-compatible') as typeof import('@ai-sdk/openai-compatible')
          ).createOpenAICompatible({
            name: 'local',
            baseURL: llm.localBaseUrl,
            apiKey: llm.localApiKey,
            includeUsage: true,
          });
          return local.chatModel(name) as LanguageModelV3;
        default:
          throw new Error(`no provider for ${modelId}`);
      }
    },
  };
}

export interface ModelTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  inputSchema: Record<string, unknown>;
}

export interface ModelCall {
  system: string;
  messages: ModelMessage[];
  tools: ModelTool[];
  maxOutputTokens?: number;
  thinkingMode: ThinkingMode;
  signal?: AbortSignal;
}

export interface ModelReply {
  text: string;
  toolCalls: Array<{ toolCallId: string; toolName: string; input: Record<string, unknown> }>;
  /** null: the provider reported no usage (unknown stays unknown). */
  inputTokens: number | null;
  outputTokens: number | null;
  /**
   * The assistant message as the provider must see it again with the tool results: its
   * reasoning parts (with their signatures) before the text and tool calls. Anthropic refuses a
   * tool-use turn with extended thinking whose thinking blocks were dropped.
   */
  assistantMessage: ModelMessage | null;
}

/** Provider options for the thinking mode; `disabled` asks for none. */
function thinkingOptions(modelId: string, mode: ThinkingMode): Record<string, Record<string, any>> | undefined {
  if (mode !== 'adaptive') return undefined;
  if (modelId.startsWith('anthropic/')) return { anthropic: { thinking: { type: 'enabled', budgetTokens: 4096 } } };
  if (modelId === 'openai/o3-mini') return { openai: { reasoningEffort: 'medium' } };
  return undefined;
}

/**
 * One model call: streamed for a hosted model, generated at once for one in this process
 * (`ModelRouter.streams`), with the same prompt, tools and reply either way. The tools carry
 * no `execute`: the turn's tool node runs them, so a call returns either text or the tool
 * calls the model asked for.
 */
export async function callModel(router: ModelRouter, modelId: string, call: ModelCall): Promise<ModelReply> {
  const model = router.languageModel(modelId);
  const { generateText, jsonSchema, streamText, tool } = aiSdk();
  const tools: ToolSet = Object.fromEntries(
    call.tools.map((t) => [
      t.name,
      tool({ description: t.description, inputSchema: jsonSchema(t.inputSchema as any) }),
    ]),
  );
  const options = {
    model,
    system: call.system,
    messages: call.messages,
    tools: call.tools.length > 0 ? tools : undefined,
    maxOutputTokens: call.maxOutputTokens,
    providerOptions: thinkingOptions(modelId, call.thinkingMode),
    abortSignal: call.signal,
    maxRetries: 0,
    experimental_telemetry: modelTelemetry('model-call', { model: modelId }),
  };
  if (!router.streams(modelId)) {
    const result = await generateText(options);
    return {
      text: result.text,
      toolCalls: result.toolCalls.map((c) => ({
        toolCallId: c.toolCallId,
        toolName: c.toolName,
        input: (c.input ?? {}) as Record<string, unknown>,
      })),
      inputTokens: result.totalUsage.inputTokens ?? null,
      outputTokens: result.totalUsage.outputTokens ?? null,
      assistantMessage: result.response.messages.find((m) => m.role === 'assistant') ?? null,
    };
  }
  // Errors arrive as `error` parts below; the SDK's default handler would print them.
  const result = streamText({ ...options, onError: () => undefined });
  let text = '';
  const toolCalls: ModelReply['toolCalls'] = [];
  let inputTokens: number | null = null;
  let outputTokens: number | null = null;
  for await (const part of result.fullStream) {
    switch (part.type) {
      case 'error':
        throw part.error instanceof Error ? part.error : new Error(String(part.error));
      case 'text-delta':
        text += part.text;
        break;
      case 'tool-call':
        toolCalls.push({
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          input: (part.input ?? {}) as Record<string, unknown>,
        });
        break;
      case 'finish':
        inputTokens = part.totalUsage.inputTokens ?? null;
        outputTokens = part.totalUsage.outputTokens ?? null;
        break;
      default:
        break;
    }
  }
  const assistantMessage = (await result.response).messages.find((m) => m.role === 'assistant') ?? null;
  return { text, toolCalls, inputTokens, outputTokens, assistantMessage };
}
