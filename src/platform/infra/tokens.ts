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
  if (text.length < MEMO_MIN_CHARS || text.length > MEMO_MAX_CHARS) return encode(text).length;
  let count = counted.get(text);
  if (count === undefined) {
    count = encode(text).length;
    counted.set(text, count);
    memoChars += text.length;
    for (const oldest of counted.keys()) {
      if (memoChars <= MEMO_BUDGET_CHARS) break;
      counted.delete(oldest);
      memoChars -= oldest.length;
    }
  }
  return count;
}

/**
 * Counts of texts a turn measures again and again (the system prompt and the tool list at
 * every model call, a conversation's history on every turn): a lookup by the text costs a
 * hash of it, the count a pass of the BPE over it (6 % of a turn's CPU before). Bounded by
 * the characters kept (about 4 MB): the oldest count leaves first; a very long text (an
 * upload, counted once) is not kept.
 */
const counted = new Map<string, number>();
let memoChars = 0;
const MEMO_MIN_CHARS = 256;
const MEMO_MAX_CHARS = 32_768;
const MEMO_BUDGET_CHARS = 2_000_000;

/** Keeps the head of `text` within `maxTokens`; `truncated` says whether the tail was cut. */
export function truncateToTokens(
  text: string,
  maxTokens: number,
): { text: string; tokens: number; truncated: boolean } {
  const tokens = encode(text);
  if (tokens.length <= maxTokens) return { text, tokens: tokens.length, truncated: false };
  return { text: decode(tokens.slice(0, maxTokens)), tokens: maxTokens, truncated: true };
}
