import { z } from 'zod';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import { newId } from '../../src/platform/command-handling/idempotency';
import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict } from '../../src/platform/domain-errors';
import { approvalAggregate, type ApprovalEvent, type ApprovalState } from '../../streams/approvals/approval';
import { boundedRecord } from '../../src/platform/http/bounded';

/** POST /approvals body. */
export const RequestApprovalBody = z
  .object({
    conversation_id: z.string().trim().min(1).max(200).nullable().optional(),
    agent_type: z.string().trim().min(1).max(100).default('general'),
    checkpoint_type: z.string().trim().min(1).max(100),
    payload: boundedRecord(z.unknown()).default({}),
    reviewer_strategy: z.string().trim().min(1).max(100).optional(),
    reviewer_id: z.string().trim().min(1).max(200).nullable().optional(),
  })
  .superRefine((body, ctx) => {
    if (body.reviewer_strategy === 'named_individual' && !body.reviewer_id) {
      ctx.addIssue({
        code: 'custom',
        path: ['reviewer_id'],
        message: 'reviewer_strategy named_individual needs a reviewer_id',
        params: { type: 'missing' },
      });
    }
  });

export interface RequestApprovalInput {
  conversationId: string | null;
  agentType: string;
  checkpointType: string;
  payload: Record<string, unknown>;
  reviewerStrategy?: string;
  reviewerId?: string | null;
}

export interface RequestApproval extends RequestApprovalInput {
  type: 'RequestApproval';
  approvalId: string;
  requestedBy: string;
}

export interface ApprovalReceipt {
  approval_id: string;
  status: 'pending';
  checkpoint_type: string;
  created_at: string;
  reviewer_id: string | null;
}

export function decideRequestApproval(command: RequestApproval, state: ApprovalState, now: Date): ApprovalEvent[] {
  if (state.status !== 'none') throw new Conflict('Approval already exists');
  return [
    {
      type: 'ApprovalRequested',
      data: {
        approvalId: command.approvalId,
        conversationId: command.conversationId,
        agentType: command.agentType,
        checkpointType: command.checkpointType,
        payload: command.payload,
        reviewerStrategy: command.reviewerStrategy ?? null,
        reviewerId: command.reviewerId ?? null,
        requestedBy: command.requestedBy,
        requestedAt: now.toISOString(),
      },
    },
  ];
}

export const requestApprovalDecider: Decider<RequestApproval, ApprovalState, ApprovalEvent> = {
  ...approvalAggregate,
  decide: decideRequestApproval,
};

/**
 * Opens a pending approval. Agent turns call this when they reach a human checkpoint, the
 * checklist submit calls it, and so does POST /approvals. `approvalId` may be given by a
 * caller that must know the id before the write (a checklist submission derives it); it is
 * otherwise derived from the Idempotency-Key or random.
 */
export async function requestApproval(
  deps: Pick<PlatformDeps, 'handle' | 'clock'>,
  context: CommandContext,
  input: RequestApprovalInput & { approvalId?: string },
): Promise<ApprovalReceipt> {
  const approvalId = input.approvalId ?? newId(context, 'approvals.approval');
  const command: RequestApproval = { ...input, type: 'RequestApproval', approvalId, requestedBy: context.actorId };
  const { state } = await deps.handle(
    requestApprovalDecider,
    approvalAggregate.stream(context.tenantId, approvalId),
    command,
    context,
  );
  if (state.status === 'none') throw new Error('approval request appended nothing');
  return {
    approval_id: approvalId,
    status: 'pending',
    checkpoint_type: state.checkpointType,
    created_at: state.requestedAt,
    reviewer_id: state.reviewerId,
  };
}
