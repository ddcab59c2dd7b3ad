/**
 * USD per million tokens for each curated model (list prices at the time of writing). Cost
 * is computed by us from the usage a provider reports; a model without a price here has an
 * unknown cost (null), never 0.
 */
export interface ModelPrice {
  inputPerMillion: number;
  outputPerMillion: number;
}

export const MODEL_PRICES: Readonly<Record<string, ModelPrice>> = Object.freeze({
  'builtin/deterministic': { inputPerMillion: 0, outputPerMillion: 0 },
  'builtin/deterministic-fast': { inputPerMillion: 0, outputPerMillion: 0 },
  'openai/gpt-4.1': { inputPerMillion: 2, outputPerMillion: 8 },
  'openai/gpt-4.1-mini': { inputPerMillion: 0.4, outputPerMillion: 1.6 },
  'openai/gpt-4o': { inputPerMillion: 2.5, outputPerMillion: 10 },
  'openai/gpt-4o-mini': { inputPerMillion: 0.15, outputPerMillion: 0.6 },
  'openai/o3-mini': { inputPerMillion: 1.1, outputPerMillion: 4.4 },
  'anthropic/claude-sonnet-4-5': { inputPerMillion: 3, outputPerMillion: 15 },
  'anthropic/claude-opus-4-1': { inputPerMillion: 15, outputPerMillion: 75 },
  'anthropic/claude-haiku-4-5': { inputPerMillion: 1, outputPerMillion: 5 },
  // A self-hosted OpenAI-compatible server: the operator pays for hardware, not tokens.
  'local/llama-3.1-8b-instruct': { inputPerMillion: 0, outputPerMillion: 0 },
});

/** Cost of one call; null when the tokens or the price are unknown. */
export function costOf(modelId: string, inputTokens: number | null, outputTokens: number | null): number | null {
  const price = MODEL_PRICES[modelId];
  if (!price || inputTokens === null || outputTokens === null) return null;
  return (inputTokens * price.inputPerMillion + outputTokens * price.outputPerMillion) / 1_000_000;
}
