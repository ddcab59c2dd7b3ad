import { expect } from 'chai';
import type { Neighbor } from '../../../queries/compliance/graph-facts';
import { assessFormPrItem } from '../../../commands/checklists/assessment/form-pr';
import { ItemFrames } from '../../../commands/checklists/assessment/frames';
import { assessOtherItem, type OtherSubjects } from '../../../commands/checklists/assessment/other-forms';
import { recordVerdict } from '../../../commands/checklists/assessment/rule-verdicts';
import { drillingPack } from '../../../commands/compliance/packs/drilling';
import { inactiveWellsPack } from '../../../commands/compliance/packs/inactive-wells';
import { operatorsPack } from '../../../commands/compliance/packs/operators';
import type { AssessedVertex, DomainPack } from '../../../commands/compliance/packs/pack';
import { productionPack, type ProductionFacts } from '../../../commands/compliance/packs/production';
import { rule32Pack } from '../../../commands/compliance/packs/rule-32';
import { rule37Pack } from '../../../commands/compliance/packs/rule-37';
import { wellTestsPack } from '../../../commands/compliance/packs/well-tests';
import {
  authorization,
  entity,
  formPrContext,
  keyed,
  leaseFacts,
  neighbor,
  NO_LEASE,
  wellFacts,
} from '../../support/rule-fixtures';

/**
 * The golden table: facts + period + today → the color and reason a regulator would
 * accept, each row citing the rule it encodes. Every row runs through the dashboard evaluator
 * (the pack's `assess`, which judges the latest reported period or the report owed) and through
 * the checklist evaluator (the checklist item that judges the rule for the checklist's period);
 * both must give the row's color and the very same reason, naming the rule.
 */
interface Row {
  name: string;
  cites: string;
  pack: DomainPack<any>;
  subject: AssessedVertex;
  facts: unknown;
  period?: string;
  today: string;
  color: 'green' | 'amber' | 'red' | 'grey' | 'blue';
  reason: string;
  dueDate?: string | null;
  /** Extra Form PR wells (a lease's), for the checklist's Rule 32 subjects. */
  wells?: AssessedVertex[];
}

const TODAY = '2026-03-10';
const R32 = '16 TAC §3.32 (Statewide Rule 32)';
const R58 = '16 TAC §3.58 (Statewide Rule 58, Form PR)';
const R37 = '16 TAC §3.37 (Statewide Rule 37)';
const R5 = '16 TAC §3.5 (Statewide Rule 5, W-1 drilling permit)';
const R15 = '16 TAC §3.15 (Statewide Rule 15, inactive wells)';
const R53W = '16 TAC §3.53 (Statewide Rule 53, W-10 oil well status report)';
const R53G = '16 TAC §3.53 (Statewide Rule 53, G-10 gas well status report)';
const R14H = '16 TAC §3.14 (Statewide Rule 14, H-15 fluid level test of inactive wells over 25 years)';
const R1 = '16 TAC §3.1 (Statewide Rule 1, P-5 organization report)';

const API = '42-329-30001';
const flaringWell = (month: string, props: Record<string, string | number> = {}) =>
  entity('Well', API, {
    status: 'producing',
    well_type: 'oil',
    form_pr_period: month,
    production_oil_bbls: 3000,
    production_gas_mcf: 9000,
    gas_sold_mcf: 8000,
    producing_days: 30,
    ...props,
  });
const r32 = (
  name: string,
  cites: string,
  month: string,
  props: Record<string, string | number>,
  auths: Neighbor[],
  today: string,
  color: Row['color'],
  reason: string,
): Row => {
  const subject = flaringWell(month, props);
  return {
    name,
    cites,
    pack: rule32Pack,
    subject,
    facts: { authorizations: keyed(subject, auths) },
    period: month,
    today,
    color,
    reason,
  };
};

const history = (...months: Array<[string, number, number]>) =>
  JSON.stringify(months.map(([period, oil_bbls, gas_mcf]) => ({ period, oil_bbls, gas_mcf })));
