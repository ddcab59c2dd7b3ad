import type { Knex } from 'knex';
import {
  bucketCounts,
  type BucketCounts,
  flaggedSql,
  openAnomalyEntities,
  overlaidSql,
  ROW_COLUMNS,
  validAt,
} from '../../projections/compliance/selectors';
import { DAILY, ROWS } from '../../projections/compliance/tables';

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
export async function summary(knex: Knex, tenantId: string, at: Date): Promise<Summary> {
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
  /** The dashboard now (no `as_of`): the current rows, along their partial indexes. */
  current?: boolean;
}

type Dir = 'ASC' | 'DESC';
const flip = (dir: Dir): Dir => (dir === 'ASC' ? 'DESC' : 'ASC');
/** Sort keys as [column, direction, nulls last?]; each order has a partial index (dashboard-rows.ts). */
const ORDER: Record<SortColumn, (dir: Dir) => Array<[string, Dir, boolean?]>> = {
  entity_name: (dir) => [
    ['entity_name', dir],
    ['entity_id', dir],
  ],
  entity_id: (dir) => [['entity_id', dir]],
  entity_type: (dir) => [
    ['entity_type', dir],
    ['entity_name', dir],
    ['entity_id', dir],
  ],
  // Ascending status means the most severe first, the soonest due first within a severity:
  // the order a compliance officer works in.
  status: (dir) => [
    ['severity', flip(dir)],
    ['next_due', 'ASC', true],
    ['entity_name', 'ASC'],
    ['entity_id', 'ASC'],
  ],
  due_date: (dir) => [
    ['next_due', dir, true],
    ['entity_name', 'ASC'],
    ['entity_id', 'ASC'],
  ],
};
/** The SQL of an order, or of its exact reverse (every direction and the nulls' place flipped). */
const orderSql = (keys: Array<[string, Dir, boolean?]>, reversed: boolean) =>
  keys
    .map(
      ([column, dir, nullsLast]) =>
        `${column} ${reversed ? flip(dir) : dir}${nullsLast ? (reversed ? ' NULLS FIRST' : ' NULLS LAST') : ''}`,
    )
    .join(', ');

/** Totals the projector's counts already hold: no filter, or a bucket or a status alone. */
function countedTotal(counts: BucketCounts, q: MatrixQuery): number | null {
  if (q.entity_type || q.search || (q.bucket && q.status)) return null;
  if (q.bucket) return counts[q.bucket];
  if (q.status) return counts.colors[STATUS_COLOR[q.status]];
  return counts.entities;
}
const STATUS_COLOR: Record<MatrixStatus, string> = {
  overdue: 'red',
  action_needed: 'amber',
  in_review: 'blue',
  compliant: 'green',
};

/**
 * Entity × domain matrix at `at`. `status` and `bucket` combine with AND; `bucket` selects
 * entities with at least one cell in it and returns all their cells. Domains without a cell
 * are `grey` (unassessed).
 *
 * The rows come from the projector's table, walked in the page's order along a partial index
 * (current rows) and cut after the page; the few entities with an open anomaly are left out
 * of that walk and merged back overlaid. The total comes from the projector's counts when the
 * filter is one they hold, else from a count; a page in the second half is read from the end
 * in the reverse order (a last page walks 50 index entries, not the portfolio).
 */
