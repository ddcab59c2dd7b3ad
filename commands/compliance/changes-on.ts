import type { Verdict } from './packs/pack';

/**
 * When a verdict changes without new facts. A pack's `assess` is pure in the entity's facts and
 * the day, so the verdict of day D stays the verdict of every later day up to the first day
 * its evaluator answers otherwise: a due date passing, an expiry, a 30- or 7-day window
 * opening, a month rolling over to the next period owed, a working-day deadline moved by the
 * calendar. `changesOn` finds that day by asking the evaluator itself, so no rule has to
 * describe its dates twice: it probes the days a rule's dates make likely (each date the
 * verdict names or reads, and the day after, and the days the windows open before it), the
 * next two month starts, tomorrow and a few sparse days up to a year and a half ahead (each
 * probe is one call of the evaluator, for every verdict of a whole run); between the last
 * probe with the same verdict and the first with another, it halves down to the day. The
 * answer is that day (or null: no change within the horizon), the same whatever day between
 * the judgement and the change asks, so a verdict judged earlier and one judged today agree.
 */

/** Days before a date at which a rule's window opens by default (the buckets: 30 and 7 days). */
export const DEFAULT_WINDOWS: readonly number[] = [30, 7];

/** The farthest probe, in days: past it a verdict is taken as standing until its facts change. */
const HORIZON_DAYS = 548;
/** Days ahead always probed: tomorrow (a verdict that changes daily), then sparse steps for a change no date names. */
const STEPS = [1, 32, 128, 365, 548];
const DAY = /^\d{4}-\d{2}-\d{2}/;
const MONTH = /^\d{4}-\d{2}$/;

function sameVerdict(a: Verdict | null, b: Verdict | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.color !== b.color || a.bucket !== b.bucket || a.dueDate !== b.dueDate || a.anomaly !== b.anomaly) return false;
  if (a.reason !== b.reason) return false;
  const keys = Object.keys(a.facts);
  if (keys.length !== Object.keys(b.facts).length) return false;
  for (const key of keys) if (a.facts[key] !== b.facts[key]) return false;
  return true;
}

const DAY_MS = 86_400_000;
/** Dates as whole days since the epoch: a verdict of a whole run is probed a dozen times, string arithmetic cost more than the evaluator. */
const dayOf = (date: string) =>
  Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) / DAY_MS;
const isoOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
/** The first day of the month `ahead` months after `month` (YYYY-MM). */
const monthStart = (month: string, ahead: number) =>
  Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)) - 1 + ahead, 1) / DAY_MS;

/** The probes for a verdict judged on `today`: after it, within the horizon, ascending. */
function probes(today: number, verdict: Verdict, read: Iterable<unknown>, windows: readonly number[]): number[] {
  const out = new Set<number>();
  const around = (day: number) => {
    out.add(day);
    out.add(day + 1);
    for (const w of windows) {
      out.add(day - w);
      out.add(day + 1 - w);
    }
  };
  const consider = (value: unknown) => {
    if (typeof value !== 'string') return;
    if (DAY.test(value)) around(dayOf(value));
    else if (MONTH.test(value)) {
      around(monthStart(value, 1));
      around(monthStart(value, 2));
    }
  };
  if (verdict.dueDate) around(dayOf(verdict.dueDate));
  for (const value of Object.values(verdict.facts)) consider(value);
  for (const value of read) if (typeof value === 'string' && value.length <= 10) consider(value);
  const month = isoOf(today).slice(0, 7);
  out.add(monthStart(month, 1));
  out.add(monthStart(month, 2));
  for (const d of STEPS) out.add(today + d);
  const horizon = today + HORIZON_DAYS;
  return [...out].filter((d) => d > today && d <= horizon).sort((a, b) => a - b);
}

/**
 * The first day after `today` whose verdict differs from `verdict` (judged on `today`), or
 * null when none does within the horizon. `judge` is the pack's evaluator on the same facts.
 */
export function changesOn(
  judge: (day: string) => Verdict | null,
  today: string,
  verdict: Verdict,
  read: Iterable<unknown> = [],
  windows: readonly number[] = DEFAULT_WINDOWS,
): string | null {
  let same = dayOf(today);
  for (const day of probes(same, verdict, read, windows)) {
    if (sameVerdict(judge(isoOf(day)), verdict)) {
      same = day;
      continue;
    }
    // The verdict holds on `same` and not on `day`: the first day it does not, by halving.
    let other = day;
    while (other - same > 1) {
      const middle = same + Math.floor((other - same) / 2);
      if (sameVerdict(judge(isoOf(middle)), verdict)) same = middle;
      else other = middle;
    }
    return isoOf(other);
  }
  return null;
}
