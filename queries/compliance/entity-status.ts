import type { Knex } from 'knex';
import { EDGES, VERTICES } from '../../projections/graph/property-graph';
import { dashboardRows } from '../../projections/compliance/selectors';
import { ANOMALIES, ANOMALY_OPEN_DAYS, CELLS, ENTITIES } from '../../projections/compliance/tables';
import { namespaceOf } from '../../streams/graph/names';
import { isoDate, type MATRIX_BUCKETS } from './dashboard';

/**
 * What an assistant asks of the compliance dashboard beyond the matrix: one entity's verdicts
 * with their reasons, and the entities of one bucket with the cells that put them there,
 * grouped by operator, lease or domain. Same read model and selector as the dashboard.
 */
export type Bucket = (typeof MATRIX_BUCKETS)[number];
export const GROUPINGS = ['operator', 'lease', 'domain'] as const;
export type Grouping = (typeof GROUPINGS)[number];

export interface CellView {
  domain: string;
  color: string;
  bucket: string | null;
  due_date: string | null;
  anomaly: boolean;
  reason: string;
  facts: Record<string, unknown>;
}

const cellView = (r: any): CellView => ({
  domain: r.domain,
  color: r.color,
  bucket: r.bucket,
  due_date: r.due_date ? isoDate(r.due_date) : null,
  anomaly: r.anomaly,
  reason: r.reason,
  facts: r.facts ?? {},
});

/**
 * The entity as the dashboard knows it now (by entity id or, for a well, its API number), with
 * its current cells and its open anomalies (the ten latest); null when unknown. One statement:
 * an assistant's tool asks it on every turn that names an entity.
 */
export async function entityStatus(knex: Knex, tenantId: string, entityId: string, domains: readonly string[]) {
  const { rows } = await knex.raw(
    `SELECT e.entity_id, e.entity_type, e.name_prop, e.well_name_prop,
            (SELECT coalesce(json_agg(c ORDER BY c.domain), '[]')
               FROM (SELECT domain, color, bucket, due_date, anomaly, reason, facts FROM ${CELLS}
                      WHERE tenant_id = :tenantId AND entity_id = :entityId AND valid_to IS NULL AND domain = ANY(:domains)) c) AS cells,
            (SELECT coalesce(json_agg(a ORDER BY a.observed_at DESC), '[]')
               FROM (SELECT domain, kind, detail, observed_at FROM ${ANOMALIES}
                      WHERE tenant_id = :tenantId AND entity_id = :entityId AND observed_at > now() - interval '${ANOMALY_OPEN_DAYS} days'
                      ORDER BY observed_at DESC LIMIT 10) a) AS anomalies
       FROM ${ENTITIES} e
      WHERE e.tenant_id = :tenantId AND e.entity_id = :entityId AND e.valid_to IS NULL
      LIMIT 1`,
    { tenantId, entityId, domains: [...domains] },
  );
  const entity = rows[0];
  if (!entity) return null;
  return {
    entity_id: entity.entity_id as string,
    entity_type: entity.entity_type as string,
    entity_name: (entity.name_prop ?? entity.well_name_prop ?? entity.entity_id) as string,
    cells: (entity.cells as any[]).map(cellView),
    anomalies: (entity.anomalies as any[]).map((a) => ({
      domain: a.domain as string,
      kind: a.kind as string,
      detail: a.detail as string,
      observed_at: new Date(a.observed_at).toISOString(),
    })),
  };
}

/**
 * An entity's past verdicts, newest first: each closed cell with when it held (a verdict
 * changes when the facts or the date move it), so a reviewer sees how a cell became red.
 */
export async function verdictHistory(
  knex: Knex,
  tenantId: string,
  entityId: string,
  domains: readonly string[],
  limit: number,
) {
  const rows = await knex(CELLS)
    .select('domain', 'color', 'bucket', 'due_date', 'reason', 'valid_from', 'valid_to')
    .where({ tenant_id: tenantId, entity_id: entityId })
    .whereNotNull('valid_to')
    .whereIn('domain', [...domains])
    .orderBy('valid_to', 'desc')
    .limit(limit);
  return rows.map((r) => ({
    domain: r.domain as string,
    color: r.color as string,
    bucket: (r.bucket as string | null) ?? null,
    due_date: r.due_date ? isoDate(r.due_date) : null,
    reason: r.reason as string,
    valid_from: new Date(r.valid_from).toISOString(),
    valid_to: new Date(r.valid_to).toISOString(),
  }));
}

export interface BucketRow {
  entity_id: string;
  entity_type: string;
  entity_name: string;
  operator: string | null;
  lease: string | null;
  next_due: string | null;
  cells: Array<Pick<CellView, 'domain' | 'reason' | 'due_date'>>;
}

/**
 * Entities in `bucket` at `at` (most urgent first), the cells of that bucket for the first
 * `limit` of them, and counts per group over all of them.
 */
