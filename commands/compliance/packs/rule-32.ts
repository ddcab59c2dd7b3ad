import type { GraphFacts, Neighbor } from '../../../queries/compliance/graph-facts';
import { addDays, daysInMonth, lastDayOfMonth } from '../rules/calendar';
import { FIGURE_FIELDS, monthFigures } from '../rules/figures';
import { cite, CITATIONS, TEXAS_RULES, type TexasRules } from '../rules/texas-rules';
import { dateOf, type DomainPack, neighborsOf, num, sourceOf, verdict } from './pack';

export interface Rule32Facts {
  /** Well vertex id → the R-32 authorizations of the well and of its lease. */
  authorizations: Map<string, Neighbor[]>;
}

const AUTH_FIELDS = [
  'auth_number',
  'authorized_mcf',
  'effective_date',
  'issued_date',
  'expiry_date',
  'status',
] as const;
const VOID = new Set(['revoked', 'denied', 'withdrawn', 'cancelled']);

/** The terms of the authorizations that count (a revoked or denied one covers nothing): dates `YYYY-MM-DD`. */
export function authorizationTerms(authorizations: Array<Pick<Neighbor, 'entityId' | 'properties'>>) {
  return authorizations
    .filter((a) => !VOID.has(a.properties.status ?? ''))
    .map((a) => ({
      id: a.entityId,
      from: dateOf(a.properties.effective_date) ?? dateOf(a.properties.issued_date),
      expires: dateOf(a.properties.expiry_date),
      mcf: num(a.properties.authorized_mcf),
    }));
}

/** A well's authorizations: FLARES_AT the well, or FLARES_AT the lease it is LOCATED_IN. */
export async function loadFlaringAuthorizations(
  graph: GraphFacts,
  wellIds: string[] | null,
): Promise<Map<string, Neighbor[]>> {
  const [own, leases] = await Promise.all([
    graph.neighbors(wellIds, 'FLARES_AT', 'Well', 'FlaringAuthorization', 'in', AUTH_FIELDS),
    graph.neighbors(wellIds, 'LOCATED_IN', 'Well', 'Lease', 'out', []),
  ]);
  const leaseIds = [...new Set([...leases.values()].flat().map((l) => l.vertexId))];
  const onLease =
    leaseIds.length === 0
      ? new Map<string, Neighbor[]>()
      : await graph.neighbors(
          wellIds === null ? null : leaseIds,
          'FLARES_AT',
          'Lease',
          'FlaringAuthorization',
          'in',
          AUTH_FIELDS,
        );
  const out = new Map<string, Neighbor[]>();
  for (const wellId of new Set([...own.keys(), ...leases.keys()])) {
    const all = new Map<string, Neighbor>();
    for (const a of own.get(wellId) ?? []) all.set(a.vertexId, a);
    for (const lease of leases.get(wellId) ?? [])
      for (const a of onLease.get(lease.vertexId) ?? []) all.set(a.vertexId, a);
    if (all.size > 0) out.set(wellId, [...all.values()]);
  }
  return out;
}

/**
 * Rule 32 (flaring and venting), judged on the month the gas was released: the month's code
 * 10 + 11 volume over its producing days (the days of the month when none are reported)
 * against the authorizations in force during that month — of the well or of its lease.
 * An authorization that covered the whole month and expired later is compliant for that
 * month; no authorization, flaring after expiry (or one that lapsed during the month) and a
 * rate above the authorized mcf/d are red. "Expires soon" (amber) only for an authorization
 * still valid today that expires within `expiresSoonDays`. No figures for the month → grey.
 * The dashboard judges the newest reported month (`form_pr_period`) and names it.
 */
