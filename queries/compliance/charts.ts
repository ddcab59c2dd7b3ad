import type { Knex } from 'knex';
import { EDGES, VERTICES } from '../../projections/graph/property-graph';
import { bucketCounts, dashboardRows } from '../../projections/compliance/selectors';
import { CELLS, DAILY, ENTITIES } from '../../projections/compliance/tables';
import { namespaceOf } from '../../streams/graph/names';
import { isoDate } from './dashboard';

const DAY_MS = 86_400_000;
const addDays = (day: string, n: number) => new Date(Date.parse(day) + n * DAY_MS).toISOString().slice(0, 10);
/** Monday of the ISO week holding `day`. */
const weekStart = (day: string) => addDays(day, -((new Date(day).getUTCDay() + 6) % 7));

/**
 * Deadline chart: the due dates of the current cells of live entities, bucketed against
 * `today` (overdue, within 7 days, within 30 days, later) overall and per domain, and per
 * ISO week from this week for `weeks` weeks (earlier dates fall in `overdue`).
 */
export async function deadlinesChart(
  knex: Knex,
  tenantId: string,
  domains: readonly string[],
  today: string,
  weeks: number,
) {
  const { rows } = await knex.raw(
    `SELECT c.domain, c.due_date, count(*)::int AS n
       FROM ${CELLS} c
      WHERE c.tenant_id = ? AND c.valid_to IS NULL AND c.due_date IS NOT NULL AND c.domain = ANY(?::text[])
        AND EXISTS (SELECT 1 FROM ${ENTITIES} e WHERE e.tenant_id = c.tenant_id AND e.entity_id = c.entity_id AND e.valid_to IS NULL)
      GROUP BY c.domain, c.due_date`,
    [tenantId, [...domains]],
  );
  const empty = () => ({ overdue: 0, due_7d: 0, due_30d: 0, later: 0 });
  const buckets = empty();
  const byDomain = Object.fromEntries(domains.map((d) => [d, empty()]));
  const first = weekStart(today);
  const series = Array.from({ length: weeks }, (_, i) => ({
    week_start: addDays(first, i * 7),
    count: 0,
    by_domain: Object.fromEntries(domains.map((d) => [d, 0])) as Record<string, number>,
  }));
  let total = 0;
  for (const r of rows as Array<{ domain: string; due_date: Date | string; n: number }>) {
    const due = isoDate(r.due_date);
    const bucket =
      due < today ? 'overdue' : due <= addDays(today, 7) ? 'due_7d' : due <= addDays(today, 30) ? 'due_30d' : 'later';
    buckets[bucket] += r.n;
    byDomain[r.domain][bucket] += r.n;
    total += r.n;
    if (due >= first) {
      const week = series[Math.floor((Date.parse(due) - Date.parse(first)) / (7 * DAY_MS))];
      if (week) {
        week.count += r.n;
        week.by_domain[r.domain] += r.n;
      }
    }
  }
  return { as_of: today, total, buckets, by_domain: byDomain, weeks: series };
}

/**
 * Trend: the recorded daily snapshots of the last `days` days, oldest first. A tenant with no
 * snapshot at all gets exactly one point, the current counts, marked `recorded: false`.
 */
export async function trendChart(knex: Knex, tenantId: string, domains: readonly string[], now: Date, days: number) {
  const today = now.toISOString().slice(0, 10);
  const from = addDays(today, -(days - 1));
  const any = await knex(DAILY).where('tenant_id', tenantId).first('day');
  if (!any) {
    const c = await bucketCounts(knex, tenantId, now);
    return {
      days,
      points: [
        {
          date: today,
          overdue_count: c.overdue,
          due_7_days_count: c.due_7d,
          due_30_days_count: c.due_30d,
          anomaly_count: c.anomalies,
          entities: c.entities,
          colors: c.colors,
          recorded: false,
        },
      ],
    };
  }
  const rows = await knex(DAILY)
    .where('tenant_id', tenantId)
    .andWhere('day', '>=', from)
    .andWhere('day', '<=', today)
    .orderBy('day');
  return {
    days,
    points: rows.map((r) => ({
      date: r.day,
      overdue_count: r.overdue_count,
      due_7_days_count: r.due_7_days_count,
      due_30_days_count: r.due_30_days_count,
      anomaly_count: r.anomaly_count,
      entities: r.entities,
      colors: r.colors,
      recorded: true,
    })),
  };
}

