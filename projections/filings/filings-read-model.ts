import type { Projector } from '../../src/platform/projection-runner/projector';
import { checklistAggregate, filingEntityId, readChecklistEvent } from '../../streams/checklists/checklist';
import { evidenceKeysAggregate, readEvidenceKeyEvent } from '../../streams/filings/evidence-keys';

/**
 * Filings, folded from the checklist events that already carry them (no event of its own): a
 * checklist's submission for review is a filing `in_review`; the review approving it (or
 * approving it with modifications) files it (`filed`); a rejected review sends it back
 * (`returned`, until resubmitted); a checklist rejected outright withdraws it. Exception
 * requests are not filings. One filing per checklist, `filing-<checklist id>`, the id of its
 * FilingPackage vertex in the graph.
 */
export const FILINGS_TABLE = 'filings_filings';
export const EVIDENCE_KEYS_TABLE = 'filings_evidence_keys';
export const FILING_STATUSES = ['in_review', 'filed', 'filing_failed', 'returned', 'withdrawn'] as const;

export const filingsProjector: Projector = {
  name: 'filings',
  consistency: 'inline',
  // 2: a filing the graph could not record reads `filing_failed` until an administrator's retry files it.
  version: 2,
  tables: [FILINGS_TABLE],
  eventTypes: [
    'ChecklistCreated',
    'ChecklistUpdated',
    'ChecklistSubmitted',
    'ChecklistReviewed',
    'ChecklistRejected',
    'ChecklistFiled',
    'ChecklistFilingFailed',
  ],
  async createTables(knex) {
    await knex.schema.createTable(FILINGS_TABLE, (t) => {
      t.text('tenant_id').notNullable();
      t.text('filing_id').notNullable();
      t.text('checklist_id').notNullable();
      t.text('template_id').notNullable();
      t.text('form').notNullable();
      t.text('entity_id').notNullable();
      t.text('entity_type').notNullable();
      t.text('period');
      /** Null while the checklist was never submitted: not a filing yet. */
      t.text('status');
      t.text('approval_id');
      t.text('submitted_by');
      t.timestamp('submitted_at', { useTz: true });
      t.text('reviewer_id');
      t.text('decision');
      t.text('review_comments');
      t.timestamp('filed_at', { useTz: true });
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.primary(['tenant_id', 'filing_id']);
      t.index(['tenant_id', 'entity_id']);
      t.index(['tenant_id', 'status', 'updated_at']);
    });
  },
  async apply(trx, recorded) {
    const event = readChecklistEvent(recorded);
    const tenantId = recorded.metadata.tenantId;
    const checklistId = recorded.stream.slice(checklistAggregate.stream(tenantId, '').length);
    const row = () => trx(FILINGS_TABLE).where({ tenant_id: tenantId, filing_id: filingEntityId(checklistId) });
    const at = recorded.recordedAt.toISOString();
    switch (event.type) {
      case 'ChecklistCreated': {
        const d = event.data;
        await trx(FILINGS_TABLE)
          .insert({
            tenant_id: tenantId,
            filing_id: filingEntityId(d.checklistId),
            checklist_id: d.checklistId,
            template_id: d.templateId,
            form: d.form,
            entity_id: d.entityId,
            entity_type: d.entityType,
            period: d.period,
            updated_at: d.createdAt,
          })
          .onConflict(['tenant_id', 'filing_id'])
          .ignore();
        return;
      }
      case 'ChecklistUpdated':
        if (event.data.period !== undefined) await row().update({ period: event.data.period, updated_at: at });
        return;
      case 'ChecklistSubmitted': {
        const d = event.data;
        await row().update({
          status: 'in_review',
          approval_id: d.approvalId,
          submitted_by: d.submittedBy,
          submitted_at: d.submittedAt,
          reviewer_id: null,
          decision: null,
          review_comments: null,
          filed_at: null,
          updated_at: at,
        });
        return;
      }
      case 'ChecklistReviewed': {
        const d = event.data;
        const filed = d.decision !== 'rejected';
        // A review of an exception request names an approval no submission opened: not a filing.
        await row()
          .where({ approval_id: d.approvalId, status: 'in_review' })
          .update({
            status: filed ? 'filed' : 'returned',
            reviewer_id: d.reviewerId,
            decision: d.decision,
            review_comments: d.comments,
            filed_at: filed ? d.reviewedAt : null,
            updated_at: at,
          });
        return;
      }
      case 'ChecklistRejected':
        await row()
          .whereIn('status', ['in_review', 'returned'])
          .update({ status: 'withdrawn', review_comments: event.data.reason, updated_at: at });
        return;
      // The approval files; recording it in the graph can still fail (checklists' `filing_failed`).
      case 'ChecklistFilingFailed':
        await row().where({ approval_id: event.data.approvalId }).update({ status: 'filing_failed', updated_at: at });
        return;
      case 'ChecklistFiled':
        await row().where({ approval_id: event.data.approvalId }).update({ status: 'filed', updated_at: at });
        return;
    }
  },
};

/** The evidence keys as a table, for the JWKS route. */
export const evidenceKeysProjector: Projector = {
  name: 'filings_evidence_keys',
  consistency: 'inline',
  version: 1,
  tables: [EVIDENCE_KEYS_TABLE],
  eventTypes: evidenceKeysAggregate.eventTypes,
  async createTables(knex) {
    await knex.schema.createTable(EVIDENCE_KEYS_TABLE, (t) => {
      t.text('kid').primary();
      t.jsonb('jwk').notNullable();
      t.timestamp('published_at', { useTz: true }).notNullable();
    });
  },
  async apply(trx, recorded) {
    const event = readEvidenceKeyEvent(recorded);
    await trx(EVIDENCE_KEYS_TABLE)
      .insert({ kid: event.data.kid, jwk: JSON.stringify(event.data.jwk), published_at: event.data.publishedAt })
      .onConflict('kid')
      .ignore();
  },
};
