import { expect } from 'chai';
import { assessFormPrItem, formPrFigures } from '../../../src/contexts/checklists/assessment/form-pr';
import { ItemFrames } from '../../../src/contexts/checklists/assessment/frames';
import type { WellFacts } from '../../../src/contexts/checklists/assessment/well-facts';
import { formPrDueDate, lastWorkingDayOfMonth, previousMonth } from '../../../src/contexts/checklists/assessment/working-days';
import type { VertexView } from '../../../queries/graph/entities';

const vertex = (label: string, entity_id: string, properties: Record<string, string>): VertexView => ({ id: `${label}-${entity_id}`, label, entity_id, properties: { entity_id, ...properties } });

function facts(props: Record<string, string>, extra: Partial<WellFacts> = {}): WellFacts {
  return { well: vertex('Well', '42-501-10001', { api_number: '42-501-10001', ...props }), lease: null, field: null, operator: null, formations: [], permits: [], authorizations: [], flaringEvents: [], deadlines: [], offsets: [], regulations: [], ...extra };
}

const oilWell = {
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

const run = (key: string, f: WellFacts, period = '2026-01', today = '2026-02-10') => {
  const frames = new ItemFrames('run-1', 0);
  const summary = assessFormPrItem(key, frames, { facts: f, period, today });
  const checks = frames.frames.filter((x) => x.type === 'AssessmentValidationRecorded').map((x) => x.data as any);
  const fields = frames.frames.filter((x) => x.type === 'AssessmentFormFieldUpdated').map((x) => x.data as any);
  return { summary, checks, fields, check: (name: string) => checks.find((c) => c.checkName === name), field: (name: string) => fields.find((c) => c.fieldName === name) };
};

describe('Form PR from the well\'s production', () => {
  it('an oil well reports oil in whole bbl and casinghead gas in mcf', () => {
    const figures = formPrFigures(facts(oilWell), '2026-01');
    expect(figures).to.include({ wellType: 'oil', oilBbl: 3110, casingheadMcf: 9330, gasWellGasMcf: null, condensateBbl: null, basis: 'current_month' });
    expect(figures.dispositions).to.deep.equal({ '01': 280, '02': 8150, '10': 900, '11': 0 });
  });

  it('a gas well reports gas-well gas and condensate', () => {
    const figures = formPrFigures(facts({ ...oilWell, well_type: 'gas', production_condensate_bbls: '42' }), '2026-01');
    expect(figures).to.include({ wellType: 'gas', oilBbl: null, condensateBbl: 42, casingheadMcf: null, gasWellGasMcf: 9330 });
  });

  it('an earlier month comes from the 12-month history with lower confidence', () => {
    const r = run('oil_production', facts(oilWell), '2025-12');
    expect(r.field('oil_production_bbl')).to.include({ fieldValue: 3200, confidence: 0.8 });
  });

  it('dispositions that do not add up to the gas produced fail the balance check', () => {
    expect(run('gas_disposition', facts(oilWell)).check('dispositions_balance')).to.include({ passed: true });
    expect(run('gas_disposition', facts({ ...oilWell, gas_sold_mcf: '7000' })).check('dispositions_balance')).to.include({ passed: false, severity: 'error' });
  });

  it('flared volume is checked against the active authorization in mcf/d over the producing days', () => {
    const auth = vertex('FlaringAuthorization', 'R32-1', { authorized_mcf: '50', expiry_date: '2027-01-01', status: 'active' });
    const event = vertex('FlaringEvent', 'FE-1', { disposition_code: '10', volume_mcf: '900', date: '2026-01-28', authority_remark: 'AR' });
    const within = run('flaring_authority', facts(oilWell, { authorizations: [auth], flaringEvents: [event] }));
    expect(within.check('flaring_within_authorization')).to.include({ passed: true });
    expect(within.check('authority_remark_present')).to.include({ passed: true });
    const above = run('flaring_authority', facts({ ...oilWell, gas_flared_mcf: '1800', producing_days: '20' }, { authorizations: [auth], flaringEvents: [event] }));
    expect(above.check('flaring_within_authorization')).to.include({ passed: false });
    expect(above.check('flaring_within_authorization').message).to.contain('90 mcf/d');
    const none = run('flaring_authority', facts(oilWell));
    expect(none.check('flaring_within_authorization')).to.include({ passed: false });
    const expired = vertex('FlaringAuthorization', 'R32-2', { authorized_mcf: '500', expiry_date: '2025-06-30', status: 'expired' });
    expect(run('flaring_authority', facts(oilWell, { authorizations: [expired], flaringEvents: [event] })).check('flaring_within_authorization')).to.include({ passed: false });
  });

  it('volumes under codes 10/11 without an authority remark fail', () => {
    const auth = vertex('FlaringAuthorization', 'R32-1', { authorized_mcf: '50', expiry_date: '2027-01-01' });
    const event = vertex('FlaringEvent', 'FE-1', { disposition_code: '10', volume_mcf: '900', date: '2026-01-28', authority_remark: '' });
    expect(run('flaring_authority', facts(oilWell, { authorizations: [auth], flaringEvents: [event] })).check('authority_remark_present')).to.include({ passed: false });
  });

  it('the due date is the last working day of the following month', () => {
    expect(formPrDueDate('2026-01')).to.equal('2026-02-27'); // Feb 28 2026 is a Saturday
    expect(formPrDueDate('2025-12')).to.equal('2026-01-30'); // Jan 31 2026 is a Saturday
    expect(formPrDueDate('2026-04')).to.equal('2026-05-29'); // May 31 is a Sunday, 30 a Saturday
    expect(lastWorkingDayOfMonth(2026, 3)).to.equal('2026-03-31');
    expect(previousMonth(new Date('2026-01-05T00:00:00Z'))).to.equal('2025-12');
    expect(run('filing_deadline', facts(oilWell), '2026-01', '2026-02-10').check('filed_before_due_date')).to.include({ passed: true });
    expect(run('filing_deadline', facts(oilWell), '2026-01', '2026-03-02').check('filed_before_due_date')).to.include({ passed: false, severity: 'error' });
    expect(run('filing_deadline', facts(oilWell), '2026-01', '2026-02-24').check('filed_before_due_date')).to.include({ passed: true, severity: 'warning' });
  });
});
