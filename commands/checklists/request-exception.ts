import { z } from 'zod';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import { newId } from '../../src/platform/command-handling/idempotency';
import type { PlatformDeps } from '../../src/platform/context-module';
import {
  checklistAggregate,
  type ChecklistEvent,
  type ChecklistState,
  type ExistingChecklist,
} from '../../streams/checklists/checklist';
import { inProgress, itemAt } from './guards';

/**
 * POST /checklists/{id}/exception: the filing cannot be completed as the template asks (a
 * shut-in well with nothing to report, a form that does not apply) and the operator asks a
 * reviewer to accept it as it is. `item_indexes` names the items the exception covers.
 */
export const RequestExceptionBody = z
  .object({
    reason: z.string().trim().min(1).max(4000),
    item_indexes: z.array(z.number().int().min(0).max(1000)).max(100).default([]),
    requested_until: z
      .string()
      .max(10)
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD')
      .optional(),
    reviewer_id: z.string().trim().min(1).max(200).optional(),
  })
  .strict();

export interface RequestException {
  type: 'RequestException';
  approvalId: string;
  reason: string;
  itemIndexes: number[];
  requestedUntil: string | null;
  requestedBy: string;
  reviewerId: string | null;
}

export function decideRequestException(command: RequestException, state: ChecklistState, now: Date): ChecklistEvent[] {
  const checklist = inProgress(state, 'request an exception');
  for (const index of command.itemIndexes) itemAt(checklist, index);
  return [
    {
      type: 'ChecklistExceptionRequested',
      data: {
        approvalId: command.approvalId,
        reason: command.reason,
        itemIndexes: [...new Set(command.itemIndexes)],
        requestedUntil: command.requestedUntil,
        requestedBy: command.requestedBy,
        requestedAt: now.toISOString(),
        reviewerId: command.reviewerId,
      },
    },
  ];
}

export const requestExceptionDecider: Decider<RequestException, ChecklistState, ChecklistEvent> = {
  ...checklistAggregate,
  decide: decideRequestException,
};

/** Like a submit: one write here; the `checklists.open-review-approval` reactor opens the approval. */
export async function requestException(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  checklistId: string,
  body: z.infer<typeof RequestExceptionBody>,
) {
  const command: RequestException = {
    type: 'RequestException',
    approvalId: newId(context, 'checklists.review'),
    reason: body.reason,
    itemIndexes: body.item_indexes,
    requestedUntil: body.requested_until ?? null,
    requestedBy: context.actorId,
    reviewerId: body.reviewer_id ?? null,
  };
  const { state, position } = await deps.handle(
    requestExceptionDecider,
    checklistAggregate.stream(context.tenantId, checklistId),
    command,
    context,
  );
  const checklist = state as ExistingChecklist;
  return { checklist, approvalId: checklist.pendingApprovalId ?? command.approvalId, position };
}
