import type { Knex } from 'knex';
import { isoOrNull } from '../../src/platform/infra/row-values';
import { EVIDENCE_KEYS_TABLE, FILINGS_TABLE } from '../../projections/filings/filings-read-model';
import { VERTICES } from '../../projections/graph/property-graph';
import { USERS_TABLE } from '../../projections/identity/user-directory';
import { namespaceOf } from '../../streams/graph/names';

export interface FilingFilter {
  entity_id?: string;
  form?: string;
  period?: string;
  status?: string;
  approval_id?: string;
  limit: number;
  offset: number;
}

export type FilingView = ReturnType<typeof view>;

const COLUMNS = [
  'f.*',
  'v.id as vertex_id',
  'v.properties as entity_properties',
  'u.email as reviewer_email',
  'u.display_name as reviewer_name',
] as const;

/** A filing with its entity as the graph knows it now (a deleted entity keeps its id, nothing else). */
function view(row: Record<string, any>) {
  const p: Record<string, string> = row.entity_properties ?? {};
  const isLease = row.entity_type === 'Lease';
  return {
    filing_id: row.filing_id as string,
    entity: {
      id: row.entity_id as string,
      label: row.entity_type as string,
      vertex_id: (row.vertex_id as string | null) ?? null,
      name: p.name ?? p.well_name ?? null,
      api_number: isLease ? null : (p.api_number ?? null),
      lease_id: isLease ? row.entity_id : (p.lease_id ?? p.lease_number ?? null),
    },
    form: row.template_id as string,
    form_name: row.form as string,
    period: row.period as string | null,
    status: row.status as string,
    filed_at: isoOrNull(row.filed_at),
    approval_id: row.approval_id as string,
    checklist_id: row.checklist_id as string,
    submitted_by: row.submitted_by as string,
    submitted_at: isoOrNull(row.submitted_at),
    reviewer_id: row.reviewer_id as string | null,
    reviewer: row.reviewer_id
      ? {
          id: row.reviewer_id as string,
          email: (row.reviewer_email as string | null) ?? null,
          name: (row.reviewer_name as string | null) ?? null,
        }
      : null,
    decision: row.decision as string | null,
    review_comments: row.review_comments as string | null,
    updated_at: isoOrNull(row.updated_at),
  };
}

function scoped(knex: Knex, tenantId: string) {
  return (
    knex({ f: FILINGS_TABLE })
      .leftJoin({ v: VERTICES }, (j) =>
        j
          .on('v.entity_id', 'f.entity_id')
          .andOn('v.label', 'f.entity_type')
          .andOnVal('v.namespace', namespaceOf(tenantId)),
      )
      // The directory keys users by uuid; a reviewer id is kept as the text the event carried.
      .leftJoin(
        knex(USERS_TABLE).select(knex.raw('id::text as uid'), 'tenant_id', 'email', 'display_name').as('u'),
        (j) => j.on('u.uid', 'f.reviewer_id').andOn('u.tenant_id', 'f.tenant_id'),
      )
      .where('f.tenant_id', tenantId)
      .whereNotNull('f.status')
  );
}

/** GET /filings: the tenant's filings, the latest activity first. */
export async function listFilings(knex: Knex, tenantId: string, filter: FilingFilter) {
  const base = scoped(knex, tenantId);
  if (filter.entity_id) base.andWhere('f.entity_id', filter.entity_id);
  if (filter.form)
    base.andWhere(
      (q) => void q.where('f.template_id', filter.form!).orWhereRaw('lower(f.form) = lower(?)', [filter.form!]),
    );
  if (filter.period) base.andWhere('f.period', filter.period);
  if (filter.status) base.andWhere('f.status', filter.status);
  if (filter.approval_id) base.andWhere('f.approval_id', filter.approval_id);
  const [rows, [{ count }]] = await Promise.all([
    base
      .clone()
      .select(COLUMNS)
      .orderBy([
        { column: 'f.updated_at', order: 'desc' },
        { column: 'f.filing_id', order: 'desc' },
      ])
      .limit(filter.limit)
      .offset(filter.offset),
    base.clone().count<{ count: string }[]>({ count: '*' }),
  ]);
  return { filings: rows.map(view), total: Number(count) };
}

/** One filing of the tenant; null for a missing one and for another tenant's alike. */
export async function getFiling(knex: Knex, tenantId: string, filingId: string): Promise<FilingView | null> {
  const row = await scoped(knex, tenantId).andWhere('f.filing_id', filingId).select(COLUMNS).first();
  return row ? view(row) : null;
}

/** Every evidence key ever published, oldest first: the JWKS keeps retired keys so old packages verify. */
export async function evidenceJwks(knex: Knex): Promise<{ keys: Array<Record<string, string>> }> {
  const rows: Array<{ jwk: Record<string, string> }> = await knex(EVIDENCE_KEYS_TABLE)
    .select('jwk')
    .orderBy([{ column: 'published_at' }, { column: 'kid' }]);
  return { keys: rows.map((r) => r.jwk) };
}
