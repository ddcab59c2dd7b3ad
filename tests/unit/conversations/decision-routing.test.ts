import { expect } from 'chai';
import { decideAwaitApproval } from '../../../commands/conversations/await-approval';
import { decideConsumeApprovalDecision } from '../../../commands/conversations/consume-approval-decision';
import {
  decideDeliverApprovalDecision,
  decisionNotice,
} from '../../../commands/conversations/deliver-approval-decision';
import { decideReleaseApprovalDecision } from '../../../commands/conversations/release-approval-decision';
import { decisionDelivery } from '../../../commands/conversations/route-decision';
import { derivedUuid } from '../../../src/platform/command-handling/idempotency';
import type { ApprovalState } from '../../../streams/approvals/approval';
import {
  conversationAggregate,
  type ConversationEvent,
  type ConversationState,
  type ReviewerDecision,
} from '../../../streams/conversations/conversation';
import { dispatching, given } from '../../support/given';

/** The conversation waits on its approvals, receives their decisions and is resumed from each once. */
type AnyCommand =
  | Parameters<typeof decideAwaitApproval>[0]
  | Parameters<typeof decideDeliverApprovalDecision>[0]
  | Parameters<typeof decideConsumeApprovalDecision>[0]
  | Parameters<typeof decideReleaseApprovalDecision>[0];
const conversation = dispatching<ConversationState, ConversationEvent, AnyCommand>(conversationAggregate, {
  AwaitApproval: decideAwaitApproval,
  DeliverApprovalDecision: decideDeliverApprovalDecision,
  ConsumeApprovalDecision: decideConsumeApprovalDecision,
  ReleaseApprovalDecision: decideReleaseApprovalDecision,
});

const NOW = '2026-11-26T08:00:00.000Z';
const approved: ReviewerDecision = {
  decision: 'approved',
  reviewerId: 'rev',
  comments: 'figures match',
  modifications: null,
  decidedAt: NOW,
};
const modified: ReviewerDecision = {
  decision: 'modified',
  reviewerId: 'rev',
  comments: null,
  modifications: { test_date: '2026-01-12' },
  decidedAt: NOW,
};

const created: ConversationEvent = {
  type: 'ConversationCreated',
  data: {
    conversationId: 'conv-1',
    userId: 'owner',
    agentId: 'compliance',
    title: null,
    conversationType: null,
    projectId: null,
    metadata: null,
  },
};
const userMessage = (id: string, sequence: number): ConversationEvent => ({
  type: 'MessageAppended',
  data: {
    messageId: id,
    sequenceNumber: sequence,
    role: 'user',
    content: 'submit it',
    userId: 'owner',
    toolName: null,
    metadata: null,
  },
});
const awaited = (approvalId = 'ap1', executionId = 'x1'): ConversationEvent => ({
  type: 'ApprovalAwaited',
  data: { approvalId, executionId, checkpointType: 'filing_submission' },
});
const delivered = (decision: ReviewerDecision = approved, approvalId = 'ap1'): ConversationEvent => ({
  type: 'ApprovalDecisionDelivered',
  data: { approvalId, checkpointType: 'filing_submission', ...decision },
});
const consumed = (approvalId = 'ap1', executionId = 'x3'): ConversationEvent => ({
  type: 'ApprovalDecisionConsumed',
  data: { approvalId, executionId },
});

const awaitCommand = {
  type: 'AwaitApproval' as const,
  approvalId: 'ap1',
  executionId: 'x1',
  checkpointType: 'filing_submission',
};
const deliver = (decision: ReviewerDecision = approved) => ({
  type: 'DeliverApprovalDecision' as const,
  approvalId: 'ap1',
  checkpointType: 'filing_submission',
  decision,
});
const consume = (decision: ReviewerDecision = approved, executionId = 'x3') => ({
  type: 'ConsumeApprovalDecision' as const,
  approvalId: 'ap1',
  checkpointType: 'filing_submission',
  executionId,
  decision,
});

