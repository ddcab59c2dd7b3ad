import type { Knex } from 'knex';
import { bucketCounts, BucketCounts, dashboardRows } from '../../projections/compliance/selectors';
import { DAILY } from '../../projections/compliance/tables';

export const MATRIX_STATUSES = ['overdue', 'action_needed', 'compliant', 'in_review'] as const;
export type MatrixStatus = (typeof MATRIX_STATUSES)[number];
/** An entity's status is its worst cell: red overdue, amber action needed, blue in review, green compliant. */
const STATUS_SEVERITY: Record<MatrixStatus, number> = { overdue: 4, action_needed: 3, in_review: 2, compliant: 1 };
export const MATRIX_BUCKETS = ['overdue', 'due_7d', 'due_30d', 'anomalies'] as const;
export const SORT_COLUMNS = ['entity_name', 'entity_id', 'entity_type', 'status', 'due_date'] as const;
export type SortColumn = (typeof SORT_COLUMNS)[number];

const WEEK_MS = 7 * 86_400_000;

export interface Summary {
  overdue_count: number;
  overdue_delta: number;
  due_7_days_count: number;
  due_7_days_delta: number;
  due_30_days_count: number;
  due_30_days_delta: number;
  anomaly_count: number;
  anomaly_delta: number;
}

/**
 * Four bucket counts at `at` with deltas against the latest daily snapshot recorded at least
 * a week before `at` (0 until one exists).
 */
export async function summary(knex: Knex, tenantId: string, at: Date, domains: readonly string[]): Promise<Summary> {
  const now: BucketCounts = await bucketCounts(knex, tenantId, at);
  const week = await knex(DAILY)
    .where('tenant_id', tenantId)
    .andWhere('recorded_at', '<=', new Date(at.getTime() - WEEK_MS))
    .orderBy('recorded_at', 'desc')
    .first();
  const delta = (count: number, column: string) => (week ? count - Number(week[column]) : 0);
  return {
    overdue_count: now.overdue,
    overdue_delta: delta(now.overdue, 'overdue_count'),
    due_7_days_count: now.due_7d,
    due_7_days_delta: delta(now.due_7d, 'due_7_days_count'),
    due_30_days_count: now.due_30d,
    due_30_days_delta: delta(now.due_30d, 'due_30_days_count'),
    anomaly_count: now.anomalies,
    anomaly_delta: delta(now.anomalies, 'anomaly_count'),
  };
}

export interface MatrixQuery {
  entity_type?: string;
  status?: MatrixStatus;
  bucket?: (typeof MATRIX_BUCKETS)[number];
  search?: string;
  sort_by: SortColumn;
  descending: boolean;
  page: number;
  page_size: number;
}

const ORDER: Record<SortColumn, (dir: 'ASC' | 'DESC') => string> = {
  entity_name: (dir) => `entity_name ${dir}, entity_id ${dir}`,
  entity_id: (dir) => `entity_id ${dir}`,
  entity_type: (dir) => `entity_type ${dir}, entity_name ${dir}, entity_id ${dir}`,
  // Ascending status means the most severe first: the order a compliance officer works in.
  status: (dir) => `severity ${dir === 'ASC' ? 'DESC' : 'ASC'}, entity_name, entity_id`,
  due_date: (dir) => `next_due ${dir} NULLS LAST, entity_name, entity_id`,
};

/**
 * Entity × domain matrix at `at`. `status` and `bucket` combine with AND; `bucket` selects
 * entities with at least one cell in it and returns all their cells. Domains without a cell
 * are `grey` (unassessed). The page and the total are two reads of the projector's rows
 * (each walks an index), run side by side.
 */
export async function matrix(knex: Knex, tenantId: string, at: Date, domains: readonly string[], q: MatrixQuery) {
  const rows = dashboardRows(tenantId, at);
  const where: string[] = [];
  const bindings: Record<string, unknown> = { ...rows.bindings };
  if (q.entity_type) {
    // The graph label (`Well`) or the entity type key (`well`, `flaring_authorization`).
    where.push(`lower(entity_type) = lower(replace(:entity_type, '_', ''))`);
    bindings.entity_type = q.entity_type;
  }
  if (q.status) where.push(`severity = ${STATUS_SEVERITY[q.status]}`);
  // in_overdue, in_due_7d, in_due_30d, in_anomalies (the bucket is one of the four, checked by the route).
  if (q.bucket) where.push(`in_${q.bucket}`);
  if (q.search) {
    where.push(`(entity_id ILIKE :search OR entity_name ILIKE :search)`);
    bindings.search = `%${q.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  }
  const filtered = `SELECT * FROM (${rows.sql}) AS d ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`;
  const offset = (q.page - 1) * q.page_size;
  const [{ rows: page }, { rows: counted }] = await Promise.all([
    knex.raw(`${filtered} ORDER BY ${ORDER[q.sort_by](q.descending ? 'DESC' : 'ASC')} LIMIT ${q.page_size} OFFSET ${offset}`, bindings),
    knex.raw(`SELECT count(*)::int AS total FROM (${filtered}) AS f`, bindings),
  ]);
  return {
    rows: (page as Array<{ entity_id: string; entity_name: string; entity_type: string; domains: Record<string, string> }>).map((r) => ({
      entity_id: r.entity_id,
      entity_name: r.entity_name,
      entity_type: r.entity_type,
      domains: Object.fromEntries(domains.map((d) => [d, r.domains[d] ?? 'grey'])),
    })),
    total: counted[0].total as number,
    limit: q.page_size,
    offset,
    page: q.page,
    page_size: q.page_size,
  };
}

export const isoDate = (d: Date | string) => (typeof d === 'string' ? d.slice(0, 10) : `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`);