export function createRule32Pack(rules: TexasRules = TEXAS_RULES): DomainPack<Rule32Facts> {
  const rule = (what: string) => cite(CITATIONS.rule_32, what);
  return {
    domain: 'rule_32',
    title: 'Rule 32 flaring and venting',
    short_title: 'Flaring',
    appliesTo: ['Well'],
    entityFields: ['status', ...FIGURE_FIELDS],
    async load(graph, vertexIds) {
      return { authorizations: await loadFlaringAuthorizations(graph, vertexIds) };
    },
    assess(well, facts, today, period) {
      const p = well.properties;
      const source = sourceOf(well);
      if (p.status === 'permitted')
        return verdict(today, {
          color: 'grey',
          reason: rule('not yet drilled: nothing flared or vented to judge'),
          facts: { source, status: 'permitted' },
        });
      const month = period ?? (/^\d{4}-\d{2}$/.test(p.form_pr_period ?? '') ? p.form_pr_period! : null);
      if (!month)
        return verdict(today, {
          color: 'grey',
          reason: rule('no production reported in the graph: flaring and venting unknown'),
          facts: { source, period: null },
        });
      const figures = monthFigures(p, month);
      const flared = figures ? (figures.flaredMcf ?? (figures.dispositionsReported ? 0 : null)) : null;
      const vented = figures ? (figures.ventedMcf ?? (figures.dispositionsReported ? 0 : null)) : null;
      if (flared === null && vented === null) {
        return verdict(today, {
          color: 'grey',
          reason: rule(`no flared or vented (code 10/11) figures for ${month} in the graph`),
          facts: { source, period: month },
        });
      }
      const volume = (flared ?? 0) + (vented ?? 0);
      const base = { source, period: month, flared_mcf: flared, vented_mcf: vented };
      if (volume <= 0)
        return verdict(today, { color: 'green', reason: rule(`no gas flared or vented in ${month}`), facts: base });
      const days = figures?.producingDays && figures.producingDays > 0 ? figures.producingDays : daysInMonth(month);
      const rate = Math.round((volume / days) * 10) / 10;
      const released = { ...base, producing_days: days, flared_mcf_per_day: rate };
      const start = `${month}-01`;
      const end = lastDayOfMonth(month);
      const all = authorizationTerms(neighborsOf(facts.authorizations, well.vertexId));
      const inMonth = all.filter((a) => (!a.from || a.from <= end) && (!a.expires || a.expires >= start));
      const wholeMonth = inMonth.filter((a) => (!a.from || a.from <= start) && (!a.expires || a.expires >= end));
      const what = `${volume} mcf flared or vented in ${month} (${rate} mcf/d over ${days} days)`;
      if (all.length === 0)
        return verdict(today, {
          color: 'red',
          anomaly: true,
          reason: rule(`${what} without a Rule 32 authorization`),
          facts: released,
        });
      if (wholeMonth.length === 0) {
        const lapsed = inMonth.find((a) => a.expires && a.expires < end);
        const late = inMonth.find((a) => a.from && a.from > start);
        const before = all
          .filter((a) => a.expires && a.expires < start)
          .sort((a, b) => b.expires!.localeCompare(a.expires!))[0];
        const why = lapsed
          ? `authorization ${lapsed.id} expired on ${lapsed.expires}, during ${month}: flaring after expiry`
          : late
            ? `authorization ${late.id} took effect only on ${late.from}: flaring in ${month} before it`
            : before
              ? `flaring after authorization ${before.id} expired on ${before.expires}`
              : `no authorization in force during ${month}`;
        const a = lapsed ?? late ?? before ?? null;
        return verdict(today, {
          color: 'red',
          reason: rule(`${what}: ${why}`),
          facts: { ...released, authorization: a?.id ?? null, expiry_date: a?.expires ?? null },
        });
      }
      const ids = wholeMonth.map((a) => a.id).join(', ');
      if (wholeMonth.some((a) => a.mcf === null)) {
        return verdict(today, {
          color: 'grey',
          reason: rule(`${what}: authorization ${ids} has no authorized volume on record`),
          facts: { ...released, authorization: ids },
        });
      }
      const authorized = wholeMonth.reduce((sum, a) => sum + a.mcf!, 0);
      const stillValid = wholeMonth.filter((a) => !a.expires || a.expires >= today);
      const expiry =
        stillValid
          .map((a) => a.expires)
          .filter((d): d is string => !!d)
          .sort()[0] ?? null;
      const details = {
        ...released,
        authorization: ids,
        authorized_mcf_per_day: authorized,
        expiry_date:
          wholeMonth
            .map((a) => a.expires)
            .filter(Boolean)
            .sort()[0] ?? null,
      };
      if (rate > authorized)
        return verdict(today, {
          color: 'red',
          anomaly: true,
          reason: rule(`${what}, above the ${authorized} mcf/d authorized under ${ids}`),
          facts: details,
        });
      if (expiry && expiry <= addDays(today, rules.expiresSoonDays)) {
        return verdict(today, {
          color: 'amber',
          dueDate: expiry,
          reason: rule(
            `${what}, within the ${authorized} mcf/d authorized under ${ids}; the authorization expires on ${expiry}`,
          ),
          facts: details,
        });
      }
      return verdict(today, {
        color: 'green',
        dueDate: expiry,
        reason: rule(`${what}, within the ${authorized} mcf/d authorized under ${ids}`),
        facts: details,
      });
    },
  };
}

export const rule32Pack = createRule32Pack();
