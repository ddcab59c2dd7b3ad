import { z } from 'zod';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import { newId } from '../../src/platform/command-handling/idempotency';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict } from '../../src/platform/domain-errors';
import {
  checklistAggregate,
  type ChecklistEvent,
  type ChecklistState,
  type ExistingChecklist,
} from '../../streams/checklists/checklist';
import { inProgress } from './guards';

/** POST /checklists/{id}/submit body: optionally a named reviewer and a note for the approval. */
export const SubmitChecklistBody = z
  .object({
    reviewer_id: z.string().trim().min(1).max(200).optional(),
    summary: z.string().trim().max(2000).optional(),
  })
  .strict();

export interface SubmitChecklist {
  type: 'SubmitChecklist';
  approvalId: string;
  submittedBy: string;
  reviewerId: string | null;
  summary: string | null;
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
  const { approvalId, submittedBy, reviewerId, summary } = command;
  return [
    {
      type: 'ChecklistSubmitted',
      data: { approvalId, submittedBy, submittedAt: now.toISOString(), reviewerId, summary },
    },
  ];
}

export const submitChecklistDecider: Decider<SubmitChecklist, ChecklistState, ChecklistEvent> = {
  ...checklistAggregate,
  decide: decideSubmitChecklist,
};

/**
 * The checklist moves to `in_review` (that is where completeness is decided against
 * concurrent item edits) naming the approval it waits on; the approval itself is opened by
 * the `checklists.open-review-approval` reactor from this event, so a submit never writes a
 * second aggregate and a crash after it leaves nothing orphaned. A retried request with the
 * same Idempotency-Key derives the same approval id and appends nothing.
 */
export async function submitChecklist(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  checklistId: string,
  body: z.infer<typeof SubmitChecklistBody>,
) {
  const command: SubmitChecklist = {
    type: 'SubmitChecklist',
    approvalId: newId(context, 'checklists.review'),
    submittedBy: context.actorId,
    reviewerId: body.reviewer_id ?? null,
    summary: body.summary ?? null,
  };
  const { state, position } = await deps.handle(
    submitChecklistDecider,
    checklistAggregate.stream(context.tenantId, checklistId),
    command,
    context,
  );
  const checklist = state as ExistingChecklist;
  return { checklist, approvalId: checklist.pendingApprovalId ?? command.approvalId, position };
}
