import type { Projector } from '../../src/platform/projection-runner/projector';
import { approvalAggregate, readApprovalEvent } from '../../streams/approvals/approval';

/** The tenant's approval queue: one row per approval, its request, escalation and decision. */
export const APPROVALS_TABLE = 'approvals_approvals';

export const approvalQueueProjector: Projector = {
  name: 'approvals_queue',
  consistency: 'inline',
  version: 2,
  tables: [APPROVALS_TABLE],
  eventTypes: approvalAggregate.eventTypes,
  async createTables(knex) {
    await knex.schema.createTable(APPROVALS_TABLE, (t) => {
      t.text('tenant_id').notNullable();
      t.text('approval_id').notNullable();
      t.text('status').notNullable();
      t.text('conversation_id');
      t.text('agent_type').notNullable();
      t.text('checkpoint_type').notNullable();
      t.jsonb('payload').notNullable();
      t.text('reviewer_strategy');
      t.text('reviewer_id');
      t.text('requested_by').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.integer('escalation_level').notNullable().defaultTo(0);
      t.text('escalation_reason');
      t.text('escalated_by');
      t.timestamp('escalated_at', { useTz: true });
      t.text('decided_by');
      t.text('comments');
      t.jsonb('modifications');
      t.text('justification');
      t.jsonb('overridden_validations');
      t.timestamp('decided_at', { useTz: true });
      t.primary(['tenant_id', 'approval_id']);
      t.index(['tenant_id', 'status', 'created_at']);
    });
  },
  async apply(trx, recorded) {
    const event = readApprovalEvent(recorded);
    const tenantId = recorded.metadata.tenantId;
    const row = trx(APPROVALS_TABLE).where({ tenant_id: tenantId, approval_id: event.data.approvalId });
    switch (event.type) {
      case 'ApprovalRequested': {
        const d = event.data;
        await trx(APPROVALS_TABLE).insert({
          tenant_id: tenantId,
          approval_id: d.approvalId,
          status: 'pending',
          conversation_id: d.conversationId,
          agent_type: d.agentType,
          checkpoint_type: d.checkpointType,
          payload: JSON.stringify(d.payload),
          reviewer_strategy: d.reviewerStrategy,
          reviewer_id: d.reviewerId,
          requested_by: d.requestedBy,
          created_at: d.requestedAt,
        });
        return;
      }
      case 'ApprovalEscalated':
        await row.update({
          reviewer_id: null,
          escalation_level: event.data.level,
          escalation_reason: event.data.reason,
          escalated_by: event.data.escalatedBy,
          escalated_at: event.data.escalatedAt,
        });
        return;
      case 'ApprovalDecided': {
        const d = event.data;
        await row.update({
          status: d.decision,
          decided_by: d.reviewerId,
          comments: d.comments,
          modifications: d.modifications === null ? null : JSON.stringify(d.modifications),
          justification: d.justification ?? null,
          overridden_validations: JSON.stringify(d.overriddenValidations ?? []),
          decided_at: d.decidedAt,
        });
        return;
      }
    }
  },
};
