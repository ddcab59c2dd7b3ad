import type { Knex } from 'knex';
import { ANOMALIES, ANOMALY_OPEN_DAYS, CELLS, ENTITIES } from './tables';

export const SEVERITY_SQL = (column: string) => `CASE ${column} WHEN 'red' THEN 4 WHEN 'amber' THEN 3 WHEN 'blue' THEN 2 WHEN 'green' THEN 1 ELSE 0 END`;

/**
 * A flagged anomaly counts whatever its domain (another context may name one no pack
 * installs); its cell shows only under an installed domain.
 *
 * One row per entity of the dashboard as it stood at `at`: the graph entities alive then
 * (plus entities known only from an open flagged anomaly), their cells valid then merged with
 * open anomalies (worst color per domain), and per bucket whether the entity has a cell in it.
 * The summary counts and the matrix filters use these same columns (spec 2 §4: "the same
 * selector the matrix uses"), and the projector uses them for the daily snapshot.
 *
 * Columns: entity_id, entity_type, entity_name, domains (jsonb domain → color), severity
 * (0 grey … 4 red), in_overdue, in_due_7d, in_due_30d, in_anomalies, next_due (date).
 */
export interface RowsSql {
  sql: string;
  bindings: { tenant: string; at: Date; domains: string[]; only?: string[] };
}

/**
 * `colors: false` leaves `domains` empty (counts and paging do not need the color map);
 * `only` restricts the rows to some entities (the colors of one matrix page).
 */
export function dashboardRows(tenantId: string, at: Date, domains: readonly string[], { colors = true, only }: { colors?: boolean; only?: string[] } = {}): RowsSql {
  const restrict = only ? 'AND entity_id = ANY(CAST(:only AS text[]))' : '';
  const colorMap = colors
    ? `coalesce(jsonb_object_agg(p.domain, CASE p.severity WHEN 4 THEN 'red' WHEN 3 THEN 'amber' WHEN 2 THEN 'blue' WHEN 1 THEN 'green' ELSE 'grey' END)
                     FILTER (WHERE p.domain IS NOT NULL), '{}'::jsonb)`
    : `'{}'::jsonb`;
  return {
    sql:
    `WITH alive AS (
        SELECT entity_id, entity_type, coalesce(name_prop, well_name_prop, entity_id) AS entity_name
          FROM ${ENTITIES}
         WHERE tenant_id = :tenant AND valid_from <= :at AND (valid_to IS NULL OR valid_to > :at) ${restrict}),
      flagged AS (
        SELECT DISTINCT entity_id, entity_type, domain
          FROM ${ANOMALIES}
         WHERE tenant_id = :tenant AND flagged_at <= :at AND observed_at > (CAST(:at AS timestamptz) - interval '${ANOMALY_OPEN_DAYS} days')
           ${restrict}),
      ents AS (
        SELECT * FROM alive
        UNION ALL
        SELECT DISTINCT ON (f.entity_id) f.entity_id, f.entity_type, f.entity_id
          FROM flagged f WHERE NOT EXISTS (SELECT 1 FROM alive a WHERE a.entity_id = f.entity_id)),
      cells AS (
        SELECT entity_id, domain, color, bucket, anomaly, due_date
          FROM ${CELLS}
         WHERE tenant_id = :tenant AND valid_from <= :at AND (valid_to IS NULL OR valid_to > :at) AND domain = ANY(CAST(:domains AS text[])) ${restrict}
        UNION ALL
        SELECT entity_id, domain, 'amber', 'anomalies', true, NULL::date FROM flagged),
      per_cell AS (
        SELECT entity_id, domain, max(${SEVERITY_SQL('color')}) AS severity,
               bool_or(bucket = 'overdue') AS ov, bool_or(bucket = 'due_7d') AS d7, bool_or(bucket = 'due_30d') AS d30,
               bool_or(anomaly) AS an, min(due_date) AS due
          FROM cells GROUP BY entity_id, domain)
     SELECT e.entity_id, e.entity_type, e.entity_name,
            ${colorMap} AS domains,
            coalesce(max(p.severity), 0) AS severity,
            coalesce(bool_or(p.ov), false) AS in_overdue, coalesce(bool_or(p.d7), false) AS in_due_7d,
            coalesce(bool_or(p.d30), false) AS in_due_30d, coalesce(bool_or(p.an), false) AS in_anomalies,
            min(p.due) AS next_due
       FROM ents e LEFT JOIN per_cell p ON p.entity_id = e.entity_id
      GROUP BY e.entity_id, e.entity_type, e.entity_name`,
    bindings: { tenant: tenantId, at, domains: [...domains], ...(only ? { only } : {}) },
  };
}

export interface BucketCounts {
  overdue: number;
  due_7d: number;
  due_30d: number;
  anomalies: number;
  entities: number;
  colors: Record<string, number>;
}

/** Distinct entities per bucket (and entities by worst color) at `at`. */
export async function bucketCounts(knex: Knex | Knex.Transaction, tenantId: string, at: Date, domains: readonly string[]): Promise<BucketCounts> {
  const rows = dashboardRows(tenantId, at, domains, { colors: false });
  const {
    rows: [r],
  } = await knex.raw(
    `SELECT count(*) FILTER (WHERE in_overdue)::int AS overdue, count(*) FILTER (WHERE in_due_7d)::int AS due_7d,
            count(*) FILTER (WHERE in_due_30d)::int AS due_30d, count(*) FILTER (WHERE in_anomalies)::int AS anomalies,
            count(*)::int AS entities,
            count(*) FILTER (WHERE severity = 4)::int AS red, count(*) FILTER (WHERE severity = 3)::int AS amber,
            count(*) FILTER (WHERE severity = 2)::int AS blue, count(*) FILTER (WHERE severity = 1)::int AS green,
            count(*) FILTER (WHERE severity = 0)::int AS grey
       FROM (${rows.sql}) AS d`,
    rows.bindings,
  );
  return { overdue: r.overdue, due_7d: r.due_7d, due_30d: r.due_30d, anomalies: r.anomalies, entities: r.entities, colors: { red: r.red, amber: r.amber, blue: r.blue, green: r.green, grey: r.grey } };
}
