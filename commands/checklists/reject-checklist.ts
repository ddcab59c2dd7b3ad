import { z } from 'zod';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict, Forbidden } from '../../src/platform/domain-errors';
import { checklistAggregate, type ChecklistEvent, type ChecklistState } from '../../streams/checklists/checklist';
import { existing } from './guards';

/** POST /checklists/{id}/reject body: why the filing is rejected (final). */
export const RejectChecklistBody = z.object({ reason: z.string().trim().min(1).max(4000) }).strict();

export interface RejectChecklist {
  type: 'RejectChecklist';
  reason: string;
  rejectedBy: string;
  /** An admin where `APPROVALS_ADMIN_SELF_DECIDE=true`: may reject what they submitted. */
  mayDecideOwn?: boolean;
}

const FINAL = ['approved', 'filing_failed', 'exception_granted', 'rejected'];

/** Four eyes, as for approvals: a submission under review is not rejected by its submitter. */
export function rejectionRefusal(
  command: Pick<RejectChecklist, 'rejectedBy' | 'mayDecideOwn'>,
  state: ChecklistState,
): string | null {
  if (
    state.status === 'none' ||
    state.pendingApprovalId === null ||
    command.mayDecideOwn ||
    state.submittedBy !== command.rejectedBy
  )
    return null;
  return 'You submitted this checklist for review, so another reviewer must reject it (four eyes)';
}

export function decideRejectChecklist(command: RejectChecklist, state: ChecklistState, now: Date): ChecklistEvent[] {
  const checklist = existing(state);
  if (FINAL.includes(checklist.status))
    throw new Conflict(`Cannot reject: the checklist is ${checklist.status}`, { status: checklist.status });
  const refusal = rejectionRefusal(command, checklist);
  if (refusal)
    return [
      {
        type: 'ChecklistRejectionRefused',
        data: {
          attemptedBy: command.rejectedBy,
          reason: refusal,
          refusedAt: now.toISOString(),
          approvalId: checklist.pendingApprovalId,
        },
      },
    ];
  return [
    {
      type: 'ChecklistRejected',
      data: {
        reason: command.reason,
        rejectedBy: command.rejectedBy,
        rejectedAt: now.toISOString(),
        approvalId: checklist.pendingApprovalId,
      },
    },
  ];
}

export const rejectChecklistDecider: Decider<RejectChecklist, ChecklistState, ChecklistEvent> = {
  ...checklistAggregate,
  decide: decideRejectChecklist,
};

/**
 * One write; the approval the checklist waited on is closed by the `checklists.close-rejected-approval`
 * reactor. Answers 403 once a four-eyes refusal is in the log (also for a retry of the refused request).
 */
export async function rejectChecklist(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  checklistId: string,
  body: z.infer<typeof RejectChecklistBody>,
  mayDecideOwn = false,
) {
  const command: RejectChecklist = {
    type: 'RejectChecklist',
    reason: body.reason,
    rejectedBy: context.actorId,
    mayDecideOwn,
  };
  const result = await deps.handle(
    rejectChecklistDecider,
    checklistAggregate.stream(context.tenantId, checklistId),
    command,
    context,
  );
  const refused = result.events.find((e) => e.type === 'ChecklistRejectionRefused');
  if (refused?.type === 'ChecklistRejectionRefused') throw new Forbidden(refused.data.reason);
  const refusal = result.replayed ? rejectionRefusal(command, result.state) : null;
  if (refusal) throw new Forbidden(refusal);
  return result;
}
