/**
 * The curated model list: the only ids a tenant may pick for
 * `default_model` / `fallback_model`, and the only values DEFAULT_LLM_MODEL may take. The
 * `builtin/*` models are deterministic and offline (demos, tests, air-gapped installs).
 * Every field is a string, as the spec's model option shape says.
 */
export interface ModelOption {
  id: string;
  label: string;
  provider: string;
  context_window: string;
  notes: string;
}

export const MODEL_OPTIONS: readonly ModelOption[] = Object.freeze([
  {
    id: 'builtin/deterministic',
    label: 'Built-in deterministic model',
    provider: 'builtin',
    context_window: '128000',
    notes:
      'Offline and reproducible: the same prompt always gives the same answer. For demos, tests and installations without a model provider. Costs nothing.',
  },
  {
    id: 'builtin/deterministic-fast',
    label: 'Built-in deterministic model (short answers)',
    provider: 'builtin',
    context_window: '32000',
    notes: 'Offline and reproducible, answers kept short. Useful as a fallback model in tests.',
  },
  {
    id: 'openai/gpt-4.1',
    label: 'GPT-4.1',
    provider: 'openai',
    context_window: '1047576',
    notes: 'Strong general model with a very long context; good for large regulatory documents.',
  },
  {
    id: 'openai/gpt-4.1-mini',
    label: 'GPT-4.1 mini',
    provider: 'openai',
    context_window: '1047576',
    notes: 'Cheaper and faster than GPT-4.1; a sensible fallback model.',
  },
  {
    id: 'openai/gpt-4o',
    label: 'GPT-4o',
    provider: 'openai',
    context_window: '128000',
    notes: 'General-purpose multimodal model.',
  },
  {
    id: 'openai/gpt-4o-mini',
    label: 'GPT-4o mini',
    provider: 'openai',
    context_window: '128000',
    notes: 'Low-cost model for simple extraction and classification turns.',
  },
  {
    id: 'openai/o3-mini',
    label: 'o3-mini',
    provider: 'openai',
    context_window: '200000',
    notes: 'Reasoning model; honours the thinking-mode ceiling.',
  },
  {
    id: 'anthropic/claude-sonnet-4-5',
    label: 'Claude Sonnet 4.5',
    provider: 'anthropic',
    context_window: '200000',
    notes: 'Strong agentic and tool-use model; supports adaptive thinking.',
  },
  {
    id: 'anthropic/claude-opus-4-1',
    label: 'Claude Opus 4.1',
    provider: 'anthropic',
    context_window: '200000',
    notes: 'Most capable Anthropic model; highest cost per token.',
  },
  {
    id: 'anthropic/claude-haiku-4-5',
    label: 'Claude Haiku 4.5',
    provider: 'anthropic',
    context_window: '200000',
    notes: 'Fast, low-cost model; a sensible fallback model.',
  },
  {
    id: 'local/llama-3.1-8b-instruct',
    label: 'Self-hosted Llama 3.1 8B Instruct (OpenAI-compatible)',
    provider: 'local',
    context_window: '128000',
    notes:
      'Served by any OpenAI-compatible endpoint (vLLM, Ollama, LM Studio) at LOCAL_LLM_BASE_URL; data stays on site.',
  },
] satisfies ModelOption[]);

export const MODEL_IDS: readonly string[] = Object.freeze(MODEL_OPTIONS.map((m) => m.id));

export const DEFAULT_MODEL_ID = 'builtin/deterministic';

export function isModelId(value: string): boolean {
  return MODEL_IDS.includes(value);
}
