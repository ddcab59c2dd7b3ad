import type { FactReader, Reactor } from '../../src/platform/reactors/reactor';
import { actorOf, tenantOf } from '../../src/platform/reactors/reactor';
import type { RecordedEvent } from '../../src/platform/eventstore/types';
import { approvalAggregate } from '../../streams/approvals/approval';
import { readChecklistEvent } from '../../streams/checklists/checklist';
import { type RequestApprovalInput, requestApprovalDecider } from '../approvals/request-approval';
import { filingPayload, type FilingPayload } from './filing-payload';
import { checklistFacts, checklistHistory } from './checklist-history';
import type { ChecklistFacts } from './checklist-facts';

type Asked =
  | { type: 'ChecklistSubmitted'; approvalId: string; reviewerId: string | null; summary: string | null }
  | {
      type: 'ChecklistExceptionRequested';
      approvalId: string;
      reviewerId: string | null;
      reason: string;
      itemIndexes: number[];
      requestedUntil: string | null;
    };

export interface ReviewFacts {
  checklist: ChecklistFacts;
  /** The shared filing payload (built with `submissionSummary`); null for an exception request. */
  filing: FilingPayload | null;
}

/** What a submission's approval says when the submitter wrote nothing. */
export const submissionSummary = (summary: string | null, checklist: ChecklistFacts) =>
  summary ?? `All ${checklist.items.length} items complete; ready to file`;

/**
 * Given a submission (or an exception request) of a checklist, then the approval to open:
 * its id is the one the checklist recorded, so a retried submit, a replayed reaction and
 * the checklist's `pending_approval_id` all name one approval. A submission asks for a
 * filing (the shared filing payload); an exception asks to accept the checklist as it is.
 */
export function reviewApprovalFor(asked: Asked, facts: ReviewFacts): RequestApprovalInput & { approvalId: string } {
  const { checklist } = facts;
  const reviewer = {
    reviewerStrategy: asked.reviewerId ? 'named_individual' : 'any_reviewer',
    reviewerId: asked.reviewerId,
  };
  if (asked.type === 'ChecklistSubmitted') {
    if (!facts.filing) throw new Error(`submission of checklist ${checklist.checklistId} without its filing payload`);
    return {
      approvalId: asked.approvalId,
      conversationId: null,
      agentType: 'checklists',
      checkpointType: 'filing_submission',
      payload: { ...facts.filing },
      ...reviewer,
    };
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
  if (event.type === 'ChecklistSubmitted')
    return {
      type: event.type,
      approvalId: event.data.approvalId,
      reviewerId: event.data.reviewerId ?? null,
      summary: event.data.summary ?? null,
    };
  if (event.type === 'ChecklistExceptionRequested') {
    const d = event.data;
    return {
      type: event.type,
      approvalId: d.approvalId,
      reviewerId: d.reviewerId ?? null,
      reason: d.reason,
      itemIndexes: d.itemIndexes,
      requestedUntil: d.requestedUntil,
    };
  }
  return null;
}

/** What opening the review approval decides from; null: opened already (a replay whose first attempt committed). */
async function openingFacts(recorded: RecordedEvent, read: FactReader): Promise<ReviewFacts | null> {
  const asked = askedBy(recorded);
  if (!asked) return null;
  const tenantId = tenantOf(recorded);
  const existing = await read.store.readStream(approvalAggregate.stream(tenantId, asked.approvalId), { limit: 1 });
  if (existing.length > 0) return null;
  const { created } = await checklistHistory(read.store, recorded.stream);
  const checklist = checklistFacts(created);
  const filing =
    asked.type === 'ChecklistSubmitted'
      ? await filingPayload(read, tenantId, {
          summary: submissionSummary(asked.summary, checklist),
          checklist: {
            checklist_id: created.checklistId,
            template_id: created.templateId,
            entity_id: created.entityId,
            entity_type: created.entityType,
            period: created.period,
          },
        })
      : null;
  return { checklist, filing };
}

/** Checklist submitted (or exception requested) → the review approval is opened. */
export const openReviewApprovalReactor: Reactor<ReviewFacts | null> = {
  name: 'checklists.open-review-approval',
  handles: ['ChecklistSubmitted', 'ChecklistExceptionRequested'],
  facts: openingFacts,
  react(recorded, facts) {
    const asked = askedBy(recorded);
    if (!asked || !facts) return [];
    const input = reviewApprovalFor(asked, facts);
    return [
      {
        step: 'open-approval',
        writes: [
          {
            decider: requestApprovalDecider,
            stream: approvalAggregate.stream(tenantOf(recorded), input.approvalId),
            command: { ...input, type: 'RequestApproval', requestedBy: actorOf(recorded) },
          },
        ],
      },
    ];
  },
};