export async function matrix(
  knex: Knex,
  tenantId: string,
  at: Date,
  packs: ReadonlyArray<{ domain: string; appliesTo: readonly string[] }>,
  q: MatrixQuery,
) {
  const domains = packs.map((p) => p.domain);
  const flagged = await openAnomalyEntities(knex, tenantId, at);
  const where: string[] = [];
  // The rows' own filter, and the filter of the entities known only from an anomaly.
  const typed = { rows: '', flagged: '' };
  const bindings: Record<string, unknown> = { tenant: tenantId, at, flagged };
  if (q.entity_type) {
    // The graph label (`Well`) or the entity type key (`well`, `flaring_authorization`), compared
    // lower-cased without underscores. The rows hold only the labels the packs assess: the
    // filter names the matching ones, so a page walks `compliance_rows_by_type` in name order
    // (no index of its own on the lower-cased type). An anomaly may name any label.
    const lower = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase());
    const wanted = lower(q.entity_type.replaceAll('_', ''));
    const types = [...new Set(packs.flatMap((p) => p.appliesTo))].filter((label) => lower(label) === wanted);
    typed.rows = types.length === 1 ? ' AND entity_type = :type' : ' AND entity_type = ANY(CAST(:types AS text[]))';
    typed.flagged = ` AND lower(entity_type) = lower(replace(:entity_type, '_', ''))`;
    Object.assign(bindings, { entity_type: q.entity_type, type: types[0] ?? null, types });
  }
  if (q.status) where.push(`severity = ${STATUS_SEVERITY[q.status]}`);
  // in_overdue, in_due_7d, in_due_30d, in_anomalies (the bucket is one of the four, checked by the route).
  if (q.bucket) where.push(`in_${q.bucket}`);
  if (q.search) {
    // What `ILIKE '%term%'` answers (it lower-cases both sides in UTF-8), the filter at half its
    // cost: a search matching every well is counted over 20,000 rows on each request.
    where.push(`(strpos(lower(entity_id), lower(:search)) > 0 OR strpos(lower(entity_name), lower(:search)) > 0)`);
    bindings.search = q.search;
  }
  const filter = where.map((w) => ` AND ${w}`).join('');
  const keys = ORDER[q.sort_by](q.descending ? 'DESC' : 'ASC');
  const offset = (q.page - 1) * q.page_size;
  const valid = q.current ? 'tenant_id = :tenant AND valid_to IS NULL' : validAt;
  const base = `SELECT ${ROW_COLUMNS} FROM ${ROWS} WHERE ${valid} AND NOT (entity_id = ANY(CAST(:flagged AS text[])))${typed.rows}${filter}`;
  const overlaid = `WITH flagged AS (${flaggedSql('AND entity_id = ANY(CAST(:flagged AS text[]))')}) SELECT * FROM (${overlaidSql('')}) AS o WHERE true${typed.flagged}${filter}`;
  const countSql = `SELECT (SELECT count(*) FROM (${base}) AS b)::int${flagged.length === 0 ? '' : ` + (SELECT count(*) FROM (${overlaid}) AS o)::int`} AS total`;
  const total =
    countedTotal(await bucketCounts(knex, tenantId, at), q) ?? (await knex.raw(countSql, bindings)).rows[0].total;
  const reversed = offset + q.page_size / 2 > total / 2;
  const skip = reversed ? Math.max(0, total - offset - q.page_size) : offset;
  const take = reversed ? Math.max(0, Math.min(q.page_size, total - offset)) : q.page_size;
  const order = orderSql(keys, reversed);
  const pageSql =
    flagged.length === 0
      ? `${base} ORDER BY ${order} LIMIT ${take} OFFSET ${skip}`
      : `SELECT * FROM ((${base} ORDER BY ${order} LIMIT ${skip + take}) UNION ALL (${overlaid})) AS u ORDER BY ${order} LIMIT ${take} OFFSET ${skip}`;
  const { rows: read } = take === 0 ? { rows: [] } : await knex.raw(pageSql, bindings);
  const page = reversed ? [...read].reverse() : read;
  return {
    rows: (
      page as Array<{ entity_id: string; entity_name: string; entity_type: string; domains: Record<string, string> }>
    ).map((r) => ({
      entity_id: r.entity_id,
      entity_name: r.entity_name,
      entity_type: r.entity_type,
      domains: Object.fromEntries(domains.map((d) => [d, r.domains[d] ?? 'grey'])),
    })),
    total: total as number,
    limit: q.page_size,
    offset,
    page: q.page,
    page_size: q.page_size,
  };
}

export const isoDate = (d: Date | string) =>
  typeof d === 'string'
    ? d.slice(0, 10)
    : `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
