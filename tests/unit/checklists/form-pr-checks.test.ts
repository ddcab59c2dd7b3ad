import { expect } from 'chai';
import { formPrChecks, GAS_BALANCE_TOLERANCE_MCF } from '../../../streams/checklists/form-pr-checks';

const byKey = (input: Parameters<typeof formPrChecks>[0]) =>
  Object.fromEntries(formPrChecks(input).map((c) => [c.key, c]));
const inForce = { id: 'R32-1', from: '2026-01-01', expires: '2026-12-31' };

describe('Form PR checks a filer expects', () => {
  it('dispositions balance the gas produced within the documented tolerance, and not beyond it', () => {
    const base = { period: '2026-10', authorizations: [] };
    expect(byKey({ ...base, gasMcf: 1000, dispositions: { '01': 100, '02': 900 } }).dispositions_balance).to.include({
      passed: true,
    });
    expect(
      byKey({ ...base, gasMcf: 1000, dispositions: { '01': 100, '02': 900 + GAS_BALANCE_TOLERANCE_MCF } })
        .dispositions_balance,
    ).to.include({ passed: true });
    const off = byKey({ ...base, gasMcf: 1000, dispositions: { '01': 100, '02': 902 } }).dispositions_balance;
    expect(off).to.include({ passed: false, severity: 'error' });
    expect(off.message).to.contain('off by 2 mcf').and.contain(`±${GAS_BALANCE_TOLERANCE_MCF} mcf`);
    expect(byKey({ ...base, gasMcf: null, dispositions: null }).dispositions_balance).to.include({
      passed: false,
      severity: 'warning',
    });
  });

  it('names disposition codes the regulator does not know, 04 with its replacement', () => {
    const checks = byKey({
      period: '2026-10',
      gasMcf: 300,
      dispositions: { '01': 100, '04': 100, '99': 100 },
      authorizations: [],
    });
    expect(checks.disposition_codes_valid).to.include({ passed: false, severity: 'error' });
    expect(checks.disposition_codes_valid.message)
      .to.contain('04, 99')
      .and.contain('replaced by 10 flared and 11 vented');
    expect(
      byKey({
        period: '2026-10',
        gasMcf: 300,
        dispositions: { '01': 100, '02': 100, '10': 50, '11': 50 },
        authorizations: [inForce],
      }).disposition_codes_valid,
    ).to.include({ passed: true });
  });

  it('codes 10 and 11 need an authorization in force for the whole month', () => {
    const flared = { period: '2026-10', gasMcf: 300, dispositions: { '02': 250, '10': 30, '11': 20 } };
    expect(byKey({ ...flared, authorizations: [inForce] }).flaring_authorized_in_month).to.include({ passed: true });
    expect(
      byKey({ ...flared, authorizations: [{ id: 'open', from: null, expires: null }] }).flaring_authorized_in_month,
    ).to.include({ passed: true });
    const lapsed = byKey({
      ...flared,
      authorizations: [{ id: 'R32-2', from: '2026-01-01', expires: '2026-10-15' }],
    }).flaring_authorized_in_month;
    expect(lapsed).to.include({ passed: false, severity: 'error' });
    expect(lapsed.message).to.contain('50 mcf flared or vented in 2026-10 without');
    expect(
      byKey({ ...flared, authorizations: [{ id: 'late', from: '2026-10-02', expires: null }] })
        .flaring_authorized_in_month,
    ).to.include({ passed: false });
    expect(byKey({ ...flared, authorizations: [] }).flaring_authorized_in_month).to.include({ passed: false });
    expect(
      byKey({ period: '2026-10', gasMcf: 300, dispositions: { '02': 300 }, authorizations: [] })
        .flaring_authorized_in_month,
    ).to.include({ passed: true });
  });
});
