import type { Projector } from '../../src/platform/projection-runner/projector';
import { checklistAggregate, readChecklistEvent } from '../../streams/checklists/checklist';

/** Checklists with their items and artifacts (the artifacts' bytes live in the blob table). */
export const CHECKLISTS_TABLE = 'checklists_checklists';
export const CHECKLIST_ITEMS_TABLE = 'checklists_items';
export const CHECKLIST_ARTIFACTS_TABLE = 'checklists_artifacts';

export const checklistsProjector: Projector = {
  name: 'checklists_read_model',
  consistency: 'inline',
  version: 2,
  tables: [CHECKLIST_ARTIFACTS_TABLE, CHECKLIST_ITEMS_TABLE, CHECKLISTS_TABLE],
  eventTypes: checklistAggregate.eventTypes,
  async createTables(knex) {
    await knex.schema.createTable(CHECKLISTS_TABLE, (t) => {
      t.text('tenant_id').notNullable();
      t.text('checklist_id').notNullable();
      t.text('template_id').notNullable();
      t.text('form').notNullable();
      t.text('title').notNullable();
      t.text('entity_id').notNullable();
      t.text('entity_type').notNullable();
      t.text('domain').notNullable();
      t.text('status').notNullable();
      t.text('period');
      t.text('due_date');
      t.jsonb('metadata').notNullable().defaultTo('{}');
      t.text('pending_approval_id');
      t.jsonb('exception');
      t.jsonb('review');
      t.jsonb('rejection');
      t.jsonb('filing');
      t.text('created_by').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.primary(['tenant_id', 'checklist_id']);
    });
    await knex.schema.createTable(CHECKLIST_ITEMS_TABLE, (t) => {
      t.text('tenant_id').notNullable();
      t.text('checklist_id').notNullable();
      t.integer('index').notNullable();
      t.text('key').notNullable();
      t.text('label').notNullable();
      t.text('item_type').notNullable();
      t.text('status').notNullable();
      t.text('notes');
      t.text('updated_by');
      t.timestamp('updated_at', { useTz: true });
      t.primary(['tenant_id', 'checklist_id', 'index']);
    });
    await knex.schema.createTable(CHECKLIST_ARTIFACTS_TABLE, (t) => {
      t.text('tenant_id').notNullable();
      t.text('checklist_id').notNullable();
      t.text('artifact_id').notNullable();
      t.integer('item_index').notNullable();
      t.text('artifact_type').notNullable();
      t.text('filename').notNullable();
      t.text('content_type').notNullable();
      t.bigInteger('size_bytes').notNullable();
      t.text('sha256').notNullable();
      t.text('source').notNullable();
      t.text('added_by').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.primary(['tenant_id', 'checklist_id', 'artifact_id']);
    });
  },
  async apply(trx, recorded) {
    const event = readChecklistEvent(recorded);
    const tenant_id = recorded.metadata.tenantId;
    const checklist_id = recorded.stream.slice(checklistAggregate.stream(tenant_id, '').length);
    const key = { tenant_id, checklist_id };
    const touch = (columns: Record<string, unknown>, at: string) =>
      trx(CHECKLISTS_TABLE)
        .where(key)
        .update({ ...columns, updated_at: at });
    switch (event.type) {
      case 'ChecklistCreated': {
        const d = event.data;
        await trx(CHECKLISTS_TABLE).insert({
          ...key,
          template_id: d.templateId,
          form: d.form,
          title: d.title,
          entity_id: d.entityId,
          entity_type: d.entityType,
          domain: d.domain,
          status: 'in_progress',
          period: d.period,
          due_date: d.dueDate,
          created_by: d.createdBy,
          created_at: d.createdAt,
          updated_at: d.createdAt,
        });
        if (d.items.length > 0) {
          await trx(CHECKLIST_ITEMS_TABLE).insert(
            d.items.map((i) => ({
              ...key,
              index: i.index,
              key: i.key,
              label: i.label,
              item_type: i.itemType,
              status: 'not_started',
            })),
          );
        }
        return;
      }
      case 'ChecklistUpdated': {
        const { title, period, dueDate, metadata, updatedAt } = event.data;
        const columns: Record<string, unknown> = {};
        if (title !== undefined) columns.title = title;
        if (period !== undefined) columns.period = period;
        if (dueDate !== undefined) columns.due_date = dueDate;
        if (metadata !== undefined) columns.metadata = trx.raw(`metadata || ?::jsonb`, [JSON.stringify(metadata)]);
        await touch(columns, updatedAt);
        return;
      }
      case 'ChecklistItemUpdated': {
        const { index, status, notes, updatedBy, updatedAt } = event.data;
        const columns: Record<string, unknown> = { updated_by: updatedBy, updated_at: updatedAt };
        if (status !== undefined) columns.status = status;
        if (notes !== undefined) columns.notes = notes;
        await trx(CHECKLIST_ITEMS_TABLE)
          .where({ ...key, index })
          .update(columns);
        await touch({}, updatedAt);
        return;
      }
      case 'ChecklistSubmitted':
        await touch(
          { status: 'in_review', pending_approval_id: event.data.approvalId, exception: null },
          event.data.submittedAt,
        );
        return;
      case 'ChecklistExceptionRequested': {
        const d = event.data;
        const exception = {
          approval_id: d.approvalId,
          reason: d.reason,
          item_indexes: d.itemIndexes,
          requested_until: d.requestedUntil,
          requested_by: d.requestedBy,
          requested_at: d.requestedAt,
        };
        await touch(
          { status: 'exception_requested', pending_approval_id: d.approvalId, exception: JSON.stringify(exception) },
          d.requestedAt,
        );
        return;
      }
      case 'ChecklistReviewed': {
        const d = event.data;
        const row = await trx(CHECKLISTS_TABLE).where(key).first('status');
        const next =
          d.decision === 'rejected'
            ? 'in_progress'
            : row?.status === 'exception_requested'
              ? 'exception_granted'
              : 'approved';
        const review = {
          approval_id: d.approvalId,
          decision: d.decision,
          reviewer_id: d.reviewerId,
          comments: d.comments,
          reviewed_at: d.reviewedAt,
        };
        const filing =
          next === 'approved' ? JSON.stringify({ status: 'pending', approval_id: d.approvalId }) : undefined;
        await touch(
          { status: next, pending_approval_id: null, review: JSON.stringify(review), ...(filing ? { filing } : {}) },
          d.reviewedAt,
        );
        return;
      }
      case 'ChecklistFiled': {
        const d = event.data;
        const filing = {
          status: 'filed',
          approval_id: d.approvalId,
          filing_id: d.filingId,
          filed_on: { label: d.unit.label, entity_id: d.unit.entityId },
          advanced: d.advanced,
          filed_by: d.filedBy,
          filed_at: d.filedAt,
        };
        await touch({ status: 'approved', filing: JSON.stringify(filing) }, d.filedAt);
        return;
      }
      case 'ChecklistFilingFailed': {
        const d = event.data;
        const filing = {
          status: 'failed',
          approval_id: d.approvalId,
          reason: d.reason,
          attempted_by: d.attemptedBy,
          failed_at: d.failedAt,
        };
        await touch({ status: 'filing_failed', filing: JSON.stringify(filing) }, d.failedAt);
        return;
      }
      case 'ChecklistRejected': {
        const d = event.data;
        await touch(
          {
            status: 'rejected',
            pending_approval_id: null,
            rejection: JSON.stringify({ reason: d.reason, rejected_by: d.rejectedBy, rejected_at: d.rejectedAt }),
          },
          d.rejectedAt,
        );
        return;
      }
      case 'ArtifactAdded': {
        const d = event.data;
        await trx(CHECKLIST_ARTIFACTS_TABLE).insert({
          ...key,
          artifact_id: d.artifactId,
          item_index: d.itemIndex,
          artifact_type: d.artifactType,
          filename: d.filename,
          content_type: d.contentType,
          size_bytes: d.sizeBytes,
          sha256: d.sha256,
          source: d.source,
          added_by: d.addedBy,
          created_at: d.addedAt,
        });
        await touch({}, d.addedAt);
        return;
      }
      case 'ArtifactRemoved':
        await trx(CHECKLIST_ARTIFACTS_TABLE)
          .where({ ...key, artifact_id: event.data.artifactId })
          .delete();
        await touch({}, event.data.removedAt);
        return;
    }
  },
};
