import type { Knex } from 'knex';
import { NotFound } from '../../src/platform/domain-errors';
import { isoOrNull } from '../../src/platform/infra/row-values';
import { approvalOrExpected } from '../approvals/approval-queue';
import {
  CHECKLIST_ARTIFACTS_TABLE,
  CHECKLIST_ITEMS_TABLE,
  CHECKLISTS_TABLE,
} from '../../projections/checklists/checklists-read-model';

function artifactView(row: Record<string, any>) {
  return {
    artifact_id: row.artifact_id,
    id: row.artifact_id,
    item_index: row.item_index,
    artifact_type: row.artifact_type,
    filename: row.filename,
    content_type: row.content_type,
    size_bytes: Number(row.size_bytes),
    sha256: row.sha256,
    source: row.source,
    added_by: row.added_by,
    created_at: isoOrNull(row.created_at),
  };
}

/** GET /checklists/{id}: the checklist with every item (tenant-scoped; null when absent). */
export async function getChecklist(knex: Knex, tenantId: string, checklistId: string) {
  const row = await knex(CHECKLISTS_TABLE).where({ tenant_id: tenantId, checklist_id: checklistId }).first();
  if (!row) return null;
  const [items, counts] = await Promise.all([
    knex(CHECKLIST_ITEMS_TABLE).where({ tenant_id: tenantId, checklist_id: checklistId }).orderBy('index'),
    knex(CHECKLIST_ARTIFACTS_TABLE)
      .where({ tenant_id: tenantId, checklist_id: checklistId })
      .groupBy('item_index')
      .select('item_index')
      .count<{ item_index: number; count: string }[]>({ count: '*' }),
  ]);
  const artifactCount = new Map(counts.map((c) => [c.item_index, Number(c.count)]));
  return {
    checklist_id: row.checklist_id,
    template_id: row.template_id,
    form: row.form,
    title: row.title,
    entity_id: row.entity_id,
    entity_type: row.entity_type,
    domain: row.domain,
    status: row.status,
    period: row.period,
    due_date: row.due_date,
    metadata: row.metadata,
    pending_approval_id: row.pending_approval_id,
    exception: row.exception,
    review: row.review,
    rejection: row.rejection,
    filing: row.filing ?? null,
    created_by: row.created_by,
    created_at: isoOrNull(row.created_at),
    updated_at: isoOrNull(row.updated_at),
    items: items.map((i) => ({
      index: i.index,
      key: i.key,
      label: i.label,
      item_type: i.item_type,
      status: i.status,
      notes: i.notes,
      updated_by: i.updated_by,
      updated_at: isoOrNull(i.updated_at),
      artifact_count: artifactCount.get(i.index) ?? 0,
    })),
  };
}

export type ChecklistView = NonNullable<Awaited<ReturnType<typeof getChecklist>>>;

/** A checklist that must exist: the answer to a write on it, or a read beneath it. */
export async function visibleChecklist(knex: Knex, tenantId: string, checklistId: string): Promise<ChecklistView> {
  const checklist = await getChecklist(knex, tenantId, checklistId);
  if (!checklist) throw new NotFound('Checklist not found');
  return checklist;
}

/**
 * The answer to a submit or an exception request: the checklist and the approval it waits
 * on (opened by a reactor; until the queue holds it, as it will be).
 */
export async function checklistAwaitingApproval(
  knex: Knex,
  tenantId: string,
  checklistId: string,
  approval: { approvalId: string; checkpointType: string; now: Date },
) {
  const expected = {
    approval_id: approval.approvalId,
    checkpoint_type: approval.checkpointType,
    created_at: approval.now,
    reviewer_id: null,
  };
  const [checklist, awaited] = await Promise.all([
    visibleChecklist(knex, tenantId, checklistId),
    approvalOrExpected(knex, tenantId, expected),
  ]);
  return { ...checklist, approval: awaited };
}

/** GET /checklists: the tenant's checklists, newest first. */
export async function listChecklists(
  knex: Knex,
  tenantId: string,
  filter: {
    entity_id?: string;
    status?: string;
    template_id?: string;
    created_by?: string;
    limit: number;
    offset: number;
  },
) {
  const base = knex(CHECKLISTS_TABLE).where({ tenant_id: tenantId });
  if (filter.entity_id) base.andWhere({ entity_id: filter.entity_id });
  if (filter.status) base.andWhere({ status: filter.status });
  if (filter.template_id) base.andWhere({ template_id: filter.template_id });
  if (filter.created_by) base.andWhere({ created_by: filter.created_by });
  const [rows, [{ count }]] = await Promise.all([
    base
      .clone()
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'checklist_id', order: 'desc' },
      ])
      .limit(filter.limit)
      .offset(filter.offset),
    base.clone().count<{ count: string }[]>({ count: '*' }),
  ]);
  return {
    checklists: rows.map((r) => ({
      checklist_id: r.checklist_id,
      template_id: r.template_id,
      form: r.form,
      title: r.title,
      entity_id: r.entity_id,
      entity_type: r.entity_type,
      domain: r.domain,
      status: r.status,
      period: r.period,
      due_date: r.due_date,
      created_by: r.created_by,
      created_at: isoOrNull(r.created_at),
      updated_at: isoOrNull(r.updated_at),
      // The last review and an outright rejection, so a list can say why a checklist came back.
      review: r.review,
      rejection: r.rejection,
    })),
    total: Number(count),
  };
}

/** GET /checklists/{id}/artifacts and /checklists/{id}/items/{idx}/artifacts: 404 for a missing checklist or item. */
export async function artifactsOf(knex: Knex, tenantId: string, checklistId: string, itemIndex?: number) {
  const checklist = await visibleChecklist(knex, tenantId, checklistId);
  if (itemIndex !== undefined && !checklist.items.some((i) => i.index === itemIndex))
    throw new NotFound(`Checklist item ${itemIndex} not found`);
  const artifacts = await listArtifacts(knex, tenantId, checklistId, itemIndex);
  return { artifacts, total: artifacts.length };
}

export async function listArtifacts(knex: Knex, tenantId: string, checklistId: string, itemIndex?: number) {
  const query = knex(CHECKLIST_ARTIFACTS_TABLE).where({ tenant_id: tenantId, checklist_id: checklistId });
  if (itemIndex !== undefined) query.andWhere({ item_index: itemIndex });
  const rows = await query.orderBy([
    { column: 'created_at', order: 'asc' },
    { column: 'artifact_id', order: 'asc' },
  ]);
  return rows.map(artifactView);
}

export async function findArtifact(knex: Knex, tenantId: string, checklistId: string, artifactId: string) {
  const row = await knex(CHECKLIST_ARTIFACTS_TABLE)
    .where({ tenant_id: tenantId, checklist_id: checklistId, artifact_id: artifactId })
    .first();
  return row ? artifactView(row) : null;
}
