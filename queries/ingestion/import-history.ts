import type { Knex } from 'knex';
import { isoOrNull } from '../../src/platform/infra/row-values';
import { type ImportKind, IMPORTS_TABLE } from '../../projections/ingestion/import-history';

export interface ImportFilter {
  kind?: ImportKind;
  status?: 'importing' | 'completed';
  limit: number;
  offset: number;
}

function summary(row: Record<string, any>) {
  return {
    import_id: row.import_id,
    kind: row.kind,
    status: row.status,
    source: row.source,
    started_by: row.started_by,
    started_at: isoOrNull(row.started_at),
    finished_at: isoOrNull(row.finished_at),
    rows: row.rows,
    accepted: row.accepted,
    rejected: row.rejected,
    counts: row.counts,
  };
}

/** GET /ingest/imports: the tenant's imports, scrapes and SCADA batches, newest first. */
export async function listImports(knex: Knex, tenantId: string, filter: ImportFilter) {
  const base = knex(IMPORTS_TABLE).where({ tenant_id: tenantId });
  if (filter.kind) base.andWhere({ kind: filter.kind });
  if (filter.status) base.andWhere({ status: filter.status });
  const [rows, [{ count }]] = await Promise.all([
    base
      .clone()
      .select(
        'import_id',
        'kind',
        'status',
        'source',
        'started_by',
        'started_at',
        'finished_at',
        'rows',
        'accepted',
        'rejected',
        'counts',
      )
      .orderBy([
        { column: 'started_at', order: 'desc' },
        { column: 'import_id', order: 'desc' },
      ])
      .limit(filter.limit)
      .offset(filter.offset),
    base.clone().count<{ count: string }[]>({ count: '*' }),
  ]);
  return { imports: rows.map(summary), total: Number(count), limit: filter.limit, offset: filter.offset };
}

/** GET /ingest/imports/{id}: one import with its details and, for a CSV file, its rejection report. */
export async function findImport(knex: Knex, tenantId: string, importId: string) {
  const row = await knex(IMPORTS_TABLE).where({ tenant_id: tenantId, import_id: importId }).first();
  if (!row) return null;
  const rejections: Array<{ row: number; column: string; reason: string }> = row.rejections ?? [];
  return {
    ...summary(row),
    details: row.details,
    rejections,
    rejections_truncated: row.rejected !== null && row.rejected > rejections.length,
  };
}
