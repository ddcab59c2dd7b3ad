import { expect } from 'chai';
import { decideApprovalDecider, type DecideApproval } from '../../../commands/approvals/decide-approval';
import { escalateApprovalDecider } from '../../../commands/approvals/escalate-approval';
import { requestApprovalDecider, type RequestApproval } from '../../../commands/approvals/request-approval';
import { Conflict, Forbidden, NotFound, ValidationFailed } from '../../../src/platform/domain-errors';
import { approvalAggregate, type ApprovalEvent, evolveApproval } from '../../../streams/approvals/approval';
import { given } from '../../support/given';

const NOW = '2026-01-15T12:00:00.000Z';
const ANN = 'ann-reviewer';
const BO = 'bo-reviewer';

const requested = (
  reviewerId: string | null = null,
  payload: Record<string, unknown> = { filing_type: 'PR' },
): ApprovalEvent => ({
  type: 'ApprovalRequested',
  data: {
    approvalId: 'a1',
    conversationId: 'c1',
    agentType: 'filing_prep',
    checkpointType: 'filing_review',
    payload,
    reviewerStrategy: reviewerId ? 'named_individual' : null,
    reviewerId,
    requestedBy: 'op-1',
    requestedAt: NOW,
  },
});
const decided = (
  decision: 'approved' | 'rejected' | 'modified',
  reviewerId = ANN,
  modifications: Record<string, unknown> | null = null,
  comments: string | null = null,
): ApprovalEvent => ({
  type: 'ApprovalDecided',
  data: { approvalId: 'a1', decision, reviewerId, comments, modifications, decidedAt: NOW },
});
const decide = (
  decision: DecideApproval['decision'],
  reviewerId = ANN,
  extra: Partial<DecideApproval> = {},
): DecideApproval => ({
  type: 'DecideApproval',
  decision,
  reviewerId,
  reviewerIsAdmin: false,
  comments: null,
  modifications: null,
  ...extra,
});

