/**
 * Judges of expert cases (spec 2 §eval run: grader `llm_judge`, judge against
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

export function tokenOverlap(expected: string, actual: string): { f1: number; precision: number; recall: number; missing: string[] } {
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
    const rationale = `token-overlap F1 ${round(f1)} (precision ${round(precision)}, recall ${round(recall)})` + (missing.length ? `; expected but absent: ${shown}${missing.length > 12 ? ` and ${missing.length - 12} more` : ''}` : '; every expected token present');
    return { score: round(f1), rationale };
  },
};
