/**
 * Pins (grader `pin_check`): a turn the expert approved without giving an
 * expected output pins its shape. The replay must end the way the frozen turn ended, answer
 * something, and call the same tools and load the same skills (as sets: order and repeats
 * may change). Each broken assertion is one violation.
 */
export interface TurnShape {
  status: string;
  answer: string;
  toolNames: string[];
  skills: string[];
}

const set = (items: string[]) => [...new Set(items)].sort();
const same = (a: string[], b: string[]) => JSON.stringify(set(a)) === JSON.stringify(set(b));

export function shapeViolations(frozen: TurnShape, replay: TurnShape): string[] {
  const violations: string[] = [];
  if (replay.status !== frozen.status) violations.push(`status: expected ${frozen.status}, got ${replay.status}`);
  if (replay.answer.trim() === '') violations.push('answer: the replay produced no answer');
  if (!same(frozen.toolNames, replay.toolNames))
    violations.push(`tools: expected [${set(frozen.toolNames).join(', ')}], got [${set(replay.toolNames).join(', ')}]`);
  if (!same(frozen.skills, replay.skills))
    violations.push(`skills: expected [${set(frozen.skills).join(', ')}], got [${set(replay.skills).join(', ')}]`);
  return violations;
}
