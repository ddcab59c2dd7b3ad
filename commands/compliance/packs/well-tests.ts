import { addMonths } from '../rules/calendar';
import { cite, CITATIONS, TEXAS_RULES, type TexasRules } from '../rules/texas-rules';
import { addDays, dateOf, type DomainPack, sourceOf, verdict } from './pack';

const yearsBetween = (from: string, to: string) =>
  Math.floor((Date.parse(to) - Date.parse(from)) / (365.25 * 86_400_000));

/**
 * Periodic well tests, due from the last test on record (moved to the next working day):
 * W-10 for oil wells and G-10 for gas wells (Statewide Rule 53) while the well produces or is
 * shut in; an inactive well older than 25 years owes the H-15 fluid-level test instead
 * (Statewide Rule 14), first due a year after it became inactive. Past due → red; due within
 * `expiresSoonDays` → amber; else green. No test, age or well type on record → grey.
 * "Filed through" properties: `last_w10_test_date`, `last_g10_test_date`, `last_h15_test_date`.
 */
export function createWellTestsPack(rules: TexasRules = TEXAS_RULES): DomainPack<null> {
  return {
    domain: 'well_tests',
    title: 'Well tests (W-10, G-10, H-15)',
    short_title: 'Tests',
    appliesTo: ['Well'],
    entityFields: [
      'status',
      'well_type',
      'spud_date',
      'completion_date',
      'inactive_since',
      'last_w10_test_date',
      'last_g10_test_date',
      'last_h15_test_date',
    ],
    async load() {
      return null;
    },
    assess(well, _facts, today) {
      const p = well.properties;
      const source = sourceOf(well);
      if (p.status === 'permitted')
        return verdict(today, {
          color: 'grey',
          reason: cite(CITATIONS.w10, 'not yet completed: no well test due'),
          facts: { source },
        });
      if (p.status === 'plugged')
        return verdict(today, {
          color: 'green',
          reason: cite(CITATIONS.w10, 'plugged: no well test due'),
          facts: { source },
        });
      const judge = (
        citation: (typeof CITATIONS)['w10' | 'g10' | 'h15'],
        form: string,
        last: string | null,
        firstDue: string | null,
        facts: Record<string, string | number | null>,
      ) => {
        const due = last
          ? rules.calendar.move(
              addMonths(
                last,
                form === 'H-15'
                  ? rules.h15IntervalMonths
                  : form === 'W-10'
                    ? rules.w10IntervalMonths
                    : rules.g10IntervalMonths,
              ),
              'next',
            )
          : firstDue;
        const all = { source, form, last_test_date: last, due_date: due, ...facts };
        const since = last ? `last ${form} test ${last}` : `no ${form} test on record`;
        if (!due)
          return verdict(today, { color: 'grey', reason: cite(citation, `${since}: due date unknown`), facts: all });
        if (due < today)
          return verdict(today, {
            color: 'red',
            dueDate: due,
            reason: cite(citation, `${since}; the next was due ${due}`),
            facts: all,
          });
        if (due <= addDays(today, rules.expiresSoonDays))
          return verdict(today, {
            color: 'amber',
            dueDate: due,
            reason: cite(citation, `${since}; the next is due ${due}`),
            facts: all,
          });
        return verdict(today, {
          color: 'green',
          dueDate: due,
          reason: cite(citation, `${since}; the next is due ${due}`),
          facts: all,
        });
      };
      if (p.status === 'inactive') {
        const born = dateOf(p.completion_date) ?? dateOf(p.spud_date);
        if (!born)
          return verdict(today, {
            color: 'grey',
            reason: cite(CITATIONS.h15, 'inactive well of unknown age: whether an H-15 test is due is unknown'),
            facts: { source },
          });
        const age = yearsBetween(born, today);
        if (age <= rules.h15MinAgeYears)
          return verdict(today, {
            color: 'green',
            reason: cite(CITATIONS.h15, `inactive well ${age} years old: no H-15 test required`),
            facts: { source, age_years: age },
          });
        const since = dateOf(p.inactive_since);
        return judge(
          CITATIONS.h15,
          'H-15',
          dateOf(p.last_h15_test_date),
          since ? rules.calendar.move(addMonths(since, rules.h15IntervalMonths), 'next') : null,
          { age_years: age, inactive_since: since },
        );
      }
      if (p.well_type === 'oil') return judge(CITATIONS.w10, 'W-10', dateOf(p.last_w10_test_date), null, {});
      if (p.well_type === 'gas') return judge(CITATIONS.g10, 'G-10', dateOf(p.last_g10_test_date), null, {});
      return verdict(today, {
        color: 'grey',
        reason: cite(CITATIONS.w10, 'well type unknown: W-10 or G-10 cannot be told'),
        facts: { source },
      });
    },
  };
}

export const wellTestsPack = createWellTestsPack();