export async function bucketEntities(
  knex: Knex,
  tenantId: string,
  at: Date,
  domains: readonly string[],
  bucket: Bucket,
  groupBy: Grouping,
  limit: number,
) {
  const rows = dashboardRows(tenantId, at);
  const { rows: found } = await knex.raw(
    // A lease or an operator row groups under its own operator (OPERATED_BY) and a lease under itself, as a well under its properties.
    `SELECT d.entity_id, d.entity_type, d.entity_name, d.next_due,
            COALESCE(v.properties->>'operator', CASE WHEN d.entity_type = 'Operator' THEN d.entity_name END, op.name) AS operator,
            COALESCE(v.properties->>'lease', CASE WHEN d.entity_type = 'Lease' THEN d.entity_name END) AS lease
       FROM (${rows.sql}) AS d
       LEFT JOIN ${VERTICES} v ON v.namespace = :namespace AND v.entity_id = d.entity_id AND v.label = d.entity_type
       LEFT JOIN LATERAL (
         SELECT o.properties->>'name' AS name FROM ${EDGES} e JOIN ${VERTICES} o ON o.id = e.to_id AND o.label = 'Operator'
          WHERE e.namespace = :namespace AND e.from_id = v.id AND e.label = 'OPERATED_BY' ORDER BY o.entity_id LIMIT 1
       ) op ON true
      WHERE d.in_${bucket}
      ORDER BY d.next_due NULLS LAST, d.entity_name, d.entity_id`,
    { ...rows.bindings, namespace: namespaceOf(tenantId) },
  );
  const all = found as Array<{
    entity_id: string;
    entity_type: string;
    entity_name: string;
    next_due: Date | string | null;
    operator: string | null;
    lease: string | null;
  }>;
  const shown = all.slice(0, limit);
  const ids = shown.map((r) => r.entity_id);
  const cells = ids.length === 0 ? [] : await bucketCells(knex, tenantId, at, domains, bucket, ids);
  const byEntity = new Map<string, BucketRow['cells']>();
  for (const c of cells)
    byEntity.set(c.entity_id, [
      ...(byEntity.get(c.entity_id) ?? []),
      { domain: c.domain, reason: c.reason, due_date: c.due_date },
    ]);
  const types = new Map<string, number>();
  for (const r of all) types.set(r.entity_type, (types.get(r.entity_type) ?? 0) + 1);
  const groups = new Map<string, number>();
  if (groupBy === 'domain') {
    for (const c of await bucketCells(knex, tenantId, at, domains, bucket, null))
      groups.set(c.domain, (groups.get(c.domain) ?? 0) + 1);
  } else {
    for (const r of all) groups.set(r[groupBy] ?? '(none)', (groups.get(r[groupBy] ?? '(none)') ?? 0) + 1);
  }
  return {
    bucket,
    total: all.length,
    /** How many of each entity type (Lease, Well, Operator…), most first. */
    types: [...types.entries()]
      .map(([type, count]) => ({ type, count }))
      .sort((a, b) => b.count - a.count || a.type.localeCompare(b.type)),
    group_by: groupBy,
    groups: [...groups.entries()]
      .map(([key, count]) => ({ key, count }))
      .sort((a, b) => b.count - a.count || a.key.localeCompare(b.key)),
    rows: shown.map((r): BucketRow => ({
      ...r,
      next_due: r.next_due ? isoDate(r.next_due) : null,
      cells: byEntity.get(r.entity_id) ?? [],
    })),
  };
}

/** The cells (or open anomalies) that put entities in `bucket`, one row per entity and domain. */
async function bucketCells(
  knex: Knex,
  tenantId: string,
  at: Date,
  domains: readonly string[],
  bucket: Bucket,
  only: string[] | null,
) {
  if (bucket === 'anomalies') {
    const q = knex(ANOMALIES)
      .where({ tenant_id: tenantId })
      .andWhere('flagged_at', '<=', at)
      .andWhere('observed_at', '>', new Date(at.getTime() - ANOMALY_OPEN_DAYS * 86_400_000))
      .select('entity_id', 'domain', knex.raw('detail AS reason'), knex.raw('NULL::date AS due_date'));
    const cells = knex(CELLS)
      .where({ tenant_id: tenantId, anomaly: true })
      .whereIn('domain', [...domains])
      .andWhere('valid_from', '<=', at)
      .andWhere((w) => void w.whereNull('valid_to').orWhere('valid_to', '>', at))
      .select('entity_id', 'domain', 'reason', 'due_date');
    if (only) {
      q.whereIn('entity_id', only);
      cells.whereIn('entity_id', only);
    }
    const rows = await knex.unionAll([cells, q], true);
    return dedupe(rows);
  }
  const q = knex(CELLS)
    .where({ tenant_id: tenantId, bucket })
    .whereIn('domain', [...domains])
    .andWhere('valid_from', '<=', at)
    .andWhere((w) => void w.whereNull('valid_to').orWhere('valid_to', '>', at))
    .whereExists(
      knex(ENTITIES).whereRaw(
        `${ENTITIES}.tenant_id = ${CELLS}.tenant_id AND ${ENTITIES}.entity_id = ${CELLS}.entity_id AND ${ENTITIES}.valid_to IS NULL`,
      ),
    )
    .select('entity_id', 'domain', 'reason', 'due_date')
    .orderBy('due_date');
  if (only) q.whereIn('entity_id', only);
  return dedupe(await q);
}

function dedupe(rows: Array<{ entity_id: string; domain: string; reason: string; due_date: Date | string | null }>) {
  const seen = new Set<string>();
  return rows.flatMap((r) => {
    const key = `${r.entity_id}\u001f${r.domain}`;
    if (seen.has(key)) return [];
    seen.add(key);
    return [
      { entity_id: r.entity_id, domain: r.domain, reason: r.reason, due_date: r.due_date ? isoDate(r.due_date) : null },
    ];
  });
}