describe('conversation decider: approvals its turns wait on', () => {
  it('given a decision consumed by a turn that then failed, when ReleaseApprovalDecision, then it is awaited again with its decision and the next consumption takes it; given it was never consumed, then nothing', () => {
    const release = {
      type: 'ReleaseApprovalDecision' as const,
      approvalId: 'ap1',
      checkpointType: 'filing_submission',
      executionId: 'x3',
      decision: approved,
    };
    const released: ConversationEvent = {
      type: 'ApprovalDecisionReleased',
      data: { approvalId: 'ap1', checkpointType: 'filing_submission', executionId: 'x3', ...approved },
    };
    given(conversation, [created, awaited(), delivered(), consumed()]).when(release).then([released]);
    given(conversation, [created, awaited(), delivered()]).when(release).thenNothing();
    given(conversation, [created, awaited(), delivered(), consumed(), released]).when(release).thenNothing();
    given(conversation, [created, awaited(), delivered(), consumed(), released])
      .when(consume(approved, 'x4'))
      .then([consumed('ap1', 'x4')]);
  });

  it('given a turn paused on an approval, when AwaitApproval, then ApprovalAwaited; a second time, nothing', () => {
    given(conversation, [created]).when(awaitCommand).then([awaited()]);
    given(conversation, [created, awaited()]).when(awaitCommand).thenNothing();
  });

  it('given a deleted conversation, when AwaitApproval or a delivery, then nothing (no error for a reaction to retry)', () => {
    const deleted: ConversationEvent = { type: 'ConversationDeleted', data: { deletedAt: NOW } };
    given(conversation, [created, deleted]).when(awaitCommand).thenNothing();
    given(conversation, [created, awaited(), deleted]).when(deliver()).thenNothing();
  });

  it('given an awaited approval and two messages, when its decision is delivered, then the decision and a system notice for the readers', () => {
    given(conversation, [created, userMessage('m1', 1), userMessage('m2', 2), awaited()])
      .when(deliver())
      .then([
        delivered(),
        {
          type: 'MessageAppended',
          data: {
            messageId: derivedUuid('conversations.decision-notice', 'ap1'),
            sequenceNumber: 3,
            role: 'system',
            content:
              "Approval ap1 (filing_submission) approved by rev. Comments: figures match. Say 'go ahead' to continue.",
            userId: 'owner',
            toolName: null,
            metadata: {
              approval_id: 'ap1',
              checkpoint_type: 'filing_submission',
              decision: 'approved',
              reviewer_id: 'rev',
            },
          },
        },
      ]);
  });

  it('given the decision already delivered, or already resumed from, when delivered again (a replayed reaction), then nothing', () => {
    given(conversation, [created, awaited(), delivered()]).when(deliver()).thenNothing();
    given(conversation, [created, awaited(), consumed()]).when(deliver()).thenNothing();
  });

  it('given a decision delivered with other turns after the pause, when a turn consumes it, then ApprovalDecisionConsumed only', () => {
    given(conversation, [created, awaited(), userMessage('m1', 1), delivered(modified)])
      .when(consume(modified))
      .then([consumed()]);
  });

  it('given a decision the reactor has not delivered yet, when a turn consumes it, then the delivery is recorded with it', () => {
    given(conversation, [created, awaited()]).when(consume()).then([delivered(), consumed()]);
  });

  it('given a decision already consumed, when another turn consumes it, then nothing: a turn resumes from it exactly once', () => {
    given(conversation, [created, awaited(), delivered(), consumed()]).when(consume(approved, 'x4')).thenNothing();
  });

  it('state: awaited approvals stay oldest first until consumed, then are remembered as settled', () => {
    const state = given(conversation, [
      created,
      awaited('ap1', 'x1'),
      awaited('ap2', 'x2'),
      delivered(approved, 'ap2'),
      consumed('ap2'),
    ]).state;
    expect(state.status === 'open' && state.awaitedApprovals).to.deep.equal([
      { approvalId: 'ap1', executionId: 'x1', checkpointType: 'filing_submission', decision: null },
    ]);
    expect(state.status === 'open' && state.settledApprovals).to.deep.equal(['ap2']);
  });

  it('the notice of a rejection or a modification says what happened', () => {
    expect(decisionNotice('ap1', 'filing_submission', { ...approved, decision: 'rejected', comments: null })).to.equal(
      'Approval ap1 (filing_submission) rejected by rev. Say how to continue.',
    );
    expect(decisionNotice('ap1', 'filing_submission', modified)).to.equal(
      "Approval ap1 (filing_submission) approved with modifications by rev. Say 'go ahead' to continue.",
    );
  });
});

describe('reactor conversations.route-decision (given a decided approval, then the delivery)', () => {
  const approval = (over: Partial<Record<string, unknown>> = {}) =>
    ({
      status: 'approved',
      approvalId: 'ap1',
      conversationId: 'conv-1',
      agentType: 'filing_prep',
      checkpointType: 'filing_submission',
      reviewerId: null,
      requestedBy: 'owner',
      requestedAt: NOW,
      checklistId: null,
      escalationLevel: 0,
      decision: approved,
      ...over,
    }) as ApprovalState;

  it('given ApprovalDecided on an approval opened by a turn, then DeliverApprovalDecision to its conversation', () => {
    expect(decisionDelivery(approval())).to.deep.equal({ conversationId: 'conv-1', command: deliver() });
  });

  it('given a rejected or modified decision, then it is delivered the same way', () => {
    expect(decisionDelivery(approval({ status: 'modified', decision: modified }))).to.deep.equal({
      conversationId: 'conv-1',
      command: deliver(modified),
    });
    const rejected = { ...approved, decision: 'rejected' as const };
    expect(decisionDelivery(approval({ status: 'rejected', decision: rejected }))?.command.decision).to.deep.equal(
      rejected,
    );
  });

  it("given an approval of no conversation (a checklist's) or still pending, then nothing", () => {
    expect(decisionDelivery(approval({ conversationId: null }))).to.equal(null);
    expect(decisionDelivery({ ...approval(), status: 'pending' } as ApprovalState)).to.equal(null);
  });
});
