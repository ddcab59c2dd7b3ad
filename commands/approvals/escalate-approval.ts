import { z } from 'zod';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict } from '../../src/platform/domain-errors';
import { approvalAggregate, type ApprovalEvent, type ApprovalState } from '../../streams/approvals/approval';
import { approvalNotFound } from './decide-approval';

/** POST /approvals/escalate body. */
export const EscalateApprovalBody = z
  .object({
    approval_id: z.string().trim().min(1).max(200),
    reason: z.string().trim().min(1).max(2000),
  })
  .strict();

export interface EscalateApproval {
  type: 'EscalateApproval';
  reason: string;
  escalatedBy: string;
}

/**
 * Escalation leaves the approval pending and lifts its named reviewer: the approval joins
 * the tenant's shared queue (every reviewer and admin may decide it) flagged with the
 * reason and an escalation level that counts repeated escalations. A decided approval
 * cannot be escalated.
 */
export function decideEscalateApproval(command: EscalateApproval, state: ApprovalState, now: Date): ApprovalEvent[] {
  if (state.status === 'none') throw approvalNotFound();
  if (state.status !== 'pending')
    throw new Conflict(`Approval already decided (${state.status}); only a pending approval can be escalated`, {
      status: state.status,
    });
  return [
    {
      type: 'ApprovalEscalated',
      data: {
        approvalId: state.approvalId,
        reason: command.reason,
        escalatedBy: command.escalatedBy,
        fromReviewerId: state.reviewerId,
        level: state.escalationLevel + 1,
        escalatedAt: now.toISOString(),
      },
    },
  ];
}

export const escalateApprovalDecider: Decider<EscalateApproval, ApprovalState, ApprovalEvent> = {
  ...approvalAggregate,
  decide: decideEscalateApproval,
};

export async function escalateApproval(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  approvalId: string,
  command: EscalateApproval,
) {
  const { state } = await deps.handle(
    escalateApprovalDecider,
    approvalAggregate.stream(context.tenantId, approvalId),
    command,
    context,
  );
  return state;
}
