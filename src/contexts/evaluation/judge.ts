import { callModel, type ModelRouter } from '../../platform/infra/llm/model-router';

/**
 * Judges of expert cases (grader `llm_judge`: judged against
 * `expected_output`). The builtin judge is deterministic: token-overlap F1 between the
 * replayed answer and the expected output (lower-cased words and numbers, identifiers such as
 * API numbers kept whole), with a rationale naming what is missing. Verdicts are advisory.
 */
export interface JudgeVerdict {
  score: number;
  rationale: string;
}

export interface Judge {
  name: string;
  grade(expected: string, actual: string): Promise<JudgeVerdict>;
}

const TOKEN = /[\p{L}\p{N}]+(?:[-./][\p{L}\p{N}]+)*/gu;

export function tokensOf(text: string): string[] {
  return (text.toLowerCase().match(TOKEN) ?? []).filter((t) => t.length > 1 || /\d/.test(t));
}

function counts(tokens: string[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const t of tokens) map.set(t, (map.get(t) ?? 0) + 1);
  return map;
}

export function tokenOverlap(
  expected: string,
  actual: string,
): { f1: number; precision: number; recall: number; missing: string[] } {
  const want = tokensOf(expected);
  const got = tokensOf(actual);
  if (want.length === 0 && got.length === 0) return { f1: 1, precision: 1, recall: 1, missing: [] };
  if (want.length === 0 || got.length === 0) return { f1: 0, precision: 0, recall: 0, missing: [...new Set(want)] };
  const have = counts(got);
  let common = 0;
  const missing: string[] = [];
  for (const [token, n] of counts(want)) {
    const m = Math.min(n, have.get(token) ?? 0);
    common += m;
    if (m === 0) missing.push(token);
  }
  const precision = common / got.length;
  const recall = common / want.length;
  const f1 = common === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { f1, precision, recall, missing };
}

const round = (n: number) => Math.round(n * 1000) / 1000;

export const tokenOverlapJudge: Judge = {
  name: 'builtin/token-overlap',
  async grade(expected, actual) {
    const { f1, precision, recall, missing } = tokenOverlap(expected, actual);
    const shown = missing.slice(0, 12).join(', ');
    const rationale =
      `token-overlap F1 ${round(f1)} (precision ${round(precision)}, recall ${round(recall)})` +
      (missing.length
        ? `; expected but absent: ${shown}${missing.length > 12 ? ` and ${missing.length - 12} more` : ''}`
        : '; every expected token present');
    return { score: round(f1), rationale };
  },
};

/**
 * A model as the judge (`--judge-model`): it reads the expected output and the replayed
 * answer and replies with `{"score": 0..1, "rationale": "…"}`. An answer that is not that
 * JSON throws, and the runner records the case as degraded with the reason.
 */
export function modelJudge(router: ModelRouter, modelId: string, options: { call?: typeof callModel } = {}): Judge {
  const call = options.call ?? callModel;
  return {
    name: modelId,
    async grade(expected, actual) {
      const reply = await call(router, modelId, {
        system: JUDGE_PROMPT,
        messages: [
          { role: 'user', content: `Expected output (from the expert):\n${expected}\n\nAnswer to grade:\n${actual}` },
        ],
        tools: [],
        maxOutputTokens: 400,
        thinkingMode: 'disabled',
        signal: AbortSignal.timeout(60_000),
      });
      return parseJudgeReply(reply.text);
    },
  };
}

export const JUDGE_PROMPT =
  "You grade an AI assistant's answer for an oil-and-gas compliance team against the expected output an expert wrote. " +
  'Score 1 when the answer says what the expected output says (same facts, forms, numbers and obligations; wording may differ), ' +
  '0 when it contradicts or misses it, in between for partial agreement. Reply with JSON only: {"score": <number from 0 to 1>, "rationale": "<one or two sentences>"}.';

export function parseJudgeReply(text: string): JudgeVerdict {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end < start) throw new Error(`the judge did not answer with JSON: ${text.slice(0, 200)}`);
  let parsed: { score?: unknown; rationale?: unknown };
  try {
    parsed = JSON.parse(text.slice(start, end + 1));
  } catch {
    throw new Error(`the judge's JSON could not be read: ${text.slice(0, 200)}`);
  }
  const score = typeof parsed.score === 'string' ? Number(parsed.score) : parsed.score;
  if (typeof score !== 'number' || !Number.isFinite(score) || score < 0 || score > 1)
    throw new Error(`the judge's score is not a number from 0 to 1: ${JSON.stringify(parsed.score)}`);
  return {
    score: Math.round(score * 1000) / 1000,
    rationale: typeof parsed.rationale === 'string' ? parsed.rationale : '',
  };
}
