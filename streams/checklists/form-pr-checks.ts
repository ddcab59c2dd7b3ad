/**
 * The checks a filer expects of a Form PR before it goes out, on the figures alone: the gas
 * produced balances its dispositions, every disposition code is one the regulator knows, and
 * gas flared or vented (codes 10 and 11) is covered by a Rule 32 authorization in force for the
 * whole month. The same function judges a checklist's assessment, an evidence package and its
 * replay, so all three say the same. See docs/filings.md#validations.
 */

/** The regulator's gas disposition codes (code 04 was split into 10 and 11 in September 2021). */
export const DISPOSITION_CODES: Readonly<Record<string, string>> = {
  '01': 'lease fuel',
  '02': 'transmission line',
  '03': 'processing plant',
  '05': 'gas lift',
  '06': 'repressure',
  '07': 'carbon black',
  '08': 'storage injection',
  '09': 'shrinkage',
  '10': 'flared',
  '11': 'vented',
};

/**
 * How far the sum of the dispositions may be from the gas produced. The regulator publishes no
 * tolerance: one mcf absorbs the rounding of whole-mcf reporting and nothing more.
 */
export const GAS_BALANCE_TOLERANCE_MCF = 1;

export interface FormPrCheckInput {
  /** `YYYY-MM`. */
  period: string;
  /** Gas produced in the month (casinghead or gas-well gas), mcf; null when unknown. */
  gasMcf: number | null;
  /** Disposition code → mcf; null when the month's dispositions are unknown. */
  dispositions: Record<string, number> | null;
  /** Rule 32 authorizations of the unit's wells and lease, dates `YYYY-MM-DD` (null: open). */
  authorizations: Array<{ id: string; from: string | null; expires: string | null }>;
}

export interface FormPrCheck {
  key: 'dispositions_balance' | 'disposition_codes_valid' | 'flaring_authorized_in_month';
  passed: boolean;
  severity: 'info' | 'warning' | 'error';
  message: string;
}

function monthBounds(period: string): { first: string; last: string } {
  const [year, month] = period.split('-').map(Number);
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return { first: `${period}-01`, last: `${period}-${String(last).padStart(2, '0')}` };
}

export function formPrChecks(input: FormPrCheckInput): FormPrCheck[] {
  const checks: FormPrCheck[] = [];
  const d = input.dispositions;
  if (d === null || input.gasMcf === null) {
    checks.push({
      key: 'dispositions_balance',
      passed: false,
      severity: 'warning',
      message: `no gas production or disposition figures for ${input.period}: the balance cannot be checked`,
    });
  } else {
    const total = Object.values(d).reduce((sum, v) => sum + v, 0);
    const difference = Math.abs(total - input.gasMcf);
    const within = difference <= GAS_BALANCE_TOLERANCE_MCF;
    checks.push({
      key: 'dispositions_balance',
      passed: within,
      severity: within ? 'info' : 'error',
      message: `dispositions total ${total} mcf against ${input.gasMcf} mcf produced: ${within ? 'balanced' : `off by ${difference} mcf`} (tolerance ±${GAS_BALANCE_TOLERANCE_MCF} mcf)`,
    });
  }
  const unknown = Object.keys(d ?? {})
    .filter((code) => !(code in DISPOSITION_CODES))
    .sort();
  checks.push({
    key: 'disposition_codes_valid',
    passed: unknown.length === 0,
    severity: unknown.length === 0 ? 'info' : 'error',
    message:
      unknown.length === 0
        ? `disposition codes ${
            Object.keys(d ?? {})
              .sort()
              .join(', ') || '(none)'
          } are valid codes`
        : `not valid disposition codes: ${unknown.join(', ')}${unknown.includes('04') ? ' (04 was replaced by 10 flared and 11 vented in September 2021)' : ''}`,
  });
  const released = (d?.['10'] ?? 0) + (d?.['11'] ?? 0);
  if (released > 0) {
    const { first, last } = monthBounds(input.period);
    const inForce = input.authorizations.filter(
      (a) => (a.from === null || a.from <= first) && (a.expires === null || a.expires >= last),
    );
    checks.push({
      key: 'flaring_authorized_in_month',
      passed: inForce.length > 0,
      severity: inForce.length > 0 ? 'info' : 'error',
      message:
        inForce.length > 0
          ? `${released} mcf flared or vented under authorization ${inForce
              .map((a) => a.id)
              .sort()
              .join(', ')}, in force for all of ${input.period}`
          : `${released} mcf flared or vented in ${input.period} without a Rule 32 authorization in force for the whole month`,
    });
  } else {
    checks.push({
      key: 'flaring_authorized_in_month',
      passed: true,
      severity: 'info',
      message: `nothing flared or vented in ${input.period}`,
    });
  }
  return checks;
}
