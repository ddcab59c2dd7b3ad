import { z } from 'zod';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict } from '../../src/platform/domain-errors';
import { checklistAggregate, ChecklistEvent, ChecklistState } from '../../streams/checklists/checklist';
import { existing } from './guards';

/** POST /checklists/{id}/reject body: why the filing is rejected (final). */
export const RejectChecklistBody = z.object({ reason: z.string().trim().min(1).max(4000) }).strict();

export interface RejectChecklist {
  type: 'RejectChecklist';
  reason: string;
  rejectedBy: string;
}

const FINAL = ['approved', 'exception_granted', 'rejected'];

export function decideRejectChecklist(command: RejectChecklist, state: ChecklistState, now: Date): ChecklistEvent[] {
  const checklist = existing(state);
  if (FINAL.includes(checklist.status)) throw new Conflict(`Cannot reject: the checklist is ${checklist.status}`, { status: checklist.status });
  return [{ type: 'ChecklistRejected', data: { reason: command.reason, rejectedBy: command.rejectedBy, rejectedAt: now.toISOString(), approvalId: checklist.pendingApprovalId } }];
}

export const rejectChecklistDecider: Decider<RejectChecklist, ChecklistState, ChecklistEvent> = { ...checklistAggregate, decide: decideRejectChecklist };

/** One write; the approval the checklist waited on is closed by the `checklists.close-rejected-approval` reactor. */
export async function rejectChecklist(deps: Pick<PlatformDeps, 'handle'>, context: CommandContext, checklistId: string, body: z.infer<typeof RejectChecklistBody>) {
  return deps.handle(rejectChecklistDecider, checklistAggregate.stream(context.tenantId, checklistId), { type: 'RejectChecklist', reason: body.reason, rejectedBy: context.actorId }, context);
}
