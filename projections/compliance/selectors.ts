import type { Knex } from 'knex';
import { COUNT_COLUMNS, SEVERITY_SQL } from './dashboard-rows';
import { ANOMALIES, ANOMALY_OPEN_DAYS, COUNTS, ROWS } from './tables';

export { SEVERITY_SQL } from './dashboard-rows';

/**
 * A flagged anomaly counts whatever its domain (another context may name one no pack
 * installs); its cell shows only under an installed domain.
 *
 * One row per entity of the dashboard as it stood at `at`: the projector's entity rows valid
 * then (graph entities alive then, their cells valid then, worst color per domain), with the
 * anomalies open at `at` laid over them (an open anomaly makes its domain at least amber and
 * its entity an anomaly; an entity known only from an open anomaly is a row of its own). The
 * overlay is the only part done per request: anomalies expire with time, not with an event,
 * and the open ones are few. The summary counts and the matrix filters use these same columns
 * ("the same selector the matrix uses").
 *
 * Columns: entity_id, entity_type, entity_name, domains (jsonb domain → color), severity
 * (0 grey … 4 red), in_overdue, in_due_7d, in_due_30d, in_anomalies, next_due (date).
 */
export interface RowsSql {
  sql: string;
  bindings: { tenant: string; at: Date; only?: string[] };
}

export const flaggedSql = (restrict: string) =>
  `SELECT entity_id, min(entity_type) AS entity_type, array_agg(DISTINCT domain) AS flagged
     FROM ${ANOMALIES}
    WHERE tenant_id = :tenant AND flagged_at <= :at AND observed_at > (CAST(:at AS timestamptz) - interval '${ANOMALY_OPEN_DAYS} days') ${restrict}
    GROUP BY entity_id`;

export const validAt = `tenant_id = :tenant AND valid_from <= :at AND (valid_to IS NULL OR valid_to > :at)`;
export const ROW_COLUMNS =
  'entity_id, entity_type, entity_name, domains, severity, in_overdue, in_due_7d, in_due_30d, in_anomalies, next_due';

/** The rows of the entities of a `flagged` CTE (`flaggedSql`), with their open anomalies laid over. */
export const overlaidSql = (restrict: string) =>
  `SELECT f.entity_id, coalesce(b.entity_type, f.entity_type) AS entity_type, coalesce(b.entity_name, f.entity_id) AS entity_name,
          coalesce(b.domains, '{}'::jsonb) || (SELECT coalesce(jsonb_object_agg(d, 'amber'), '{}'::jsonb) FROM unnest(f.flagged) AS d WHERE ${SEVERITY_SQL('b.domains->>d')} < 3) AS domains,
          greatest(coalesce(b.severity, 0), 3)::smallint AS severity, coalesce(b.in_overdue, false) AS in_overdue, coalesce(b.in_due_7d, false) AS in_due_7d,
          coalesce(b.in_due_30d, false) AS in_due_30d, true AS in_anomalies, b.next_due
     FROM flagged f LEFT JOIN (SELECT * FROM ${ROWS} WHERE ${validAt} ${restrict}) b ON b.entity_id = f.entity_id`;

/** `only` restricts the rows to some entities. */
export function dashboardRows(tenantId: string, at: Date, { only }: { only?: string[] } = {}): RowsSql {
  const restrict = only ? 'AND entity_id = ANY(CAST(:only AS text[]))' : '';
  return {
    sql: `WITH flagged AS (${flaggedSql(restrict)})
     SELECT ${ROW_COLUMNS}
       FROM ${ROWS} b
      WHERE ${validAt} ${restrict} AND NOT EXISTS (SELECT 1 FROM flagged f WHERE f.entity_id = b.entity_id)
     UNION ALL
     ${overlaidSql(restrict)}`,
    bindings: { tenant: tenantId, at, ...(only ? { only } : {}) },
  };
}

/** The entities with an anomaly open at `at` (few: the part of the dashboard laid over the rows per request). */
export async function openAnomalyEntities(knex: Knex, tenantId: string, at: Date): Promise<string[]> {
  const { rows } = await knex.raw(`SELECT entity_id FROM (${flaggedSql('')}) AS f`, { tenant: tenantId, at });
  return (rows as Array<{ entity_id: string }>).map((r) => r.entity_id);
}

export interface BucketCounts {
  overdue: number;
  due_7d: number;
  due_30d: number;
  anomalies: number;
  entities: number;
  colors: Record<string, number>;
}

/**
 * Distinct entities per bucket (and entities by worst color) at `at`: the projector's counts
 * version valid then, corrected for the anomalies open then (each one's entity joins the
 * anomalies bucket, turns at least amber, and is counted if the graph does not know it).
 */
export async function bucketCounts(knex: Knex | Knex.Transaction, tenantId: string, at: Date): Promise<BucketCounts> {
  const {
    rows: [r],
  } = await knex.raw(
    `WITH flagged AS (${flaggedSql('')}),
      counted AS (
        SELECT * FROM ${COUNTS} WHERE tenant_id = :tenant AND valid_from <= :at ORDER BY valid_from DESC, id DESC LIMIT 1),
      overlay AS (
        SELECT count(*) FILTER (WHERE NOT coalesce(b.in_anomalies, false)) AS anomalies,
               count(*) FILTER (WHERE b.entity_id IS NULL) AS entities,
               count(*) FILTER (WHERE coalesce(b.severity, 0) < 3) AS amber,
               count(*) FILTER (WHERE b.severity = 2) AS blue, count(*) FILTER (WHERE b.severity = 1) AS green, count(*) FILTER (WHERE b.severity = 0) AS grey
          FROM flagged f LEFT JOIN (SELECT entity_id, severity, in_anomalies FROM ${ROWS} WHERE ${validAt}) b ON b.entity_id = f.entity_id)
     SELECT ${COUNT_COLUMNS.map((c) => `coalesce((SELECT ${c} FROM counted), 0)${['anomalies', 'entities', 'amber'].includes(c) ? ` + (SELECT ${c} FROM overlay)` : ['blue', 'green', 'grey'].includes(c) ? ` - (SELECT ${c} FROM overlay)` : ''} AS ${c}`).join(', ')}`,
    { tenant: tenantId, at },
  );
  const n = (column: string) => Number(r[column]);
  return {
    overdue: n('overdue'),
    due_7d: n('due_7d'),
    due_30d: n('due_30d'),
    anomalies: n('anomalies'),
    entities: n('entities'),
    colors: { red: n('red'), amber: n('amber'), blue: n('blue'), green: n('green'), grey: n('grey') },
  };
}
