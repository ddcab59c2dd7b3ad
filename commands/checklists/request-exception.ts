import { z } from 'zod';
import { requestApproval } from '../approvals/request-approval';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import { newId } from '../../src/platform/command-handling/idempotency';
import type { PlatformDeps } from '../../src/platform/context-module';
import { checklistAggregate, ChecklistEvent, ChecklistState, ExistingChecklist } from '../../streams/checklists/checklist';
import { inProgress, itemAt } from './guards';
import { reviewPayload } from './submit-checklist';

/**
 * POST /checklists/{id}/exception: the filing cannot be completed as the template asks (a
 * shut-in well with nothing to report, a form that does not apply) and the operator asks a
 * reviewer to accept it as it is. `item_indexes` names the items the exception covers.
 */
export const RequestExceptionBody = z
  .object({
    reason: z.string().trim().min(1).max(4000),
    item_indexes: z.array(z.number().int().min(0)).max(100).default([]),
    requested_until: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD').optional(),
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
      },
    },
  ];
}

export const requestExceptionDecider: Decider<RequestException, ChecklistState, ChecklistEvent> = { ...checklistAggregate, decide: decideRequestException };

export async function requestException(deps: Pick<PlatformDeps, 'handle' | 'clock'>, context: CommandContext, checklistId: string, body: z.infer<typeof RequestExceptionBody>) {
  const command: RequestException = {
    type: 'RequestException',
    approvalId: newId(context, 'checklists.review'),
    reason: body.reason,
    itemIndexes: body.item_indexes,
    requestedUntil: body.requested_until ?? null,
    requestedBy: context.actorId,
  };
  const { state } = await deps.handle(requestExceptionDecider, checklistAggregate.stream(context.tenantId, checklistId), command, context);
  const checklist = state as ExistingChecklist;
  const approval = await requestApproval(deps, context, {
    approvalId: checklist.pendingApprovalId ?? command.approvalId,
    conversationId: null,
    agentType: 'checklists',
    checkpointType: 'checklist_exception',
    payload: reviewPayload(checklist, `Exception requested: ${body.reason}`, { item_indexes: command.itemIndexes, requested_until: command.requestedUntil }),
    reviewerStrategy: body.reviewer_id ? 'named_individual' : 'any_reviewer',
    reviewerId: body.reviewer_id ?? null,
  });
  return { checklist, approval };
}