const prWell = (id: string, props: Record<string, string | number> = {}) =>
  entity('Well', id, {
    status: 'producing',
    well_type: 'oil',
    form_pr_period: '2026-01',
    production_oil_bbls: 3000,
    production_gas_mcf: 9000,
    history: '',
    production_history_12m: history(['2026-02', 2900, 8800]),
    ...props,
  });
const pr = (
  name: string,
  cites: string,
  subject: AssessedVertex,
  facts: ProductionFacts,
  period: string,
  today: string,
  color: Row['color'],
  reason: string,
  extra: Partial<Row> = {},
): Row => ({ name, cites, pack: productionPack, subject, facts, period, today, color, reason, ...extra });
const lease = (props: Record<string, string | number> = {}) =>
  entity('Lease', 'O-08-12345', { oil_gas_code: 'O', allocation_method: 'lease_test', name: 'JONES 97', ...props });

const w1 = (issued: string, expires: string | null) =>
  neighbor('Permit', 'W1-800001', {
    form: 'W-1',
    type: 'W-1 drilling permit',
    issued_date: issued,
    ...(expires ? { expiration_date: expires } : {}),
    status: 'approved',
  });
const drill = (
  name: string,
  cites: string,
  props: Record<string, string | number>,
  permits: Neighbor[],
  color: Row['color'],
  reason: string,
  today = TODAY,
): Row => {
  const subject = entity('Well', API, { status: 'producing', ...props });
  return {
    name,
    cites,
    pack: drillingPack,
    subject,
    facts: { permits: keyed(subject, permits) },
    today,
    color,
    reason,
  };
};

const offset = (ft: number, sameHorizon = 'true') =>
  neighbor('Well', '42-329-30002', {}, { distance_ft: String(ft), same_horizon: sameHorizon });
const r37exception = neighbor('Permit', 'R37-1', { type: 'Rule 37 exception', status: 'approved' });
const spacing = (
  name: string,
  props: Record<string, string | number>,
  offsets: Neighbor[],
  permits: Neighbor[],
  color: Row['color'],
  reason: string,
): Row => {
  const subject = entity('Well', API, { status: 'producing', ...props });
  return {
    name,
    cites: R37,
    pack: rule37Pack,
    subject,
    facts: { offsets: keyed(subject, offsets), permits: keyed(subject, permits) },
    today: TODAY,
    color,
    reason,
  };
};

const w3x = (expires: string) =>
  neighbor('Permit', 'W3X-1', {
    form: 'W-3X',
    type: 'W-3X plugging extension',
    status: 'approved',
    expiration_date: expires,
  });
const h15Deadline = (date: string) =>
  neighbor('ComplianceDeadline', 'DL-H15-1', {
    deadline_date: date,
    type: 'H-15 fluid level test',
    form: 'H-15',
    status: 'open',
  });
const inactive = (
  name: string,
  props: Record<string, string | number>,
  deadlines: Neighbor[],
  permits: Neighbor[],
  color: Row['color'],
  reason: string,
): Row => {
  const subject = entity('Well', API, { status: 'inactive', ...props });
  return {
    name,
    cites: R15,
    pack: inactiveWellsPack,
    subject,
    facts: { deadlines: keyed(subject, deadlines), permits: keyed(subject, permits) },
    today: TODAY,
    color,
    reason,
  };
};

const tests = (
  name: string,
  cites: string,
  props: Record<string, string | number>,
  color: Row['color'],
  reason: string,
  today = TODAY,
  dueDate?: string,
): Row => ({
  name,
  cites,
  pack: wellTestsPack,
  subject: entity('Well', API, { status: 'producing', ...props }),
  facts: null,
  today,
  color,
  reason,
  ...(dueDate ? { dueDate } : {}),
});

const operator = (props: Record<string, string | number>) =>
  entity('Operator', 'P5-123456', { name: 'PECOS BASIN LLC', p5_number: '123456', p5_status: 'active', ...props });
const idleWell = neighbor('Well', '42-329-39999', { status: 'inactive', inactive_since: '2024-06-01' });
const p5 = (
  name: string,
  props: Record<string, string | number>,
  blocking: boolean,
  color: Row['color'],
  reason: string,
): Row => {
  const subject = operator(props);
  const facts = blocking
    ? { wells: keyed(subject, [idleWell]), inactive: { deadlines: new Map(), permits: new Map() } }
    : { wells: new Map(), inactive: { deadlines: new Map(), permits: new Map() } };
  return { name, cites: R1, pack: operatorsPack, subject, facts, today: TODAY, color, reason };
};

