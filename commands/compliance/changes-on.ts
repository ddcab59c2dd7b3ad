import { addDays, nextMonth } from '../../src/platform/dates';
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

const daysBetween = (from: string, to: string) => Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000);

/** The probes for a verdict judged on `today`: after it, within the horizon, ascending. */
function probes(today: string, verdict: Verdict, read: Iterable<unknown>, windows: readonly number[]): string[] {
  const out = new Set<string>();
  const around = (date: string) => {
    out.add(date);
    out.add(addDays(date, 1));
    for (const w of windows) {
      out.add(addDays(date, -w));
      out.add(addDays(date, 1 - w));
    }
  };
  const consider = (value: unknown) => {
    if (typeof value !== 'string') return;
    if (DAY.test(value)) around(value.slice(0, 10));
    else if (MONTH.test(value)) {
      around(`${nextMonth(value)}-01`);
      around(`${nextMonth(nextMonth(value))}-01`);
    }
  };
  if (verdict.dueDate) around(verdict.dueDate);
  for (const value of Object.values(verdict.facts)) consider(value);
  for (const value of read) if (typeof value === 'string' && value.length <= 10) consider(value);
  const month = today.slice(0, 7);
  out.add(`${nextMonth(month)}-01`);
  out.add(`${nextMonth(nextMonth(month))}-01`);
  for (const d of STEPS) out.add(addDays(today, d));
  const horizon = addDays(today, HORIZON_DAYS);
  return [...out].filter((d) => d > today && d <= horizon).sort();
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
  let same = today;
  for (const day of probes(today, verdict, read, windows)) {
    if (sameVerdict(judge(day), verdict)) {
      same = day;
      continue;
    }
    // The verdict holds on `same` and not on `day`: the first day it does not, by halving.
    let other = day;
    while (daysBetween(same, other) > 1) {
      const middle = addDays(same, Math.floor(daysBetween(same, other) / 2));
      if (sameVerdict(judge(middle), verdict)) same = middle;
      else other = middle;
    }
    return other;
  }
  return null;
}
