import { expect } from 'chai';
import { assessFormPrItem, type FormPrContext, formPrFigures } from '../../../commands/checklists/assessment/form-pr';
import { ItemFrames } from '../../../commands/checklists/assessment/frames';
import { formPrDueDate, previousMonth } from '../../../commands/checklists/assessment/working-days';
import { authorization, entity, formPrContext, leaseFacts, NO_LEASE } from '../../support/rule-fixtures';

const API = '42-501-10001';
const oilWell = {
  api_number: API,
  status: 'producing',
  well_type: 'oil',
  form_pr_period: '2026-01',
  production_oil_bbls: '3110.4',
  production_gas_mcf: '9330',
  gas_used_on_lease_mcf: '280',
  gas_sold_mcf: '8150',
  gas_flared_mcf: '900',
  gas_vented_mcf: '0',
  producing_days: '30',
  production_history_12m: JSON.stringify([{ period: '2025-12', oil_bbls: 3200, gas_mcf: 9500 }]),
};
const well = (props: Record<string, string> = {}) => entity('Well', API, { ...oilWell, ...props });
const event = { date: '2026-01-28', remark: 'AR' };

function run(key: string, ctx: FormPrContext) {
  const frames = new ItemFrames('run-1', 0);
  const summary = assessFormPrItem(key, frames, ctx);
  const checks = frames.frames.filter((x) => x.type === 'AssessmentValidationRecorded').map((x) => x.data as any);
  const fields = frames.frames.filter((x) => x.type === 'AssessmentFormFieldUpdated').map((x) => x.data as any);
  return {
    summary,
    checks,
    check: (name: string) => checks.find((c) => c.checkName === name),
    field: (name: string) => fields.find((c) => c.fieldName === name),
  };
}
const alone = (w = well(), options: Partial<Parameters<typeof formPrContext>[0]> = {}) =>
  formPrContext({ subject: w, production: NO_LEASE, period: '2026-01', today: '2026-02-10', ...options });