const ROWS: Row[] = [
  // Rule 32: judged on the month the gas was flared, against the authorizations in force during that month.
  r32(
    'no gas flared or vented in the month is compliant',
    R32,
    '2026-02',
    { gas_flared_mcf: 0, gas_vented_mcf: 0 },
    [],
    TODAY,
    'green',
    'no gas flared or vented in 2026-02',
  ),
  r32(
    'flaring without any authorization is a violation',
    R32,
    '2026-02',
    { gas_flared_mcf: 900 },
    [],
    TODAY,
    'red',
    'without a Rule 32 authorization',
  ),
  r32(
    '100 mcf/d flared ten months ago under a 250 mcf/d authorization that expired later is compliant for that month',
    R32,
    '2025-05',
    { gas_flared_mcf: 3100, producing_days: 31 },
    [authorization('R32-1', 250, '2025-12-31')],
    TODAY,
    'green',
    'within the 250 mcf/d authorized under R32-1',
  ),
  r32(
    'an authorization that expired 40 days ago but covered the month is no "expires soon" warning',
    R32,
    '2026-01',
    { gas_flared_mcf: 900 },
    [authorization('R32-1', 500, '2026-01-31')],
    TODAY,
    'green',
    'within the 500 mcf/d authorized under R32-1',
  ),
  r32(
    'flaring after the authorization expired is a violation',
    R32,
    '2026-02',
    { gas_flared_mcf: 900 },
    [authorization('R32-1', 500, '2026-01-15')],
    TODAY,
    'red',
    'flaring after authorization R32-1 expired on 2026-01-15',
  ),
  r32(
    'an authorization that lapsed during the month does not cover it',
    R32,
    '2026-02',
    { gas_flared_mcf: 900 },
    [authorization('R32-1', 500, '2026-02-14')],
    TODAY,
    'red',
    'expired on 2026-02-14, during 2026-02',
  ),
  r32(
    'flaring before the authorization took effect is a violation',
    R32,
    '2026-02',
    { gas_flared_mcf: 900 },
    [authorization('R32-1', 500, '2026-12-31', { effective_date: '2026-02-20' })],
    TODAY,
    'red',
    'took effect only on 2026-02-20',
  ),
  r32(
    'a rate above the authorized mcf/d is a violation',
    R32,
    '2026-02',
    { gas_flared_mcf: 3000, producing_days: 30 },
    [authorization('R32-1', 50, '2026-12-31')],
    TODAY,
    'red',
    '(100 mcf/d over 30 days), above the 50 mcf/d authorized',
  ),
  r32(
    'an authorization still valid today that expires within 30 days is amber',
    R32,
    '2026-02',
    { gas_flared_mcf: 900 },
    [authorization('R32-1', 500, '2026-03-25')],
    TODAY,
    'amber',
    'the authorization expires on 2026-03-25',
  ),
  r32(
    'flaring within a long authorization is compliant',
    R32,
    '2026-02',
    { gas_flared_mcf: 900 },
    [authorization('R32-1', 500, '2026-12-31')],
    TODAY,
    'green',
    '(30 mcf/d over 30 days), within the 500 mcf/d authorized',
  ),
  r32(
    'vented gas (code 11) needs an authorization too',
    R32,
    '2026-02',
    { gas_flared_mcf: 0, gas_vented_mcf: 150 },
    [],
    TODAY,
    'red',
    '150 mcf flared or vented in 2026-02',
  ),
  r32(
    'two authorizations in force add up',
    R32,
    '2026-02',
    { gas_flared_mcf: 3600, producing_days: 30 },
    [authorization('R32-1', 50, '2026-12-31'), authorization('R32-2', 100, '2026-12-31')],
    TODAY,
    'green',
    'within the 150 mcf/d authorized under R32-1, R32-2',
  ),
  r32(
    'a revoked authorization authorizes nothing',
    R32,
    '2026-02',
    { gas_flared_mcf: 900 },
    [authorization('R32-1', 500, '2026-12-31', { status: 'revoked' })],
    TODAY,
    'red',
    'without a Rule 32 authorization',
  ),
  r32(
    'without producing days the rate is over the days of the month',
    R32,
    '2026-02',
    { gas_flared_mcf: 2800, producing_days: '' },
    [authorization('R32-1', 100, '2026-12-31')],
    TODAY,
    'green',
    '(100 mcf/d over 28 days), within the 100 mcf/d',
  ),
  r32(
    'an authorization with no end date (50 mcf/d or less) covers the month',
    R32,
    '2026-02',
    { gas_flared_mcf: 900 },
    [authorization('R32-1', 50, null)],
    TODAY,
    'green',
    'within the 50 mcf/d authorized',
  ),
  r32(
    'an authorization with no authorized volume on record is unknown',
    R32,
    '2026-02',
    { gas_flared_mcf: 900 },
    [authorization('R32-1', null, '2026-12-31')],
    TODAY,
    'grey',
    'has no authorized volume on record',
  ),
  r32(
    'no code 10/11 figures for the month is unknown, never "nothing flared"',
    R32,
    '2026-02',
    { production_oil_bbls: '', production_gas_mcf: 9000, gas_sold_mcf: '' },
    [],
    TODAY,
    'grey',
    'no flared or vented (code 10/11) figures for 2026-02',
  ),

  // Form PR: per oil lease and per gas well, due on the last working day of the next month.
  pr(
    'an unfiled month with its figures in the graph, not yet due, is compliant',
    R58,
    prWell(API),
    NO_LEASE,
    '2026-02',
    TODAY,
    'green',
    'Form PR for 2026-02 due 2026-03-31; figures ready: oil 2900 bbl, gas 8800 mcf',
  ),
  pr(
    'an ended month without production figures is unknown, never green',
    R58,
    prWell(API, { production_history_12m: '[]' }),
    NO_LEASE,
    '2026-02',
    TODAY,
    'grey',
    'no production figures for 2026-02 in the graph',
  ),
  pr(
    'a report past its due date is overdue',
    R58,
    prWell(API, { form_pr_period: '2025-12', production_history_12m: history(['2026-01', 3000, 9000]) }),
    NO_LEASE,
    '2026-01',
    TODAY,
    'red',
    'Form PR for 2026-01 not filed; it was due 2026-02-27',
  ),
  pr(
    'a report due within 7 days is amber',
    R58,
    prWell(API),
    NO_LEASE,
    '2026-02',
    '2026-03-26',
    'amber',
    'Form PR for 2026-02 due 2026-03-31',
  ),
  pr(
    'a month not yet over is reported after it ends',
    R58,
    prWell(API, { form_pr_period: '2026-02', production_history_12m: '[]' }),
    NO_LEASE,
    '2026-03',
    TODAY,
    'green',
    '2026-03 is reported after the month ends, due 2026-04-30',
  ),
  pr(
    'a gas well files its own Form PR',
    R58,
    prWell('42-439-30001', { well_type: 'gas' }),
    NO_LEASE,
    '2026-02',
    TODAY,
    'green',
    'Form PR for 2026-02 due 2026-03-31',
  ),
  pr(
    'Memorial Day on the last day of May moves the due date back to the Friday',
    R58,
    prWell(API, { form_pr_period: '2027-03', production_history_12m: history(['2027-04', 100, 200]) }),
    NO_LEASE,
    '2027-04',
    '2027-05-29',
    'red',
    'it was due 2027-05-28',
  ),
  pr(
    'filed through a month the graph has no figures for is unknown',
    R58,
    prWell(API, { production_oil_bbls: '', production_gas_mcf: '' }),
    NO_LEASE,
    '2026-02',
    TODAY,
    'grey',
    'filed through 2026-01, but no production figures for 2026-01',
  ),
  (() => {
    const wells = [prWell(API), prWell('42-329-30002')];
    return pr(
      "an oil lease reports its wells' volumes together, with the allocation method",
      R58,
      lease({ form_pr_period: '2026-01' }),
      leaseFacts(lease(), wells),
      '2026-02',
      TODAY,
      'green',
      'oil 5800 bbl, gas 17600 mcf from 2 well(s), allocated by lease_test',
      { wells },
    );
  })(),
  (() => {
    const wells = [prWell(API), prWell('42-329-30002', { production_history_12m: '[]' })];
    return pr(
      'an oil lease with a well missing figures is unknown and names the well',
      R58,
      lease({ form_pr_period: '2026-01' }),
      leaseFacts(lease(), wells),
      '2026-02',
      TODAY,
      'grey',
      'no production figures for 2026-02 in the graph for 42-329-30002',
      { wells },
    );
  })(),
  (() => {
    const wells = [prWell(API, { form_pr_period: '2025-12' }), prWell('42-329-30002', { form_pr_period: '2025-12' })];
    return pr(
      "an oil lease without its own filing period is filed through its wells' earliest, and overdue after it",
      R58,
      lease(),
      leaseFacts(lease(), wells),
      '2026-01',
      TODAY,
      'red',
      'Form PR for 2026-01 not filed; it was due 2026-02-27',
      { wells },
    );
  })(),
  (() => {
    const wells = [prWell(API), prWell('42-329-30002', { form_pr_period: '' })];
    return pr(
      'an oil lease with a well that never filed has no Form PR on record',
      R58,
      lease(),
      leaseFacts(lease(), wells),
      '2026-02',
      TODAY,
      'grey',
      'no Form PR on record for O-08-12345 (wells without one: 42-329-30002)',
      { wells },
    );
  })(),

  // W-1 drilling permits.
  drill(
    'a well spudded while its W-1 was valid is compliant',
    R5,
    { spud_date: '2025-06-01' },
    [w1('2025-01-01', '2027-01-01')],
    'green',
    'spudded 2025-06-01 under W-1 W1-800001',
  ),
  drill(
    'a well spudded after its W-1 expired is a violation',
    R5,
    { spud_date: '2025-06-01' },
    [w1('2023-01-01', '2025-01-01')],
    'red',
    'after W-1 W1-800001 expired on 2025-01-01',
  ),
  drill(
    'a W-1 with no expiration date is valid two years from issuance (configured)',
    R5,
    { spud_date: '2025-06-01' },
    [w1('2023-01-01', null)],
    'red',
    'after W-1 W1-800001 expired on 2024-12-31',
  ),
  drill(
    'a permitted well under a valid W-1 is in progress',
    R5,
    { status: 'permitted' },
    [w1('2026-01-01', '2027-12-31')],
    'blue',
    'permitted under W-1 W1-800001; not yet spudded',
  ),
  drill(
    'a W-1 expiring within 30 days before spud is amber',
    R5,
    { status: 'permitted' },
    [w1('2024-04-01', '2026-04-01')],
    'amber',
    'expires on 2026-04-01; not yet spudded',
  ),
  drill(
    'a drilled well without a W-1 on record is unknown',
    R5,
    { spud_date: '2020-01-01' },
    [],
    'grey',
    'no W-1 permit on record',
  ),

  // Rule 37 spacing.
  spacing(
    'an offset closer than 1,200 ft in the same horizon without an exception is a violation',
    {},
    [offset(850)],
    [],
    'red',
    'offset 42-329-30002 at 850 ft (< 1,200 ft) without a Rule 37 exception',
  ),
  spacing(
    'the same offset under a Rule 37 exception is compliant',
    {},
    [offset(850)],
    [r37exception],
    'green',
    'under Rule 37 exception R37-1',
  ),
  spacing('no offset well and no lease-line distance on record is unknown', {}, [], [], 'grey', 'spacing unknown'),
  spacing(
    'a lease line closer than 467 ft without an exception is a violation',
    { lease_line_distance_ft: 300 },
    [offset(1500)],
    [],
    'red',
    'lease line at 300 ft (< 467 ft)',
  ),
  spacing(
    'an offset in another horizon does not count',
    { lease_line_distance_ft: 600 },
    [offset(850, 'false')],
    [],
    'green',
    'lease line at 600 ft (≥ 467 ft)',
  ),

  // Rules 14/15 inactive wells.
  inactive(
    'an inactive well past its plugging year without a W-3X is overdue',
    { inactive_since: '2024-12-01' },
    [],
    [],
    'red',
    'plugging overdue since 2025-12-01',
  ),
  inactive(
    'an inactive well under a W-3X extension with its H-15 far off is compliant',
    { inactive_since: '2024-12-01' },
    [h15Deadline('2026-09-01')],
    [w3x('2027-01-01')],
    'green',
    'under extension W3X-1; H-15 fluid level test due 2026-09-01',
  ),
  inactive(
    'an inactive well inside its first year without an extension is amber',
    { inactive_since: '2025-09-15' },
    [],
    [],
    'amber',
    'without a W-3X plugging extension; plugging due 2026-09-15',
  ),

  // Rule 53 / Rule 14 well tests, due from the last test.
  tests(
    'an oil well whose W-10 is a year old is overdue',
    R53W,
    { well_type: 'oil', last_w10_test_date: '2025-01-15' },
    'red',
    'last W-10 test 2025-01-15; the next was due 2026-01-15',
  ),
  tests(
    'a W-10 due within 30 days is amber',
    R53W,
    { well_type: 'oil', last_w10_test_date: '2025-04-01' },
    'amber',
    'the next is due 2026-04-01',
  ),
  tests(
    'a gas well tested recently is compliant',
    R53G,
    { well_type: 'gas', last_g10_test_date: '2025-09-01' },
    'green',
    'last G-10 test 2025-09-01; the next is due 2026-09-01',
  ),
  tests('no W-10 on record is unknown', R53W, { well_type: 'oil' }, 'grey', 'no W-10 test on record: due date unknown'),
  tests(
    'a W-10 falling due on a Saturday (4 July) moves to the next working day',
    R53W,
    { well_type: 'oil', last_w10_test_date: '2025-07-04' },
    'amber',
    'the next is due 2026-07-06',
    '2026-06-20',
    '2026-07-06',
  ),
  tests(
    'an inactive well over 25 years old owes the H-15 from its last test',
    R14H,
    { status: 'inactive', spud_date: '1990-05-01', last_h15_test_date: '2025-01-05' },
    'red',
    'last H-15 test 2025-01-05; the next was due 2026-01-05',
  ),
  tests(
    'an inactive well under 25 years old needs no H-15',
    R14H,
    { status: 'inactive', spud_date: '2015-05-01' },
    'green',
    'inactive well 10 years old: no H-15 test required',
  ),

  // Rule 1 P-5 organization report.
  p5(
    'an active P-5 renewed last year is compliant until its renewal month',
    { p5_renewal_month: '06', p5_last_renewed: '2025-06-10' },
    false,
    'green',
    'P-5 123456 active; renewal due 2026-06-30',
  ),
  p5(
    'a renewal due within 30 days is amber',
    { p5_renewal_month: '03', p5_last_renewed: '2025-03-05' },
    false,
    'amber',
    'P-5 123456 renewal due 2026-03-31',
  ),
  p5(
    'a delinquent P-5 is a violation',
    { p5_status: 'delinquent', p5_renewal_month: '06' },
    false,
    'red',
    'P-5 123456 is delinquent',
  ),
  p5(
    'a renewal past its date is overdue',
    { p5_renewal_month: '01', p5_last_renewed: '2025-01-10' },
    false,
    'red',
    'P-5 123456 renewal was due 2026-01-30',
  ),
  p5(
    'a renewal months away but blocked by an inactive well out of compliance is amber',
    { p5_renewal_month: '06', p5_last_renewed: '2025-06-10' },
    true,
    'amber',
    'renewal due 2026-06-30 will be denied: 1 inactive well(s) out of compliance with 16 TAC §3.15',
  ),
  p5(
    'a blocked renewal due within 30 days is red',
    { p5_renewal_month: '03', p5_last_renewed: '2025-03-05' },
    true,
    'red',
    'will be denied: 1 inactive well(s) out of compliance',
  ),
  p5('no renewal month on record is unknown', {}, false, 'grey', 'renewal month unknown'),
];

