import { type CalendarOptions, workingDayCalendar, type WorkingDayCalendar } from './calendar';

/**
 * The Texas domain pack's configuration: the deadlines not confirmed from the regulator's
 * own text (marked (?) in docs/compliance.md) and the windows the dashboard warns in. A tenant whose counsel reads a
 * rule differently installs the packs with another configuration; nothing here is a literal in
 * a rule function.
 */
export interface TexasRules {
  calendar: WorkingDayCalendar;
  /** An authorization or permit expiring within this many days of today is amber. */
  expiresSoonDays: number;
  /** A filing due within this many days is amber. */
  dueSoonDays: number;
  /** W-1 validity when the permit carries no expiration date (?): two years. */
  w1ValidDays: number;
  /** Rule 32 administrative exception: the longest term without a hearing (?). */
  r32AdministrativeMaxDays: number;
  /** Rule 32: volumes up to this many mcf/d may be approved without an end date (?). */
  r32NoEndDateMaxMcfPerDay: number;
  /** Rule 14: months without production after which a well is inactive, and plugging falls due a year later. */
  inactiveAfterMonths: number;
  pluggingDueMonths: number;
  /** Well tests: months between W-10 (oil), G-10 (gas) and H-15 tests (?, annual by default). */
  w10IntervalMonths: number;
  g10IntervalMonths: number;
  h15IntervalMonths: number;
  /** H-15 applies to inactive wells older than this many years. */
  h15MinAgeYears: number;
  /** Completion reports (W-2/G-1): days after completion, or after drilling ended, whichever is earlier. */
  completionReportDays: number;
  completionReportAfterDrillingDays: number;
  /** P-5 renewal: a renewal blocked by Rule 15 is red this many days before the renewal date. */
  p5BlockedRedDays: number;
}

export const texasRules = (
  calendar: CalendarOptions = {},
  overrides: Partial<Omit<TexasRules, 'calendar'>> = {},
): TexasRules => ({
  calendar: workingDayCalendar(calendar),
  expiresSoonDays: 30,
  dueSoonDays: 7,
  w1ValidDays: 730,
  r32AdministrativeMaxDays: 180,
  r32NoEndDateMaxMcfPerDay: 50,
  inactiveAfterMonths: 12,
  pluggingDueMonths: 12,
  w10IntervalMonths: 12,
  g10IntervalMonths: 12,
  h15IntervalMonths: 12,
  h15MinAgeYears: 25,
  completionReportDays: 90,
  completionReportAfterDrillingDays: 150,
  p5BlockedRedDays: 30,
  ...overrides,
});

export const TEXAS_RULES = texasRules();

/** How every verdict names the rule it applies (16 TAC chapter 3, the Statewide Rules). */
export const CITATIONS = {
  rule_1: '16 TAC §3.1 (Statewide Rule 1, P-5 organization report)',
  rule_5: '16 TAC §3.5 (Statewide Rule 5, W-1 drilling permit)',
  rule_14: '16 TAC §3.14 (Statewide Rule 14, plugging)',
  rule_15: '16 TAC §3.15 (Statewide Rule 15, inactive wells)',
  rule_16: '16 TAC §3.16 (Statewide Rule 16, W-2/G-1 completion reports)',
  rule_32: '16 TAC §3.32 (Statewide Rule 32)',
  rule_37: '16 TAC §3.37 (Statewide Rule 37)',
  rule_58: '16 TAC §3.58 (Statewide Rule 58, Form PR)',
  w10: '16 TAC §3.53 (Statewide Rule 53, W-10 oil well status report)',
  g10: '16 TAC §3.53 (Statewide Rule 53, G-10 gas well status report)',
  h15: '16 TAC §3.14 (Statewide Rule 14, H-15 fluid level test of inactive wells over 25 years)',
} as const;
export type Citation = (typeof CITATIONS)[keyof typeof CITATIONS];

/** `16 TAC §3.32 (Statewide Rule 32): <what>` */
export const cite = (citation: Citation, what: string) => `${citation}: ${what}`;