describe('approval deciders', () => {
  const request: RequestApproval = {
    type: 'RequestApproval',
    approvalId: 'a1',
    conversationId: 'c1',
    agentType: 'filing_prep',
    checkpointType: 'filing_review',
    payload: { filing_type: 'PR' },
    reviewerStrategy: 'named_individual',
    reviewerId: ANN,
    requestedBy: 'op-1',
  };

  it('a request opens a pending approval with its reviewer', () => {
    given(requestApprovalDecider)
      .when(request)
      .then([requested(ANN)]);
  });

  it('the same approval id cannot be requested twice', () => {
    given(requestApprovalDecider, [requested()]).when(request).thenThrows(Conflict);
  });

  it('a pending approval is decided once, recording reviewer, comments and time', () => {
    given(decideApprovalDecider, [requested()])
      .when(decide('rejected', ANN, { comments: 'wrong month' }))
      .then([decided('rejected', ANN, null, 'wrong month')]);
  });

  it('a decided approval cannot be decided again (409)', () => {
    given(decideApprovalDecider, [requested(), decided('approved')])
      .when(decide('rejected', BO))
      .thenThrows(Conflict, /already decided \(approved\)/);
  });

  it('deciding an approval that does not exist is not found', () => {
    given(decideApprovalDecider).when(decide('approved')).thenThrows(NotFound);
  });

  it('modified needs modifications, and only modified carries them', () => {
    given(decideApprovalDecider, [requested()]).when(decide('modified')).thenThrows(ValidationFailed);
    given(decideApprovalDecider, [requested()])
      .when(decide('approved', ANN, { modifications: { oil_bbl: 1 } }))
      .thenThrows(ValidationFailed);
    given(decideApprovalDecider, [requested()])
      .when(decide('modified', ANN, { modifications: { oil_bbl: 1200 } }))
      .then([decided('modified', ANN, { oil_bbl: 1200 })]);
  });

  it('an approval named to a reviewer refuses another reviewer but not an admin', () => {
    given(decideApprovalDecider, [requested(ANN)])
      .when(decide('approved', BO))
      .thenThrows(Forbidden);
    given(decideApprovalDecider, [requested(ANN)])
      .when(decide('approved', BO, { reviewerIsAdmin: true }))
      .then([decided('approved', BO)]);
  });

  it('four eyes: the one who opened an approval cannot decide it; the attempt is recorded and changes nothing', () => {
    const events = given(decideApprovalDecider, [requested()]).when(decide('approved', 'op-1')).events();
    expect(events).to.deep.equal([
      {
        type: 'ApprovalDecisionRefused',
        data: {
          approvalId: 'a1',
          attemptedBy: 'op-1',
          decision: 'approved',
          reason: 'You opened this approval, so another reviewer must decide it (four eyes)',
          refusedAt: NOW,
        },
      },
    ]);
    expect([requested(), ...events].reduce(evolveApproval, approvalAggregate.initialState)).to.include({
      status: 'pending',
    });
  });

  it('four eyes: an admin who opened the approval is refused too, unless the setting allows it', () => {
    given(decideApprovalDecider, [requested()])
      .when(decide('approved', 'op-1', { reviewerIsAdmin: true }))
      .events()
      .forEach((e) => expect(e.type).to.equal('ApprovalDecisionRefused'));
    given(decideApprovalDecider, [requested()])
      .when(decide('approved', 'op-1', { reviewerIsAdmin: true, mayDecideOwn: true }))
      .then([decided('approved', 'op-1')]);
  });

  it('four eyes does not hide a decided approval: the requester still gets 409 there', () => {
    given(decideApprovalDecider, [requested(), decided('approved')])
      .when(decide('rejected', 'op-1'))
      .thenThrows(Conflict);
  });

  it('escalation keeps the approval pending, lifts the named reviewer and counts levels', () => {
    const first = given(escalateApprovalDecider, [requested(ANN)])
      .when({ type: 'EscalateApproval', reason: 'on leave', escalatedBy: BO })
      .events();
    expect(first).to.deep.equal([
      {
        type: 'ApprovalEscalated',
        data: {
          approvalId: 'a1',
          reason: 'on leave',
          escalatedBy: BO,
          fromReviewerId: ANN,
          level: 1,
          escalatedAt: NOW,
        },
      },
    ]);
    const state = [requested(ANN), ...first].reduce(evolveApproval, approvalAggregate.initialState);
    expect(state).to.include({ status: 'pending', reviewerId: null, escalationLevel: 1 });
    given(decideApprovalDecider, [requested(ANN), ...first])
      .when(decide('approved', BO))
      .then([decided('approved', BO)]);
    const second = given(escalateApprovalDecider, [requested(ANN), ...first])
      .when({ type: 'EscalateApproval', reason: 'still stuck', escalatedBy: ANN })
      .events();
    expect(second[0].data).to.include({ level: 2, fromReviewerId: null });
  });

  it('a decided approval cannot be escalated', () => {
    given(escalateApprovalDecider, [requested(), decided('approved')])
      .when({ type: 'EscalateApproval', reason: 'late', escalatedBy: BO })
      .thenThrows(Conflict);
  });

  it('the state exposes the decision the agents read when resuming', () => {
    const state = [requested(null, { checklist_id: 'ck-1' }), decided('modified', ANN, { oil_bbl: 5 }, 'fixed')].reduce(
      evolveApproval,
      approvalAggregate.initialState,
    );
    expect(state.status).to.equal('modified');
    if (state.status !== 'modified') return;
    expect(state.decision).to.deep.equal({
      decision: 'modified',
      reviewerId: ANN,
      comments: 'fixed',
      // A decision made without overriding failed validations carries no justification.
      justification: null,
      overriddenValidations: [],
      modifications: { oil_bbl: 5 },
      decidedAt: NOW,
    });
    expect(state.checklistId).to.equal('ck-1');
  });
});
