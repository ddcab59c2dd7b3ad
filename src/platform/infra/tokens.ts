import type * as Tokenizer from 'gpt-tokenizer';

// The tokenizer's BPE ranks cost ~60 MB of RSS once loaded: they load with the first count
// (a turn, a prompt render, an upload), not at boot.
let tokenizer: typeof Tokenizer | null = null;
const loaded = () => (tokenizer ??= require('gpt-tokenizer') as typeof Tokenizer);

// User text may contain special-token spellings such as "<|endoftext|>"; they are counted
// as ordinary text (gpt-tokenizer throws on them by default).
const encode = (text: string) => loaded().encode(text, { disallowedSpecial: new Set() });
const decode = (tokens: number[]) => loaded().decode(tokens);

/**
 * Token counts with a real BPE tokenizer (cl100k-family via gpt-tokenizer): budgets,
 * attachment truncation and context backstops all measure with this one function.
 */
export function countTokens(text: string): number {
  return encode(text).length;
}

/** Keeps the head of `text` within `maxTokens`; `truncated` says whether the tail was cut. */
export function truncateToTokens(text: string, maxTokens: number): { text: string; tokens: number; truncated: boolean } {
  const tokens = encode(text);
  if (tokens.length <= maxTokens) return { text, tokens: tokens.length, truncated: false };
  return { text: decode(tokens.slice(0, maxTokens)), tokens: maxTokens, truncated: true };
}
