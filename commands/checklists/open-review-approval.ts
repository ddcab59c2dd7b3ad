import type { Reactor } from '../../src/platform/reactors/reactor';
import { reactionContext } from '../../src/platform/reactors/reactor';
import type { RecordedEvent } from '../../src/platform/eventstore/types';
import { findVertex } from '../../queries/graph/entities';
import { approvalAggregate } from '../../streams/approvals/approval';
import { readChecklistEvent } from '../../streams/checklists/checklist';
import { namespaceOf } from '../../streams/graph/names';
import type { Properties } from '../../streams/graph/properties';
import { requestApproval, RequestApprovalInput } from '../approvals/request-approval';
import { checklistFacts, checklistHistory, lastAssessmentChecks } from './checklist-history';
import { AssessmentCheck, ChecklistFacts, filingPayload, graphLabelOf } from './filing-payload';

type Asked =
  | { type: 'ChecklistSubmitted'; approvalId: string; reviewerId: string | null; summary: string | null }
  | { type: 'ChecklistExceptionRequested'; approvalId: string; reviewerId: string | null; reason: string; itemIndexes: number[]; requestedUntil: string | null };

export interface ReviewFacts {
  checklist: ChecklistFacts;
  entity: { id: string; label: string; properties: Properties } | null;
  checks: AssessmentCheck[];
}

/**
 * Given a submission (or an exception request) of a checklist, then the approval to open:
 * its id is the one the checklist recorded, so a retried submit, a replayed reaction and
 * the checklist's `pending_approval_id` all name one approval. A submission asks for a
 * filing (the shared filing payload); an exception asks to accept the checklist as it is.
 */
export function reviewApprovalFor(asked: Asked, facts: ReviewFacts): RequestApprovalInput & { approvalId: string } {
  const { checklist } = facts;
  const reviewer = { reviewerStrategy: asked.reviewerId ? 'named_individual' : 'any_reviewer', reviewerId: asked.reviewerId };
  if (asked.type === 'ChecklistSubmitted') {
    const summary = asked.summary ?? `All ${checklist.items.length} items complete; ready to file`;
    return { approvalId: asked.approvalId, conversationId: null, agentType: 'checklists', checkpointType: 'filing_submission', payload: filingPayload(checklist, facts.entity, facts.checks, summary), ...reviewer };
  }
  return {
    approvalId: asked.approvalId,
    conversationId: null,
    agentType: 'checklists',
    checkpointType: 'checklist_exception',
    payload: {
      filing_type: checklist.templateId,
      entity_id: checklist.entityId,
      checklist_id: checklist.checklistId,
      template_id: checklist.templateId,
      summary: `Exception requested: ${asked.reason}`,
      item_indexes: asked.itemIndexes,
      requested_until: asked.requestedUntil,
    },
    ...reviewer,
  };
}

function askedBy(recorded: RecordedEvent): Asked | null {
  const event = readChecklistEvent(recorded);
  if (event.type === 'ChecklistSubmitted') return { type: event.type, approvalId: event.data.approvalId, reviewerId: event.data.reviewerId ?? null, summary: event.data.summary ?? null };
  if (event.type === 'ChecklistExceptionRequested') {
    const d = event.data;
    return { type: event.type, approvalId: d.approvalId, reviewerId: d.reviewerId ?? null, reason: d.reason, itemIndexes: d.itemIndexes, requestedUntil: d.requestedUntil };
  }
  return null;
}

/** Checklist submitted (or exception requested) → the review approval is opened. */
export const openReviewApprovalReactor: Reactor = {
  name: 'checklists.open-review-approval',
  handles: ['ChecklistSubmitted', 'ChecklistExceptionRequested'],
  async react(recorded, deps) {
    const asked = askedBy(recorded);
    if (!asked) return;
    const context = reactionContext(recorded, 'open-approval');
    // Opened already (a replay whose first attempt committed): nothing left to do.
    const existing = await deps.store.readStream(approvalAggregate.stream(context.tenantId, asked.approvalId), { limit: 1 });
    if (existing.length > 0) return;
    const { created } = await checklistHistory(deps.store, recorded.stream);
    const checklist = checklistFacts(created);
    const [vertex, checks] = await Promise.all([
      findVertex(deps.knex, namespaceOf(context.tenantId), graphLabelOf(created.entityType), created.entityId),
      lastAssessmentChecks(deps.store, context.tenantId, created.checklistId),
    ]);
    await requestApproval(deps, context, reviewApprovalFor(asked, { checklist, entity: vertex, checks }));
  },
};
