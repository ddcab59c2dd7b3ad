import { z } from 'zod';
import { requestApproval } from '../approvals/request-approval';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import { newId } from '../../src/platform/command-handling/idempotency';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict } from '../../src/platform/domain-errors';
import { findTemplate } from '../../src/contexts/checklists/filing-templates';
import { checklistAggregate, ChecklistEvent, ChecklistState, ExistingChecklist } from '../../streams/checklists/checklist';
import { inProgress } from './guards';

/** POST /checklists/{id}/submit body: optionally a named reviewer and a note for the approval. */
export const SubmitChecklistBody = z
  .object({ reviewer_id: z.string().trim().min(1).max(200).optional(), summary: z.string().trim().max(2000).optional() })
  .strict();

export interface SubmitChecklist {
  type: 'SubmitChecklist';
  approvalId: string;
  submittedBy: string;
}

export function decideSubmitChecklist(command: SubmitChecklist, state: ChecklistState, now: Date): ChecklistEvent[] {
  const checklist = inProgress(state, 'submit');
  const incomplete = checklist.items.filter((i) => i.status !== 'complete');
  if (incomplete.length > 0) {
    const named = incomplete.map((i) => `#${i.index} ${i.label} (${i.status})`).join('; ');
    throw new Conflict(`Every item must be complete before submitting; incomplete: ${named}`, {
      incomplete_items: incomplete.map((i) => ({ index: i.index, label: i.label, status: i.status })),
    });
  }
  return [{ type: 'ChecklistSubmitted', data: { approvalId: command.approvalId, submittedBy: command.submittedBy, submittedAt: now.toISOString() } }];
}

export const submitChecklistDecider: Decider<SubmitChecklist, ChecklistState, ChecklistEvent> = { ...checklistAggregate, decide: decideSubmitChecklist };

/** The approval payload a reviewer sees for a checklist (spec keys `filing_type`, `entity_id`, `summary`). */
export function reviewPayload(checklist: ExistingChecklist, summary: string, extra: Record<string, unknown> = {}) {
  const template = findTemplate(checklist.templateId);
  return { filing_type: template?.form ?? checklist.templateId, entity_id: checklist.entityId, checklist_id: checklist.checklistId, template_id: checklist.templateId, summary, ...extra };
}

/**
 * The checklist moves to `in_review` first (that is where completeness is decided against
 * concurrent item edits), then the approval it names is opened with that id. A retried
 * request with the same Idempotency-Key replays both writes without appending anything.
 */
export async function submitChecklist(deps: Pick<PlatformDeps, 'handle' | 'clock'>, context: CommandContext, checklistId: string, body: z.infer<typeof SubmitChecklistBody>) {
  const command: SubmitChecklist = { type: 'SubmitChecklist', approvalId: newId(context, 'checklists.review'), submittedBy: context.actorId };
  const { state } = await deps.handle(submitChecklistDecider, checklistAggregate.stream(context.tenantId, checklistId), command, context);
  const checklist = state as ExistingChecklist;
  const approvalId = checklist.pendingApprovalId ?? command.approvalId;
  const complete = checklist.items.length;
  const approval = await requestApproval(deps, context, {
    approvalId,
    conversationId: null,
    agentType: 'checklists',
    checkpointType: 'filing_submission',
    payload: reviewPayload(checklist, body.summary ?? `All ${complete} items complete; ready to file`),
    reviewerStrategy: body.reviewer_id ? 'named_individual' : 'any_reviewer',
    reviewerId: body.reviewer_id ?? null,
  });
  return { checklist, approval };
}
