import type { Knex } from 'knex';
import { edgesOf, type VertexView } from '../../queries/graph/entities';
import type { Decider } from '../../src/platform/command-handling/decider';
import { Conflict } from '../../src/platform/domain-errors';
import type { ApprovalDecisionRecord } from '../../streams/approvals/approval';
import {
  checklistAggregate,
  type ChecklistEvent,
  type ChecklistState,
  filingEntityId,
} from '../../streams/checklists/checklist';
import type { Properties } from '../../streams/graph/properties';
import { existing } from './guards';
import type { ChecklistFacts } from './checklist-facts';

/*
 * A checklist's filing, as the checklist sees it: what is filed (`filingFor`), on which unit,
 * and the checklist's own record of it. The graph records the package
 * (commands/graph/record-filing-package.ts) and compliance re-assesses the unit
 * (commands/compliance/reassess-after-filing.ts).
 */

export interface FilingFacts {
  checklist: ChecklistFacts;
  approvalId: string;
  submittedBy: string;
  submittedAt: string;
  decision: ApprovalDecisionRecord;
  /** The approval's payload as the reviewer saw it (its figures are what was filed). */
  payload: Record<string, unknown>;
  entity: { id: string; label: string; entity_id: string; properties: Properties };
}

export interface FilingPlan {
  filing: { label: 'FilingPackage'; properties: Record<string, unknown> };
  edge: { from_label: string; from_id: string; to_label: 'FilingPackage'; to_id: string; edge_label: 'HAS_FILING' };
  /** The entity's filing properties to advance; null when the filing moves none. */
  advance: Record<string, string> | null;
}

const PERIOD = /^\d{4}-\d{2}$/;

/** The entity property that records the last filed period of a form (the compliance packs read it). */
const FILED_PERIOD_PROPERTY: Record<string, string> = { form_pr: 'form_pr_period' };

export { filingEntityId };

/**
 * Given an approved (or approved-with-modifications) filing checklist, then the filing to
 * record: a FilingPackage with what was filed, who approved it and when, the HAS_FILING
 * edge from the entity, and the entity's last-filed period moved forward (never back: an
 * older period filed late does not hide a newer one).
 */
export function filingFor(facts: FilingFacts): FilingPlan {
  const { checklist, decision, payload, entity } = facts;
  const period = checklist.period;
  const properties: Record<string, unknown> = {
    entity_id: filingEntityId(checklist.checklistId),
    name: `${String(payload.form_label ?? checklist.templateId)}${period ? ` ${period}` : ''}`,
    form: checklist.templateId,
    period: period ?? '',
    status: 'filed',
    approval_id: facts.approvalId,
    checklist_id: checklist.checklistId,
    decision: decision.decision,
    approved_by: decision.reviewerId,
    approved_at: decision.decidedAt,
    submitted_by: facts.submittedBy,
    submitted_at: facts.submittedAt,
    figures: payload.figures ?? [],
    ...(decision.modifications ? { modifications: decision.modifications } : {}),
    ...(decision.comments ? { review_comments: decision.comments } : {}),
  };
  const property = FILED_PERIOD_PROPERTY[checklist.templateId];
  const current = property ? entity.properties[property] : undefined;
  const advances =
    !!property && !!period && PERIOD.test(period) && !(current && PERIOD.test(current) && current >= period);
  return {
    filing: { label: 'FilingPackage', properties },
    edge: {
      from_label: entity.label,
      from_id: entity.id,
      to_label: 'FilingPackage',
      to_id: filingEntityId(checklist.checklistId),
      edge_label: 'HAS_FILING',
    },
    advance: advances ? { [property]: period! } : null,
  };
}

/**
 * The entity a checklist's filing is recorded on: the checklist's own, except that an oil
 * well's Form PR is reported by its lease (the production pack reads the lease's
 * `form_pr_period`). A gas well, and an oil well the graph knows no lease of, file on their own.
 */
export async function filingUnitOf(
  knex: Knex,
  namespace: string,
  templateId: string,
  entity: VertexView,
): Promise<VertexView> {
  if (templateId !== 'form_pr' || entity.label !== 'Well' || entity.properties.well_type === 'gas') return entity;
  const [lease] = (await edgesOf(knex, namespace, entity.id, { edgeLabel: 'LOCATED_IN', direction: 'out' })).filter(
    (e) => e.to_label === 'Lease',
  );
  return lease ? lease.neighbor : entity;
}

export interface RecordFiling {
  type: 'RecordFiling';
  approvalId: string;
  filingId: string;
  unit: { label: string; entityId: string };
  advanced: Record<string, string>;
  filedBy: string;
}

/** Only the approved submission's filing is recorded, once. */
export function decideRecordFiling(command: RecordFiling, state: ChecklistState, now: Date): ChecklistEvent[] {
  const checklist = existing(state);
  if (
    checklist.filing?.approvalId !== command.approvalId ||
    (checklist.status !== 'approved' && checklist.status !== 'filing_failed')
  ) {
    throw new Conflict(`Cannot file: the checklist is ${checklist.status}`, { status: checklist.status });
  }
  if (checklist.filing.filed) return [];
  const { approvalId, filingId, unit, advanced, filedBy } = command;
  return [
    { type: 'ChecklistFiled', data: { approvalId, filingId, unit, advanced, filedBy, filedAt: now.toISOString() } },
  ];
}

export interface RecordFilingFailure {
  type: 'RecordFilingFailure';
  approvalId: string;
  reason: string;
  attemptedBy: string;
}

export function decideFilingFailure(command: RecordFilingFailure, state: ChecklistState, now: Date): ChecklistEvent[] {
  const checklist = existing(state);
  if (checklist.filing?.approvalId !== command.approvalId || checklist.filing.filed) return [];
  const { approvalId, reason, attemptedBy } = command;
  return [{ type: 'ChecklistFilingFailed', data: { approvalId, reason, attemptedBy, failedAt: now.toISOString() } }];
}

export const recordFilingDecider: Decider<RecordFiling, ChecklistState, ChecklistEvent> = {
  ...checklistAggregate,
  decide: decideRecordFiling,
};
export const filingFailureDecider: Decider<RecordFilingFailure, ChecklistState, ChecklistEvent> = {
  ...checklistAggregate,
  decide: decideFilingFailure,
};
