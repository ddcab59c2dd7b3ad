import { addDays, DomainPack, num, verdict } from './pack';

/** Form PR for a production month is due on the last working day of the following month. */
export function formPrDue(period: string): string {
  const [y, m] = period.split('-').map(Number);
  const d = new Date(Date.UTC(y, m + 1, 0));
  while (d.getUTCDay() === 0 || d.getUTCDay() === 6) d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

export function nextMonth(period: string): string {
  const [y, m] = period.split('-').map(Number);
  const d = new Date(Date.UTC(y, m, 1));
  return d.toISOString().slice(0, 7);
}

const NOT_PRODUCING = new Set(['shut_in', 'inactive', 'plugged', 'temporarily_abandoned']);

/**
 * Form PR (monthly production report): the month after the last filed one (`form_pr_period`)
 * falls due on the last working day of the month that follows it. Past due → red; due within
 * 7 days → amber; otherwise green with the due date. Production reported for a well whose
 * status says it does not produce carries the anomaly flag. A well only permitted has no
 * report due (grey).
 */
export const productionPack: DomainPack<null> = {
  domain: 'production',
  title: 'Form PR production reporting',
  short_title: 'Production',
  appliesTo: 'Well',
  entityFields: ['status', 'form_pr_period', 'production_oil_bbls', 'production_gas_mcf'],
  async load() {
    return null;
  },
  assess(well, _facts, today) {
    const p = well.properties;
    if (p.status === 'permitted') return verdict(today, { color: 'grey', reason: 'permitted, not producing: no Form PR due' });
    const last = /^\d{4}-\d{2}$/.test(p.form_pr_period ?? '') ? p.form_pr_period! : null;
    if (!last) return verdict(today, { color: 'grey', reason: 'no Form PR on record' });
    const produced = num(p.production_oil_bbls) + num(p.production_gas_mcf);
    const anomaly = NOT_PRODUCING.has(p.status ?? '') && produced > 0;
    const period = nextMonth(last);
    const due = formPrDue(period);
    const facts = { last_filed_period: last, next_period: period, oil_bbls: num(p.production_oil_bbls), gas_mcf: num(p.production_gas_mcf), status: p.status ?? null };
    const note = anomaly ? `; production reported for a ${p.status} well` : '';
    if (due < today) return verdict(today, { color: 'red', dueDate: due, anomaly, reason: `Form PR for ${period} not filed; was due ${due}${note}`, facts });
    if (due <= addDays(today, 7)) return verdict(today, { color: 'amber', dueDate: due, anomaly, reason: `Form PR for ${period} due ${due}${note}`, facts });
    return verdict(today, { color: anomaly ? 'amber' : 'green', dueDate: due, anomaly, reason: `Form PR filed through ${last}; next due ${due}${note}`, facts });
  },
};
