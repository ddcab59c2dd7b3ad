import { z } from 'zod';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict, Forbidden, NotFound, ValidationFailed } from '../../src/platform/domain-errors';
import {
  approvalAggregate,
  type ApprovalEvent,
  type ApprovalState,
  type Decision,
  DECISIONS,
} from '../../streams/approvals/approval';
import { boundedRecord } from '../../src/platform/http/bounded';

/** POST /approvals/{id}/decide body. `reviewer_id` only counts for header-less internal callers. */
export const DecideApprovalBody = z
  .object({
    decision: z.enum(DECISIONS),
    reviewer_id: z.string().trim().min(1).max(200).optional(),
    comments: z.string().max(10_000).nullable().optional(),
    justification: z.string().max(10_000).nullable().optional(),
    modifications: boundedRecord(z.unknown()).nullable().optional(),
  })
  .strict();

export interface DecideApproval {
  type: 'DecideApproval';
  decision: Decision;
  reviewerId: string;
  /** Admins may decide an approval named to someone else. */
  reviewerIsAdmin: boolean;
  /**
   * Whether this reviewer may decide an approval they opened themselves: only an admin, and
   * only where `APPROVALS_ADMIN_SELF_DECIDE=true` allows it (off by default).
   */
  mayDecideOwn?: boolean;
  /** The reason; a rejection needs one. */
  comments: string | null;
  modifications: Record<string, unknown> | null;
  /** Why approving over failed validations is right; needed when the filing has any. */
  justification?: string | null;
}

export const approvalNotFound = () => new NotFound('Approval not found');

/**
 * Four eyes: whoever opened an approval (the turn's user, the checklist's submitter, the
 * caller of POST /approvals) does not decide it; a compliance filing approved by its own
 * preparer is not reviewed at all. Null when the rule does not stand in the way.
 */
export function fourEyesRefusal(
  command: Pick<DecideApproval, 'reviewerId' | 'mayDecideOwn'>,
  state: ApprovalState,
): string | null {
  if (state.status === 'none' || command.mayDecideOwn || command.reviewerId !== state.requestedBy) return null;
  return 'You opened this approval, so another reviewer must decide it (four eyes)';
}

/**
 * One decision per approval: the second decider (or a concurrent one whose append lost the
 * revision race and re-read the stream) meets a decided state and gets 409. While the
 * approval is named to a reviewer and not escalated, only that reviewer or an admin decides.
 */
export function decideDecideApproval(command: DecideApproval, state: ApprovalState, now: Date): ApprovalEvent[] {
  if (state.status === 'none') throw approvalNotFound();
  if (state.status !== 'pending')
    throw new Conflict(`Approval already decided (${state.status})`, { status: state.status });
  // The refused attempt is itself recorded (the caller answers 403 after it is appended).
  const refusal = fourEyesRefusal(command, state);
  if (refusal) {
    return [
      {
        type: 'ApprovalDecisionRefused',
        data: {
          approvalId: state.approvalId,
          attemptedBy: command.reviewerId,
          decision: command.decision,
          reason: refusal,
          refusedAt: now.toISOString(),
        },
      },
    ];
  }
  if (state.reviewerId && state.reviewerId !== command.reviewerId && !command.reviewerIsAdmin) {
    throw new Forbidden('This approval is assigned to another reviewer; escalate it to open it to every reviewer');
  }
  const hasModifications = command.modifications !== null && Object.keys(command.modifications).length > 0;
  if (command.decision === 'modified' && !hasModifications) {
    throw new ValidationFailed([
      {
        loc: ['body', 'modifications'],
        msg: 'a modified decision needs a non-empty modifications object',
        type: 'missing',
      },
    ]);
  }
  if (command.decision !== 'modified' && hasModifications) {
    throw new ValidationFailed([
      {
        loc: ['body', 'modifications'],
        msg: 'modifications are only accepted with decision modified',
        type: 'value_error',
      },
    ]);
  }
  const missing = missingReason(command, state.failedValidations);
  if (missing) throw new ValidationFailed([missing]);
  const overriding = command.decision !== 'rejected' && state.failedValidations.length > 0;
  return [
    {
      type: 'ApprovalDecided',
      data: {
        approvalId: state.approvalId,
        decision: command.decision,
        reviewerId: command.reviewerId,
        comments: command.comments,
        modifications: command.decision === 'modified' ? command.modifications : null,
        ...(command.justification?.trim() ? { justification: command.justification.trim() } : {}),
        ...(overriding ? { overriddenValidations: state.failedValidations } : {}),
        decidedAt: now.toISOString(),
      },
    },
  ];
}

/**
 * A decision others must be able to follow: a rejection says why (the submitter reworks from
 * it), and approving a filing whose validations failed says why that is still right.
 */
function missingReason(command: DecideApproval, failedValidations: string[]) {
  if (command.decision === 'rejected' && !command.comments?.trim()) {
    return { loc: ['body', 'comments'], msg: 'a rejection needs a reason in comments', type: 'missing' };
  }
  if (command.decision !== 'rejected' && failedValidations.length > 0 && !command.justification?.trim()) {
    const which = failedValidations.join(', ');
    return {
      loc: ['body', 'justification'],
      msg: `approving over failed validations (${which}) needs a justification`,
      type: 'missing',
    };
  }
  return null;
}

export const decideApprovalDecider: Decider<DecideApproval, ApprovalState, ApprovalEvent> = {
  ...approvalAggregate,
  decide: decideDecideApproval,
};

/** Answers 403 once a four-eyes refusal is in the log (also for a retry of the refused request). */
export async function decideApproval(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  approvalId: string,
  command: DecideApproval,
) {
  const { state, events, replayed, position } = await deps.handle(
    decideApprovalDecider,
    approvalAggregate.stream(context.tenantId, approvalId),
    command,
    context,
  );
  const refused = events.find((e) => e.type === 'ApprovalDecisionRefused');
  if (refused) throw new Forbidden(refused.data.reason);
  const refusal = replayed ? fourEyesRefusal(command, state) : null;
  if (refusal) throw new Forbidden(refusal);
  return { state, position };
}
