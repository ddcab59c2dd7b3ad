import type { Neighbor } from '../../../../queries/compliance/graph-facts';
import { addDays, dateOf, DomainPack, neighborsOf, num, verdict } from './pack';

interface Rule32Facts {
  authorizations: Map<string, Neighbor[]>;
}

/**
 * Rule 32 (flaring and venting): a well that flares or vents needs an R-32 authorization that
 * is unexpired, and the average daily volume (the month's flared + vented mcf over its
 * producing days) must stay within the authorized mcf/d. No authorization, or flaring past
 * expiry → red; above the authorized rate → red with the anomaly flag; expiry within 30 days
 * → amber.
 */
export const rule32Pack: DomainPack<Rule32Facts> = {
  domain: 'rule_32',
  title: 'Rule 32 flaring and venting',
  short_title: 'Flaring',
  appliesTo: 'Well',
  entityFields: ['gas_flared_mcf', 'gas_vented_mcf', 'producing_days', 'form_pr_period'],
  async load(graph, vertexIds) {
    return { authorizations: await graph.neighbors(vertexIds, 'FLARES_AT', 'Well', 'FlaringAuthorization', 'in', ['authorized_mcf', 'expiry_date', 'status']) };
  },
  assess(well, facts, today) {
    const p = well.properties;
    const flared = num(p.gas_flared_mcf);
    const vented = num(p.gas_vented_mcf);
    const volume = flared + vented;
    const authorizations = neighborsOf(facts.authorizations, well.vertexId);
    if (volume <= 0) return verdict(today, { color: 'green', reason: 'no flaring or venting reported', facts: { flared_mcf: 0, vented_mcf: 0 } });
    const days = num(p.producing_days) || 30;
    const rate = Math.round((volume / days) * 10) / 10;
    const base = { flared_mcf: flared, vented_mcf: vented, period: p.form_pr_period ?? null, flared_mcf_per_day: rate };
    if (authorizations.length === 0) {
      return verdict(today, { color: 'red', anomaly: true, reason: `${volume} mcf flared or vented without a Rule 32 authorization`, facts: base });
    }
    const active = authorizations.filter((a) => (dateOf(a.properties.expiry_date) ?? '9999-12-31') >= today && a.properties.status !== 'revoked');
    if (active.length === 0) {
      const expired = authorizations.map((a) => dateOf(a.properties.expiry_date) ?? '').sort().reverse()[0] || null;
      return verdict(today, { color: 'red', dueDate: expired, reason: `flaring after authorization expired on ${expired}`, facts: { ...base, authorization: authorizations[0].entityId, expiry_date: expired } });
    }
    const authorized = active.reduce((sum, a) => sum + num(a.properties.authorized_mcf), 0);
    const expiry = active.map((a) => dateOf(a.properties.expiry_date)).filter((d): d is string => !!d).sort()[0] ?? null;
    const details = { ...base, authorization: active.map((a) => a.entityId).join(','), authorized_mcf_per_day: authorized, expiry_date: expiry };
    if (rate > authorized) {
      return verdict(today, { color: 'red', anomaly: true, dueDate: expiry, reason: `flared ${rate} mcf/d above the authorized ${authorized} mcf/d`, facts: details });
    }
    if (expiry && expiry <= addDays(today, 30)) return verdict(today, { color: 'amber', dueDate: expiry, reason: `flaring authorization expires on ${expiry}`, facts: details });
    return verdict(today, { color: 'green', dueDate: expiry, reason: `flaring within authorization (${rate} of ${authorized} mcf/d)`, facts: details });
  },
};
