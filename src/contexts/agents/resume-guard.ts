import type { CommandContext } from '../../platform/command-handling/command-handler';
import type { Decider } from '../../platform/command-handling/decider';
import type { PlatformDeps } from '../../platform/context-module';
import { turnEnding } from '../../../commands/agents/conversation-turns';
import { consumeApprovalDecision } from '../../../commands/conversations/consume-approval-decision';
import { approvalAggregate, approvalState } from '../../../streams/approvals/approval';
import { turnAggregate } from '../../../streams/agents/turn';
import {
  approvalStanding,
  type AwaitedApproval,
  conversationAggregate,
  type ConversationEvent,
  type ConversationState,
  conversationStream,
  type ReviewerDecision,
} from '../../../streams/conversations/conversation';

export type ResumeOutcome =
  | { status: 'nothing_to_resume' }
  | { status: 'approval_missing'; approvalId: string }
  | { status: 'pending'; approvalId: string; checkpointType: string }
  | { status: 'resumed'; approvalId: string; checkpointType: string; decision: ReviewerDecision };

/** Reads the conversation's decision state (from its snapshot when it has one) without writing. */
const reading: Decider<null, ConversationState, ConversationEvent> = { ...conversationAggregate, decide: () => [] };

/**
 * The conversation's state as this turn's own write left it, when this process remembers it:
 * the turn's start appended the user's message expecting the conversation's revision, which
 * proved that state the head. What the guard takes from it (the approvals waited on, the
 * recent turns) is recorded by the conversation's own turns; a decision delivered since is read
 * from the approval's own stream anyway. Otherwise it is read.
 */
async function conversationAtTurnStart(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  conversationId: string,
): Promise<ConversationState> {
  return (
    deps.handle.recall(conversationAggregate, conversationStream(context.tenantId, conversationId))?.state ??
    conversationState(deps, context, conversationId)
  );
}

async function conversationState(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  conversationId: string,
): Promise<ConversationState> {
  return (await deps.handle(reading, conversationStream(context.tenantId, conversationId), null, context)).state;
}

/**
 * The approval the previous turn paused on, if it did. A turn this process remembers ran here,
 * and only the process running a turn pauses it: its remembered state says so without a read
 * (every turn of a conversation on one instance, the common case, reads nothing). A turn
 * that ran elsewhere, or was forgotten since, is read from its stream's last event.
 */
async function previousPause(
  deps: Pick<PlatformDeps, 'handle' | 'store'>,
  tenantId: string,
  executionId: string,
): Promise<{ approvalId: string } | null> {
  const known = deps.handle.recall(turnAggregate, turnAggregate.stream(tenantId, executionId));
  if (known) return known.state.status === 'awaiting_hitl' ? { approvalId: known.state.approvalId } : null;
  const ending = await turnEnding(deps.store, tenantId, executionId);
  return ending?.type === 'TurnPaused' ? { approvalId: ending.approvalId } : null;
}

/**
 * `resume_guard`: the approvals this conversation's paused turns wait on, oldest
 * first, whatever turns ran since. The first one decided is resumed from, exactly once (the
 * conversation records the consumption; a turn that loses that race looks further). The
 * decision is read from the approval's own stream, so a turn right after the decision does not
 * depend on the routing reactor having run. A turn paused before the conversation recorded
 * its awaited approvals is found as the previous turn's pause.
 */
export async function resumeGuard(
  deps: Pick<PlatformDeps, 'handle' | 'store'>,
  context: CommandContext,
  conversationId: string,
  executionId: string,
): Promise<ResumeOutcome> {
  const state = await conversationAtTurnStart(deps, context, conversationId);
  const candidates = state.status === 'none' ? [] : state.awaitedApprovals.map((a) => a.approvalId);
  const previousId =
    state.status === 'none' ? undefined : [...state.recentExecutions].reverse().find((id) => id !== executionId);
  const paused = previousId ? await previousPause(deps, context.tenantId, previousId) : null;
  if (paused && approvalStanding(state, paused.approvalId).kind === 'unknown') candidates.push(paused.approvalId);

  let waiting: ResumeOutcome = { status: 'nothing_to_resume' };
  for (const approvalId of candidates) {
    const approval = await approvalState(deps.store, approvalAggregate.stream(context.tenantId, approvalId));
    if (approval.status === 'none') {
      if (waiting.status === 'nothing_to_resume') waiting = { status: 'approval_missing', approvalId };
      continue;
    }
    if (approval.status === 'pending') {
      if (waiting.status !== 'pending')
        waiting = { status: 'pending', approvalId, checkpointType: approval.checkpointType };
      continue;
    }
    const resumed = await consumeApprovalDecision(deps, context, conversationId, {
      type: 'ConsumeApprovalDecision',
      approvalId,
      checkpointType: approval.checkpointType,
      executionId,
      decision: approval.decision,
    });
    if (resumed)
      return { status: 'resumed', approvalId, checkpointType: approval.checkpointType, decision: approval.decision };
  }
  return waiting;
}

/**
 * The approval this conversation already waits on for the same request (same checkpoint
 * type), pending or decided but not yet resumed from: `approval_node` pauses on it again
 * instead of opening a second one.
 */
export async function openApprovalFor(
  deps: Pick<PlatformDeps, 'handle'>,
  context: CommandContext,
  conversationId: string,
  checkpointType: string,
): Promise<AwaitedApproval | null> {
  const state = await conversationState(deps, context, conversationId);
  if (state.status === 'none') return null;
  return state.awaitedApprovals.find((a) => a.checkpointType === checkpointType) ?? null;
}
