import { expect } from 'chai';
import type { Neighbor } from '../../../queries/compliance/graph-facts';
import { drillingPack } from '../../../commands/compliance/packs/drilling';
import { domainList, DEFAULT_PACKS } from '../../../commands/compliance/packs';
import { inactiveWellsPack } from '../../../commands/compliance/packs/inactive-wells';
import type { AssessedVertex } from '../../../commands/compliance/packs/pack';
import { formPrDue, productionPack } from '../../../commands/compliance/packs/production';
import { rule32Pack } from '../../../commands/compliance/packs/rule-32';
import { rule37Pack } from '../../../commands/compliance/packs/rule-37';

const TODAY = '2026-03-10';
const well = (properties: Record<string, string | number>): AssessedVertex => ({
  vertexId: 'w',
  entityId: '42-501-30001',
  label: 'Well',
  properties: Object.fromEntries(
    Object.entries({ status: 'producing', form_pr_period: '2026-02', ...properties }).map(([k, v]) => [k, String(v)]),
  ),
});
const near = (
  label: string,
  properties: Record<string, string | number>,
  edge: Record<string, string> = {},
): Neighbor => ({
  vertexId: `${label}-1`,
  entityId: `${label}-1`,
  label,
  properties: Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, String(v)])),
  edge,
});
const at = (...list: Neighbor[]) => new Map([['w', list]]);

