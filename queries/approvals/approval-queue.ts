import type { Knex } from 'knex';
import { NotFound } from '../../src/platform/domain-errors';
import { isoOrNull } from '../../src/platform/infra/row-values';
import { APPROVALS_TABLE } from '../../projections/approvals/approval-queue';
import type { ApprovalState } from '../../streams/approvals/approval';

export interface ApprovalFilter {
  status?: string;
  agent_type?: string;
  escalated?: boolean;
  reviewer_id?: string;
  limit: number;
  offset: number;
}

/**
 * The one place an approval's JSON is shaped, from a row of the queue (or a row laid over
 * with what a command just decided): `summary` for lists and references, `details` for one.
 */
export function approvalSummary(row: Record<string, any>) {
  return {
    approval_id: row.approval_id,
    status: row.status,
    checkpoint_type: row.checkpoint_type,
    agent_type: row.agent_type,
    created_at: isoOrNull(row.created_at),
    reviewer_id: row.reviewer_id,
    escalated: row.escalation_level > 0,
    escalation_level: row.escalation_level,
    subject: subjectOf(row.payload),
  };
}

/**
 * What a filing approval is about (the payload contract of `kind: "filing"`), so a queue row
 * can name the entity, form and period without opening the approval; null for other payloads.
 */
function subjectOf(payload: unknown) {
  const p = payload && typeof payload === 'object' ? (payload as Record<string, any>) : null;
  if (!p || p.kind !== 'filing') return null;
  const entity = p.entity && typeof p.entity === 'object' ? p.entity : null;
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    summary: text(p.summary),
    entity: entity
      ? { id: text(entity.id), type: text(entity.type), name: text(entity.name), api_number: text(entity.api_number) }
      : null,
    form: text(p.form),
    form_label: text(p.form_label),
    period: text(p.period),
  };
}

export function approvalDetails(row: Record<string, any>) {
  return {
    ...approvalSummary(row),
    conversation_id: row.conversation_id,
    payload: row.payload,
    reviewer_strategy: row.reviewer_strategy,
    requested_by: row.requested_by,
    escalation:
      row.escalation_level > 0
        ? {
            level: row.escalation_level,
            reason: row.escalation_reason,
            escalated_by: row.escalated_by,
            escalated_at: isoOrNull(row.escalated_at),
          }
        : null,
    decision:
      row.decided_at === null
        ? null
        : {
            decision: row.status,
            reviewer_id: row.decided_by,
            comments: row.comments,
            modifications: row.modifications,
            justification: row.justification,
            overridden_validations: row.overridden_validations ?? [],
            decided_at: isoOrNull(row.decided_at),
          },
  };
}

/** GET /approvals: the tenant's queue, newest first. */
export async function listApprovals(knex: Knex, tenantId: string, filter: ApprovalFilter) {
  const base = knex(APPROVALS_TABLE).where({ tenant_id: tenantId });
  if (filter.status) base.andWhere({ status: filter.status });
  if (filter.agent_type) base.andWhere({ agent_type: filter.agent_type });
  if (filter.escalated !== undefined) base.andWhere('escalation_level', filter.escalated ? '>' : '=', 0);
  if (filter.reviewer_id) base.andWhere({ reviewer_id: filter.reviewer_id });
  const [rows, [{ count }]] = await Promise.all([
    base
      .clone()
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'approval_id', order: 'desc' },
      ])
      .limit(filter.limit)
      .offset(filter.offset),
    base.clone().count<{ count: string }[]>({ count: '*' }),
  ]);
  return { approvals: rows.map(approvalSummary), total: Number(count) };
}

const queueRow = (knex: Knex, tenantId: string, approvalId: string): Promise<Record<string, any> | undefined> =>
  knex(APPROVALS_TABLE).where({ tenant_id: tenantId, approval_id: approvalId }).first();

/** GET /approvals/{id}. */
export async function findApproval(knex: Knex, tenantId: string, approvalId: string) {
  const row = await queueRow(knex, tenantId, approvalId);
  return row ? approvalDetails(row) : null;
}

/**
 * The answer to a write: the queue's row with what the command just decided laid over it, so
 * a projection that has not caught up within the bounded wait (a loaded machine) never turns
 * a successful decision into a 404 or a stale status.
 */
export async function approvalAsWritten(knex: Knex, tenantId: string, state: ApprovalState) {
  if (state.status === 'none') throw new NotFound('Approval not found');
  const row = await queueRow(knex, tenantId, state.approvalId);
  const decided = state.status === 'pending' ? null : state.decision;
  return approvalDetails({
    ...row,
    approval_id: state.approvalId,
    status: state.status,
    checkpoint_type: state.checkpointType,
    agent_type: state.agentType,
    created_at: state.requestedAt,
    reviewer_id: state.reviewerId,
    escalation_level: state.escalationLevel,
    conversation_id: state.conversationId,
    requested_by: state.requestedBy,
    decided_by: decided?.reviewerId ?? null,
    comments: decided?.comments ?? null,
    modifications: decided?.modifications ?? null,
    justification: decided?.justification ?? null,
    overridden_validations: decided?.overriddenValidations ?? [],
    decided_at: decided?.decidedAt ?? null,
  });
}

/**
 * An approval a command just asked for, as the queue shows it, or, while the queue does not
 * hold it yet (a reactor opens it, or a projection lags), as it will be: pending.
 */
export async function approvalOrExpected(
  knex: Knex,
  tenantId: string,
  expected: { approval_id: string; checkpoint_type: string; created_at: string | Date; reviewer_id: string | null },
) {
  const row = await queueRow(knex, tenantId, expected.approval_id);
  return approvalSummary(row ?? { ...expected, status: 'pending', escalation_level: 0 });
}