describe('Form PR from the graph, per oil lease or gas well', () => {
  it('an oil well reports oil in whole bbl and casinghead gas in mcf, with its dispositions', () => {
    const figures = formPrFigures(alone().unit, '2026-01');
    expect(figures).to.include({ wellType: 'oil', oilBbl: 3110, gasMcf: 9330 });
    expect(figures.dispositions).to.deep.equal({ '01': 280, '02': 8150, '10': 900, '11': 0 });
  });

  it('a gas well is its own unit and reports gas-well gas', () => {
    const ctx = alone(well({ well_type: 'gas' }));
    expect(ctx.unit.kind).to.equal('gas_well');
    expect(run('gas_production', ctx).field('gas_well_gas_mcf')).to.include({ fieldValue: 9330 });
  });

  it('an oil lease reports its wells together, with the allocation method', () => {
    const lease = entity('Lease', 'O-08-12345', {
      oil_gas_code: 'O',
      allocation_method: 'lease_test',
      name: 'JONES 97',
    });
    const second = entity('Well', '42-501-10002', {
      ...oilWell,
      api_number: '42-501-10002',
      production_oil_bbls: '1000',
      production_gas_mcf: '2000',
    });
    const ctx = formPrContext({
      subject: lease,
      production: leaseFacts(lease, [well(), second]),
      wells: [well(), second],
      period: '2026-01',
      today: '2026-02-10',
    });
    expect(ctx.unit.kind).to.equal('oil_lease');
    expect(run('oil_production', ctx).field('oil_production_bbl')).to.include({ fieldValue: 4110 });
    expect(run('well_identification', ctx).check('allocation_method')).to.include({ passed: true });
  });

  it('an earlier month comes from the 12-month history with lower confidence', () => {
    expect(run('oil_production', alone(well(), { period: '2025-12' })).field('oil_production_bbl')).to.include({
      fieldValue: 3200,
      confidence: 0.8,
    });
  });

  // A regression: the old checklist passed production_found with "0 bbl" and flaring with "no gas flared" for a month the graph holds nothing for.
  it('a month without figures is reported missing, never as 0', () => {
    const r = run('oil_production', alone(well(), { period: '2025-10' }));
    expect(r.check('production_found')).to.include({ passed: false });
    expect(r.check('production_found').message).to.contain('no production figures for 2025-10');
    expect(r.field('oil_production_bbl')).to.include({ fieldValue: null, confidence: 0 });
    const flaring = run('flaring_authority', alone(well(), { period: '2025-10' })).check(
      'flaring_within_authorization',
    );
    expect(flaring).to.include({ passed: false, severity: 'warning' });
    expect(flaring.message).to.contain('no flared or vented (code 10/11) figures for 2025-10');
  });

  it('dispositions that do not add up to the gas produced fail the balance check', () => {
    expect(run('gas_disposition', alone()).check('dispositions_balance')).to.include({ passed: true });
    expect(run('gas_disposition', alone(well({ gas_sold_mcf: '7000' }))).check('dispositions_balance')).to.include({
      passed: false,
      severity: 'error',
    });
  });

  it('flared volume is judged by the Rule 32 evaluator against the authorizations in force during the month', () => {
    const auth = authorization('R32-1', 50, '2027-01-01');
    const within = run(
      'flaring_authority',
      alone(well(), { authorizations: { [API]: [auth] }, remarks: { [API]: [event] } }),
    );
    expect(within.check('flaring_within_authorization')).to.include({ passed: true });
    expect(within.check('flaring_within_authorization').message).to.contain('16 TAC §3.32 (Statewide Rule 32)');
    expect(within.check('authority_remark_present')).to.include({ passed: true });
    const above = run(
      'flaring_authority',
      alone(well({ gas_flared_mcf: '1800', producing_days: '20' }), {
        authorizations: { [API]: [auth] },
        remarks: { [API]: [event] },
      }),
    );
    expect(above.check('flaring_within_authorization')).to.include({ passed: false, severity: 'error' });
    expect(above.check('flaring_within_authorization').message).to.contain('90 mcf/d');
    expect(run('flaring_authority', alone()).check('flaring_within_authorization')).to.include({ passed: false });
    const expired = authorization('R32-2', 500, '2025-06-30', { status: 'expired' });
    expect(
      run('flaring_authority', alone(well(), { authorizations: { [API]: [expired] } })).check(
        'flaring_within_authorization',
      ),
    ).to.include({ passed: false });
  });

  // A regression: an authorization that expired 40 days ago was reported as "expires within 30 days".
  it('an authorization that covered the month and has since expired is compliant for the month and not "expiring"', () => {
    const auth = authorization('R32-3', 500, '2026-02-01');
    const r = run('flaring_authority', alone(well(), { authorizations: { [API]: [auth] }, today: '2026-03-13' }));
    expect(r.check('flaring_within_authorization')).to.include({ passed: true, severity: 'info' });
    expect(r.checks.map((c) => c.message).join(' ')).not.to.contain('expires');
  });

  it('volumes under codes 10/11 without an authority remark fail', () => {
    const auth = authorization('R32-1', 50, '2027-01-01');
    expect(
      run(
        'flaring_authority',
        alone(well(), { authorizations: { [API]: [auth] }, remarks: { [API]: [{ date: '2026-01-28', remark: '' }] } }),
      ).check('authority_remark_present'),
    ).to.include({ passed: false });
  });

  it('the due date is the last working day of the following month, Texas state holidays excluded', () => {
    expect(formPrDueDate('2026-01')).to.equal('2026-02-27'); // Feb 28 2026 is a Saturday
    expect(formPrDueDate('2025-12')).to.equal('2026-01-30'); // Jan 31 2026 is a Saturday
    expect(formPrDueDate('2026-04')).to.equal('2026-05-29'); // May 31 is a Sunday, 30 a Saturday
    expect(formPrDueDate('2027-04')).to.equal('2027-05-28'); // May 31 2027 is Memorial Day
    expect(previousMonth(new Date('2026-01-05T00:00:00Z'))).to.equal('2025-12');
    const unfiled = well({
      form_pr_period: '2025-12',
      production_history_12m: JSON.stringify([{ period: '2026-01', oil_bbls: 3000, gas_mcf: 9000 }]),
    });
    expect(run('filing_deadline', alone(unfiled, { today: '2026-02-10' })).check('filed_before_due_date')).to.include({
      passed: true,
    });
    expect(run('filing_deadline', alone(unfiled, { today: '2026-03-02' })).check('filed_before_due_date')).to.include({
      passed: false,
      severity: 'error',
    });
    expect(run('filing_deadline', alone(unfiled, { today: '2026-03-02' })).check('form_pr_status')).to.include({
      passed: false,
      severity: 'error',
    });
    expect(run('filing_deadline', alone(unfiled, { today: '2026-02-24' })).check('filed_before_due_date')).to.include({
      passed: true,
      severity: 'warning',
    });
    expect(run('filing_deadline', alone(well(), { today: '2026-03-02' })).check('filed_before_due_date')).to.include({
      passed: true,
    });
  });
});