/** The checklist item that judges each rule (Form PR items for Rule 32 and Form PR, the W-1/W-3X items for the others). */
function checklistVerdict(row: Row): { color: string; reason: string; checks: string[] } {
  const frames = new ItemFrames('golden', 0);
  const read = (check: string) => {
    const color = frames.frames.find(
      (f) => f.type === 'AssessmentFormFieldUpdated' && f.data.fieldName === `${check}_verdict`,
    );
    const found = frames.frames.find((f) => f.type === 'AssessmentValidationRecorded' && f.data.checkName === check);
    if (
      !color ||
      !found ||
      color.type !== 'AssessmentFormFieldUpdated' ||
      found.type !== 'AssessmentValidationRecorded'
    )
      throw new Error(`no ${check} verdict recorded`);
    const checks = frames.frames
      .filter((f) => f.type === 'AssessmentValidationRecorded')
      .map((f) => (f.data as { checkName: string }).checkName);
    return { color: String(color.data.fieldValue), reason: found.data.message, checks };
  };
  const subject = { pack: row.pack, entity: row.subject, facts: row.facts };
  const facts = wellFacts(row.subject);
  switch (row.pack.domain) {
    case 'rule_32': {
      const ctx = formPrContext({ subject: row.subject, production: NO_LEASE, period: row.period!, today: row.today });
      ctx.flaring = [subject];
      assessFormPrItem('flaring_authority', frames, ctx);
      return read('flaring_within_authorization');
    }
    case 'production':
      assessFormPrItem(
        'filing_deadline',
        frames,
        formPrContext({
          subject: row.subject,
          production: row.facts as ProductionFacts,
          wells: row.wells,
          period: row.period!,
          today: row.today,
        }),
      );
      return read('form_pr_status');
    case 'rule_37':
      assessOtherItem('spacing_rule_37', frames, facts, row.today, { rule_37: subject });
      return read('rule_37');
    case 'inactive_wells':
      assessOtherItem('inactive_status', frames, facts, row.today, { inactive_wells: subject });
      return read('inactive_wells');
    case 'well_tests':
      assessOtherItem('h_15_test', frames, facts, row.today, { well_tests: subject });
      return read('well_tests');
    case 'operators':
      assessOtherItem('extension_basis', frames, { ...facts, operator: row.subject.properties }, row.today, {
        operators: subject,
      } as OtherSubjects);
      return read('p5_renewal');
    default:
      recordVerdict(frames, row.pack.domain, subject, row.today, row.period);
      return read(row.pack.domain);
  }
}

