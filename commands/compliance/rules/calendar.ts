import { addDays, lastDayOfMonth } from '../../../src/platform/dates';

export { addDays, addMonths, daysInMonth, lastDayOfMonth, nextMonth } from '../../../src/platform/dates';

/**
 * The regulator's working-day calendar. The Railroad Commission is a Texas state agency: its
 * offices close on Saturdays, Sundays and the holidays of Texas Government Code §662.003 on
 * which state offices close — the national holidays of §662.003(a) and the day after
 * Thanksgiving, Christmas Eve and the day after Christmas of §662.003(b). The other state
 * holidays (Confederate Heroes Day, Texas Independence Day, San Jacinto Day, Emancipation Day,
 * LBJ Day) are skeleton-crew days: offices stay open, so they are working days unless a
 * calendar is configured with `staffedHolidaysClosed`. Texas does not move a holiday that falls
 * on a weekend to the Friday or Monday.
 */
export type HolidayKind = 'national' | 'state_closed' | 'state_staffed';

export interface Holiday {
  date: string;
  name: string;
  kind: HolidayKind;
}

export interface CalendarOptions {
  /** Treat the skeleton-crew state holidays as non-working days too. */
  staffedHolidaysClosed?: boolean;
  /** Extra closure days (YYYY-MM-DD), e.g. an emergency closure the regulator announced. */
  extraClosures?: readonly string[];
}

const iso = (y: number, m1: number, d: number) => new Date(Date.UTC(y, m1 - 1, d)).toISOString().slice(0, 10);

/** The `n`th (1-based; -1 = last) weekday `dow` (0 Sunday) of a month. */
function nthWeekday(y: number, m1: number, dow: number, n: number): string {
  if (n > 0) {
    const first = new Date(Date.UTC(y, m1 - 1, 1)).getUTCDay();
    return iso(y, m1, 1 + ((dow - first + 7) % 7) + (n - 1) * 7);
  }
  const lastDay = new Date(Date.UTC(y, m1, 0));
  return iso(y, m1, lastDay.getUTCDate() - ((lastDay.getUTCDay() - dow + 7) % 7));
}

/** The Texas state holidays of a year (Government Code §662.003). */
export function texasHolidays(year: number): Holiday[] {
  const thanksgiving = nthWeekday(year, 11, 4, 4);
  return [
    { date: iso(year, 1, 1), name: "New Year's Day", kind: 'national' },
    { date: nthWeekday(year, 1, 1, 3), name: 'Martin Luther King, Jr., Day', kind: 'national' },
    { date: iso(year, 1, 19), name: 'Confederate Heroes Day', kind: 'state_staffed' },
    { date: nthWeekday(year, 2, 1, 3), name: "Presidents' Day", kind: 'national' },
    { date: iso(year, 3, 2), name: 'Texas Independence Day', kind: 'state_staffed' },
    { date: iso(year, 4, 21), name: 'San Jacinto Day', kind: 'state_staffed' },
    { date: nthWeekday(year, 5, 1, -1), name: 'Memorial Day', kind: 'national' },
    { date: iso(year, 6, 19), name: 'Emancipation Day in Texas', kind: 'state_staffed' },
    { date: iso(year, 7, 4), name: 'Independence Day', kind: 'national' },
    { date: iso(year, 8, 27), name: 'Lyndon Baines Johnson Day', kind: 'state_staffed' },
    { date: nthWeekday(year, 9, 1, 1), name: 'Labor Day', kind: 'national' },
    { date: iso(year, 11, 11), name: 'Veterans Day', kind: 'national' },
    { date: thanksgiving, name: 'Thanksgiving Day', kind: 'national' },
    { date: addDays(thanksgiving, 1), name: 'Day after Thanksgiving', kind: 'state_closed' },
    { date: iso(year, 12, 24), name: 'Christmas Eve', kind: 'state_closed' },
    { date: iso(year, 12, 25), name: 'Christmas Day', kind: 'national' },
    { date: iso(year, 12, 26), name: 'Day after Christmas', kind: 'state_closed' },
  ];
}

export interface WorkingDayCalendar {
  isWorkingDay(date: string): boolean;
  /** Why a date is not a working day ('Saturday', 'Christmas Day'…), or null. */
  closure(date: string): string | null;
  /** A due date that falls on a non-working day moves to the previous or the next working day. */
  move(date: string, direction: 'previous' | 'next'): string;
  /** The last working day of a month (YYYY-MM). */
  lastWorkingDayOfMonth(month: string): string;
  /** What it was built with: part of the rules version of the packs that use it. */
  readonly options: CalendarOptions;
}

export function workingDayCalendar(options: CalendarOptions = {}): WorkingDayCalendar {
  const byYear = new Map<number, Map<string, string>>();
  const extra = new Set(options.extraClosures ?? []);
  const closedOn = (year: number) => {
    let days = byYear.get(year);
    if (!days) {
      days = new Map(
        texasHolidays(year)
          .filter((h) => h.kind !== 'state_staffed' || options.staffedHolidaysClosed)
          .map((h) => [h.date, h.name]),
      );
      byYear.set(year, days);
    }
    return days;
  };
  const closure = (date: string): string | null => {
    const dow = new Date(Date.parse(date)).getUTCDay();
    if (dow === 0) return 'Sunday';
    if (dow === 6) return 'Saturday';
    if (extra.has(date)) return 'announced closure';
    return closedOn(Number(date.slice(0, 4))).get(date) ?? null;
  };
  const move = (date: string, direction: 'previous' | 'next') => {
    let d = date.slice(0, 10);
    while (closure(d) !== null) d = addDays(d, direction === 'next' ? 1 : -1);
    return d;
  };
  return {
    isWorkingDay: (date) => closure(date.slice(0, 10)) === null,
    closure: (date) => closure(date.slice(0, 10)),
    move,
    lastWorkingDayOfMonth: (month) => move(lastDayOfMonth(month), 'previous'),
    options,
  };
}
