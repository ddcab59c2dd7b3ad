import { findVertex } from '../../queries/graph/entities';
import type { Reactor } from '../../src/platform/reactors/reactor';
import { reactionContext } from '../../src/platform/reactors/reactor';
import { newId } from '../../src/platform/command-handling/idempotency';
import { DEFAULT_PACKS } from '../compliance/packs';
import { approvalAggregate, ApprovalDecisionRecord, approvalState } from '../../streams/approvals/approval';
import { filingEntityId, readChecklistEvent } from '../../streams/checklists/checklist';
import { namespaceOf } from '../../streams/graph/names';
import type { Properties } from '../../streams/graph/properties';
import { assess } from '../compliance/record-assessment';
import { createEdge } from '../graph/create-edge';
import { createEntity } from '../graph/create-entity';
import { updateEntity } from '../graph/update-entity';
import { checklistFacts, checklistHistory } from './checklist-history';
import { ChecklistFacts, graphLabelOf } from './checklist-facts';

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
  const advances = !!property && !!period && PERIOD.test(period) && !(current && PERIOD.test(current) && current >= period);
  return {
    filing: { label: 'FilingPackage', properties },
    edge: { from_label: entity.label, from_id: entity.id, to_label: 'FilingPackage', to_id: filingEntityId(checklist.checklistId), edge_label: 'HAS_FILING' },
    advance: advances ? { [property]: period! } : null,
  };
}

/**
 * Filing checklist approved → the filing is recorded in the graph and the entity is
 * re-assessed, so its dashboard cell shows the filing within seconds. Each step is its own
 * command under the reaction's scope: after a crash between two steps, the replay finds the
 * earlier ones done (same derived ids) and carries on. A rejection records nothing here: the
 * cell stays as it is and the checklist shows the reviewer's reason.
 */
export const recordFilingReactor: Reactor = {
  name: 'checklists.record-filing',
  handles: ['ChecklistReviewed'],
  async react(recorded, deps) {
    const reviewed = readChecklistEvent(recorded);
    if (reviewed.type !== 'ChecklistReviewed' || reviewed.data.decision === 'rejected') return;
    const { created, events } = await checklistHistory(deps.store, recorded.stream);
    const submitted = events.find((e) => e.type === 'ChecklistSubmitted' && e.data.approvalId === reviewed.data.approvalId);
    // An exception granted files nothing.
    if (submitted?.type !== 'ChecklistSubmitted') return;
    const context = reactionContext(recorded, 'record-filing', reviewed.data.reviewerId);
    const approval = await approvalState(deps.store, approvalAggregate.stream(context.tenantId, reviewed.data.approvalId));
    if (approval.status === 'none' || approval.status === 'pending') throw new Error(`approval ${reviewed.data.approvalId} is not decided`);
    const requested = (await deps.store.readStream(approvalAggregate.stream(context.tenantId, reviewed.data.approvalId), { limit: 1 })).map(approvalAggregate.read)[0];
    const payload = requested?.type === 'ApprovalRequested' ? requested.data.payload : {};
    const namespace = namespaceOf(context.tenantId);
    const entity = await findVertex(deps.knex, namespace, graphLabelOf(created.entityType), created.entityId);
    if (!entity) throw new Error(`the checklist's ${created.entityType} ${created.entityId} is not in the graph`);
    const plan = filingFor({ checklist: checklistFacts(created), approvalId: reviewed.data.approvalId, submittedBy: submitted.data.submittedBy, submittedAt: submitted.data.submittedAt, decision: approval.decision, payload, entity });
    const actor = { tenantId: context.tenantId, userId: context.actorId };
    const existing = await findVertex(deps.knex, namespace, 'FilingPackage', plan.edge.to_id);
    if (!existing) await createEntity(deps, actor, plan.filing, newId(context, 'graph.vertex'));
    await createEdge(deps, actor, { ...plan.edge, properties: {} }, newId(context, 'graph.edge'));
    if (plan.advance) await updateEntity(deps, actor, entity.label, entity.id, { properties: plan.advance });
    await assess(deps, DEFAULT_PACKS, context, created.entityId);
  },
};