describe('golden rule table: the dashboard and the checklist evaluators agree with the regulation', () => {
  it(`holds at least 40 scenarios, each citing its rule`, () => {
    expect(ROWS.length).to.be.at.least(40);
    for (const row of ROWS) expect(row.cites, row.name).to.match(/^16 TAC §3\.\d+/);
  });

  for (const row of ROWS) {
    describe(`${row.cites}: ${row.name}`, () => {
      it(`the dashboard cell is ${row.color} and says why, naming the rule${row.period ? ` and ${row.period}` : ''}`, () => {
        const verdict = row.pack.assess(row.subject, row.facts, row.today);
        expect(verdict, 'a verdict').to.not.equal(null);
        expect(verdict!.color, verdict!.reason).to.equal(row.color);
        expect(verdict!.reason).to.contain(row.reason);
        expect(verdict!.reason.startsWith(`${row.cites}: `), verdict!.reason).to.equal(true);
        expect(verdict!.facts.source).to.equal(`graph:${row.subject.label}/${row.subject.entityId}`);
        if (row.period && verdict!.facts.period !== undefined) expect(verdict!.facts.period).to.equal(row.period);
        if (row.dueDate !== undefined) expect(verdict!.dueDate).to.equal(row.dueDate);
      });
      it(`the checklist${row.period ? ` for ${row.period}` : ''} gives the same verdict and reason`, () => {
        const dashboard = row.pack.assess(row.subject, row.facts, row.today)!;
        const checklist = checklistVerdict(row);
        expect(checklist.color).to.equal(row.color);
        expect(checklist.reason).to.equal(dashboard.reason);
      });
    });
  }
});