/** Filing status distribution: per domain, live entities by their cell's color (grey = unassessed). */
export async function filingsChart(
  knex: Knex,
  tenantId: string,
  packs: ReadonlyArray<{ domain: string; title: string }>,
  now: Date,
) {
  const rows = dashboardRows(tenantId, now);
  const { rows: counted } = await knex.raw(
    `SELECT c.key AS domain, c.value AS color, count(*)::int AS n FROM (${rows.sql}) AS d, jsonb_each_text(d.domains) AS c GROUP BY c.key, c.value`,
    rows.bindings,
  );
  const { rows: totals } = await knex.raw(`SELECT count(*)::int AS n FROM (${rows.sql}) AS d`, rows.bindings);
  const entities = totals[0].n as number;
  const result = packs.map((p) => {
    const colors = { green: 0, amber: 0, red: 0, blue: 0, grey: 0 } as Record<string, number>;
    for (const r of counted as Array<{ domain: string; color: string; n: number }>)
      if (r.domain === p.domain) colors[r.color] += r.n;
    colors.grey += entities - Object.values(colors).reduce((a, b) => a + b, 0);
    return { domain: p.domain, title: p.title, total: entities, ...colors };
  });
  return { entities, domains: result };
}

/**
 * Flaring volumes by month from the knowledge graph, for the `months` months ending with the
 * current one: flared (disposition 10) and vented (11) mcf of FlaringEvent vertices by event
 * month, Form PR flared and vented mcf of wells by reporting period, and the flaring
 * authorizations' state today. Months without data are real zeros.
 */
export async function flaringChart(knex: Knex, tenantId: string, today: string, months: number) {
  const namespace = namespaceOf(tenantId);
  const [y, m] = today.split('-').map(Number);
  const periods = Array.from({ length: months }, (_, i) =>
    new Date(Date.UTC(y, m - months + i, 1)).toISOString().slice(0, 7),
  );
  const first = periods[0];
  const [{ rows: events }, { rows: reported }, { rows: auths }] = await Promise.all([
    knex.raw(
      `SELECT substr(properties->>'date', 1, 7) AS month, properties->>'disposition_code' AS code,
              sum(CASE WHEN properties->>'volume_mcf' ~ '^[0-9.]+$' THEN (properties->>'volume_mcf')::numeric ELSE 0 END)::float AS mcf, count(*)::int AS n
         FROM ${VERTICES} WHERE namespace = ? AND label = 'FlaringEvent' AND substr(properties->>'date', 1, 7) >= ?
        GROUP BY 1, 2`,
      [namespace, first],
    ),
    knex.raw(
      `SELECT properties->>'form_pr_period' AS month,
              sum(CASE WHEN properties->>'gas_flared_mcf' ~ '^[0-9.]+$' THEN (properties->>'gas_flared_mcf')::numeric ELSE 0 END)::float AS flared,
              sum(CASE WHEN properties->>'gas_vented_mcf' ~ '^[0-9.]+$' THEN (properties->>'gas_vented_mcf')::numeric ELSE 0 END)::float AS vented,
              count(*) FILTER (WHERE coalesce(properties->>'gas_flared_mcf', '0') NOT IN ('0', '') OR coalesce(properties->>'gas_vented_mcf', '0') NOT IN ('0', ''))::int AS wells
         FROM ${VERTICES} WHERE namespace = ? AND label = 'Well' AND properties->>'form_pr_period' >= ?
        GROUP BY 1`,
      [namespace, first],
    ),
    knex.raw(
      `SELECT count(*) FILTER (WHERE coalesce(properties->>'expiry_date', '9999') >= ?)::int AS active,
              count(*) FILTER (WHERE properties->>'expiry_date' < ?)::int AS expired,
              coalesce(sum(CASE WHEN coalesce(properties->>'expiry_date', '9999') >= ? AND properties->>'authorized_mcf' ~ '^[0-9.]+$' THEN (properties->>'authorized_mcf')::numeric END), 0)::float AS authorized,
              (SELECT count(DISTINCT e.to_id)::int FROM ${EDGES} e WHERE e.namespace = ? AND e.label = 'FLARES_AT' AND e.from_label = 'FlaringAuthorization' AND e.to_label = 'Well') AS wells
         FROM ${VERTICES} WHERE namespace = ? AND label = 'FlaringAuthorization'`,
      [today, today, today, namespace, namespace],
    ),
  ]);
  const series = periods.map((month) => ({
    month,
    flared_mcf: 0,
    vented_mcf: 0,
    flaring_events: 0,
    reported_flared_mcf: 0,
    reported_vented_mcf: 0,
    wells_flaring: 0,
  }));
  const at = new Map(series.map((s) => [s.month, s]));
  for (const e of events as Array<{ month: string; code: string; mcf: number; n: number }>) {
    const s = at.get(e.month);
    if (!s) continue;
    if (e.code === '11') s.vented_mcf += e.mcf;
    else s.flared_mcf += e.mcf;
    s.flaring_events += e.n;
  }
  for (const r of reported as Array<{ month: string; flared: number; vented: number; wells: number }>) {
    const s = at.get(r.month);
    if (!s) continue;
    s.reported_flared_mcf += r.flared;
    s.reported_vented_mcf += r.vented;
    s.wells_flaring += r.wells;
  }
  const a = auths[0];
  return {
    unit: 'mcf',
    months: series,
    authorizations: {
      active: a.active,
      expired: a.expired,
      authorized_mcf_per_day: a.authorized,
      wells_covered: a.wells,
    },
  };
}
