import { expect } from 'chai';
import { countiesOf, defaultRange, monthsIn, simulateRrc } from '../../../commands/ingestion/rrc-simulator';

describe('RRC scrape simulator', () => {
  const range = { from: '2025-01-01', to: '2025-06-30' };
  const all = ['wells', 'permits', 'production', 'flaring', 'operators', 'leases'] as const;

  it('is a pure function of district, data types and range', () => {
    expect(simulateRrc('08', all, range)).to.deep.equal(simulateRrc('08', all, range));
    expect(simulateRrc('08', ['wells'], range).wells[0].api_number).to.not.equal(
      simulateRrc('01', ['wells'], range).wells[0].api_number,
    );
  });

  it("gives wells API numbers of the district's counties, leases keyed by district, P-5 numbers of 6 digits", () => {
    const { wells, leases, operators } = simulateRrc('7C', all, range);
    const codes = countiesOf('7C').map((c) => c.code);
    for (const w of wells) {
      expect(w.api_number).to.match(/^42-\d{3}-\d{5}$/);
      expect(codes).to.include(w.api_number.slice(3, 6));
    }
    expect(new Set(wells.map((w) => w.api_number)).size).to.equal(wells.length);
    for (const l of leases) expect(l.lease_key).to.match(/^(O-7C-\d{5}|G-7C-\d{6})$/);
    for (const o of operators) expect(o.p5_number).to.match(/^\d{6}$/);
  });

  it('reports Form PR per producing well and month, whole numbers, with an authority remark for codes 10/11', () => {
    const { production, wells } = simulateRrc('08', ['production', 'wells'], range);
    expect(new Set(production.map((p) => p.reporting_month))).to.deep.equal(
      new Set(['2025-01', '2025-02', '2025-03', '2025-04', '2025-05', '2025-06']),
    );
    expect(production.length).to.equal(6 * wells.filter((w) => w.status !== 'inactive').length);
    for (const p of production) {
      for (const v of [p.oil_bbls, p.gas_mcf, p.water_bbls, p.disposition_code_10_mcf, p.disposition_code_11_mcf])
        expect(Number.isInteger(v) && v >= 0).to.equal(true);
      expect(p.authority_remark !== undefined).to.equal(p.disposition_code_10_mcf + p.disposition_code_11_mcf > 0);
    }
  });

  it('returns W-1 permits issued within the range and R-32 authorizations in force during it', () => {
    const { permits, flaring } = simulateRrc('08', ['permits', 'flaring'], { from: '2024-01-01', to: '2025-12-31' });
    expect(permits.length).to.be.greaterThan(0);
    for (const p of permits) {
      expect(p.issued_date >= '2024-01-01' && p.issued_date <= '2025-12-31').to.equal(true);
      expect(p.form).to.equal('W-1');
    }
    expect(flaring.length).to.be.greaterThan(0);
    for (const f of flaring) {
      expect(f.expiry_date >= '2024-01-01' && f.issued_date <= '2025-12-31').to.equal(true);
      expect([50, 100, 250, 500, 1000]).to.include(f.authorized_mcf);
    }
  });

  it('without a range uses the three complete months before now', () => {
    expect(defaultRange(new Date('2026-05-17T10:00:00Z'))).to.deep.equal({ from: '2026-02-01', to: '2026-04-30' });
    expect(monthsIn({ from: '2026-02-01', to: '2026-04-30' })).to.deep.equal(['2026-02', '2026-03', '2026-04']);
    expect(monthsIn({ from: '2026-02-15', to: '2026-04-30' })).to.deep.equal(['2026-03', '2026-04']);
  });
});