describe('compliance domain packs', () => {
  it('the registry lists seven packs with the labels they assess; short_title falls back to title', () => {
    expect(DEFAULT_PACKS.map((p) => p.domain)).to.deep.equal([
      'rule_32',
      'rule_37',
      'production',
      'drilling',
      'inactive_wells',
      'well_tests',
      'operators',
    ]);
    expect(domainList([{ ...rule32Pack, short_title: undefined }])).to.deep.equal([
      { domain: 'rule_32', title: rule32Pack.title, short_title: rule32Pack.title, applies_to: ['Well'] },
    ]);
    expect(domainList(DEFAULT_PACKS).find((d) => d.domain === 'production')!.applies_to).to.deep.equal([
      'Lease',
      'Well',
    ]);
  });

  describe('rule_32 flaring', () => {
    const auth = (mcf: number, expiry: string) =>
      near('FlaringAuthorization', { authorized_mcf: mcf, expiry_date: expiry });
    it('a well that does not flare is green with no deadline', () => {
      expect(rule32Pack.assess(well({ gas_flared_mcf: 0 }), { authorizations: new Map() }, TODAY)).to.include({
        color: 'green',
        bucket: null,
        anomaly: false,
      });
    });
    it('flaring without an authorization is red, overdue and an anomaly', () => {
      expect(rule32Pack.assess(well({ gas_flared_mcf: 300 }), { authorizations: new Map() }, TODAY)).to.include({
        color: 'red',
        bucket: 'overdue',
        anomaly: true,
      });
    });
    // A regression: the old pack judged against today and called this red; Rule 32 judges the month the gas was flared.
    it('an authorization that covered the flared month and expired later is compliant for that month', () => {
      expect(
        rule32Pack.assess(well({ gas_flared_mcf: 300 }), { authorizations: at(auth(500, '2026-03-01')) }, TODAY),
      ).to.include({ color: 'green', dueDate: null });
    });
    it('flaring after the authorization expired is red', () => {
      const v = rule32Pack.assess(
        well({ gas_flared_mcf: 300 }),
        { authorizations: at(auth(500, '2026-01-15')) },
        TODAY,
      )!;
      expect(v).to.include({ color: 'red', anomaly: false });
      expect(v.reason).to.contain('expired on 2026-01-15');
    });
    it('an average daily volume above the authorized mcf/d is red with the anomaly flag', () => {
      const v = rule32Pack.assess(
        well({ gas_flared_mcf: 3100, producing_days: 31 }),
        { authorizations: at(auth(50, '2026-12-31')) },
        TODAY,
      )!;
      expect(v).to.include({ color: 'red', anomaly: true });
      expect(v.facts).to.include({ flared_mcf_per_day: 100, authorized_mcf_per_day: 50 });
    });
    it('an authorization expiring within 30 days is amber, bucketed by its expiry', () => {
      expect(
        rule32Pack.assess(well({ gas_flared_mcf: 300 }), { authorizations: at(auth(500, '2026-03-15')) }, TODAY),
      ).to.include({ color: 'amber', bucket: 'due_7d', dueDate: '2026-03-15' });
      expect(
        rule32Pack.assess(well({ gas_flared_mcf: 300 }), { authorizations: at(auth(500, '2026-04-01')) }, TODAY),
      ).to.include({ color: 'amber', bucket: 'due_30d' });
    });
    it('flaring within a long authorization is green', () => {
      expect(
        rule32Pack.assess(well({ gas_flared_mcf: 300 }), { authorizations: at(auth(500, '2026-12-31')) }, TODAY),
      ).to.include({ color: 'green', bucket: null });
    });
  });

  describe('rule_37 spacing', () => {
    const offset = (ft: number, sameHorizon = 'true') =>
      near('Well', {}, { distance_ft: String(ft), same_horizon: sameHorizon });
    it('an offset closer than 1,200 ft in the same horizon without an exception is red', () => {
      const v = rule37Pack.assess(well({}), { offsets: at(offset(850)), permits: new Map() }, TODAY)!;
      expect(v).to.include({ color: 'red', bucket: 'overdue' });
      expect(v.facts.nearest_offset_ft).to.equal(850);
    });
    it('the same offset under an approved Rule 37 exception is green', () => {
      const exception = near('Permit', { type: 'Rule 37 exception', status: 'approved' });
      expect(rule37Pack.assess(well({}), { offsets: at(offset(850)), permits: at(exception) }, TODAY)).to.include({
        color: 'green',
      });
    });
    it('offsets in another horizon or beyond 1,200 ft are fine; a lease line under 467 ft is not', () => {
      expect(
        rule37Pack.assess(well({}), { offsets: at(offset(850, 'false'), offset(1300)), permits: new Map() }, TODAY),
      ).to.include({ color: 'green' });
      expect(
        rule37Pack.assess(well({ lease_line_distance_ft: 300 }), { offsets: new Map(), permits: new Map() }, TODAY),
      ).to.include({ color: 'red' });
    });
  });

  describe('production (Form PR)', () => {
    const none = { wellsOfLease: new Map(), leaseOfWell: new Map() };
    const reported = (month: string, extra: Record<string, string | number> = {}) =>
      well({ form_pr_period: month, production_oil_bbls: 3000, production_gas_mcf: 9000, ...extra });
    it('is due on the last working day of the month after the production month, state holidays excluded', () => {
      expect(formPrDue('2026-01')).to.equal('2026-02-27'); // 28 Feb 2026 is a Saturday
      expect(formPrDue('2026-02')).to.equal('2026-03-31');
      expect(formPrDue('2027-04')).to.equal('2027-05-28'); // 31 May 2027 is Memorial Day, 29-30 a weekend
    });
    it('a report past its due date is red and overdue', () => {
      expect(productionPack.assess(reported('2025-12'), none, TODAY)).to.include({
        color: 'red',
        bucket: 'overdue',
        dueDate: '2026-02-27',
      });
    });
    it('a report due within 7 days is amber; one for a month not yet over is green with its due date', () => {
      expect(productionPack.assess(reported('2026-01'), none, '2026-03-26')).to.include({
        color: 'amber',
        bucket: 'due_7d',
        dueDate: '2026-03-31',
      });
      expect(productionPack.assess(reported('2026-02'), none, TODAY)).to.include({
        color: 'green',
        bucket: null,
        dueDate: '2026-04-30',
      });
    });
    // A regression: the old pack was green here ("Form PR filed through 2026-01") with no figures for February in the graph.
    it('a month that ended without production figures in the graph is grey, never green', () => {
      const v = productionPack.assess(reported('2026-01'), none, TODAY)!;
      expect(v).to.include({ color: 'grey', bucket: 'due_30d', dueDate: '2026-03-31' });
      expect(v.reason).to.contain('no production figures for 2026-02');
    });
    it('production reported for a shut-in well carries the anomaly flag; a permitted well is grey', () => {
      expect(
        productionPack.assess(reported('2026-02', { status: 'shut_in', production_oil_bbls: 40 }), none, TODAY),
      ).to.include({ anomaly: true });
      expect(productionPack.assess(well({ status: 'permitted' }), none, TODAY)).to.include({ color: 'grey' });
    });
  });

  describe('drilling (W-1)', () => {
    const w1 = (issued: string, expires: string) =>
      near('Permit', {
        form: 'W-1',
        type: 'W-1 drilling permit',
        issued_date: issued,
        expiration_date: expires,
        status: 'approved',
      });
    it('a well spudded while its W-1 was valid is green; after it expired, red', () => {
      expect(
        drillingPack.assess(well({ spud_date: '2025-06-01' }), { permits: at(w1('2025-01-01', '2027-01-01')) }, TODAY),
      ).to.include({ color: 'green' });
      expect(
        drillingPack.assess(well({ spud_date: '2025-06-01' }), { permits: at(w1('2023-01-01', '2025-01-01')) }, TODAY),
      ).to.include({ color: 'red' });
    });
    it('a permitted well is blue while the permit is valid, amber near expiry, red once it expired before spud', () => {
      const permitted = well({ status: 'permitted' });
      expect(drillingPack.assess(permitted, { permits: at(w1('2026-01-01', '2027-12-31')) }, TODAY)).to.include({
        color: 'blue',
      });
      expect(drillingPack.assess(permitted, { permits: at(w1('2024-04-01', '2026-04-01')) }, TODAY)).to.include({
        color: 'amber',
        bucket: 'due_30d',
      });
      expect(drillingPack.assess(permitted, { permits: at(w1('2024-01-01', '2026-01-01')) }, TODAY)).to.include({
        color: 'red',
        bucket: 'overdue',
      });
    });
    it('no W-1 on record: grey for a drilled well, amber for a permitted one', () => {
      expect(drillingPack.assess(well({ spud_date: '2020-01-01' }), { permits: new Map() }, TODAY)).to.include({
        color: 'grey',
      });
      expect(drillingPack.assess(well({ status: 'permitted' }), { permits: new Map() }, TODAY)).to.include({
        color: 'amber',
      });
    });
  });

  describe('inactive wells (Rules 14/15)', () => {
    const deadline = (date: string) =>
      near('ComplianceDeadline', { deadline_date: date, type: 'H-15 fluid level test', status: 'open' });
    const w3x = near('Permit', { form: 'W-3X', status: 'approved', expiration_date: '2027-01-01' });
    it('an active well is green', () => {
      expect(inactiveWellsPack.assess(well({}), { deadlines: new Map(), permits: new Map() }, TODAY)).to.include({
        color: 'green',
      });
    });
    it('an inactive well past its plugging year without an extension is red', () => {
      expect(
        inactiveWellsPack.assess(
          well({ status: 'inactive', inactive_since: '2024-12-01' }),
          { deadlines: new Map(), permits: new Map() },
          TODAY,
        ),
      ).to.include({ color: 'red', bucket: 'overdue', dueDate: '2025-12-01' });
    });
    it('without an extension an inactive well is amber; with one its H-15 deadline decides', () => {
      expect(
        inactiveWellsPack.assess(
          well({ status: 'inactive' }),
          { deadlines: at(deadline('2026-06-01')), permits: new Map() },
          TODAY,
        ),
      ).to.include({ color: 'amber', dueDate: '2026-06-01' });
      expect(
        inactiveWellsPack.assess(
          well({ status: 'inactive' }),
          { deadlines: at(deadline('2026-06-01')), permits: at(w3x) },
          TODAY,
        ),
      ).to.include({ color: 'green' });
      expect(
        inactiveWellsPack.assess(
          well({ status: 'inactive' }),
          { deadlines: at(deadline('2026-03-12')), permits: at(w3x) },
          TODAY,
        ),
      ).to.include({ color: 'amber', bucket: 'due_7d' });
      expect(
        inactiveWellsPack.assess(
          well({ status: 'inactive' }),
          { deadlines: at(deadline('2026-03-01')), permits: at(w3x) },
          TODAY,
        ),
      ).to.include({ color: 'red', bucket: 'overdue' });
    });
  });
});
