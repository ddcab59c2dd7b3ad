import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import sinon from 'sinon';
import { appendMessagesDecision } from '../../../commands/conversations/append-message';
import { APPROVALS_TABLE } from '../../../projections/approvals/approval-queue';
import { routeDecisionReactor } from '../../../commands/conversations/route-decision';
import { runReaction } from '../../../src/platform/reactors/reaction';
import { approvalAggregate } from '../../../streams/approvals/approval';
import { readTurnEvent, turnAggregate } from '../../../streams/agents/turn';
import { conversationStream } from '../../../streams/conversations/conversation';
import { type Session, signIn } from '../../support/auth';
import { eventually } from '../../support/eventually';
import { type TestPlatform } from '../../support/platform';
import { type ChatServer } from './chat-completions-server';
import { startSeededPlatform } from './seeded-platform';

/**
 * Over HTTP on the builtin model: a reviewer's decision reaches the turn that
 * paused on it whatever turns ran in between, exactly once, and no second approval is opened
 * for the same request.
 */
describe("a reviewer's decision reaches its paused turn", function () {
  this.timeout(60_000);
  let t: TestPlatform;
  let chat: ChatServer;
  let alice: Session;
  let reviewer: Session;
  let wellApi: string;

  before(async function () {
    this.timeout(120_000);
    ({ t, chat, alice, wellApi } = await startSeededPlatform({ wells: 6, seed: 11 }));
    reviewer = await signIn(t, { tenantId: alice.tenantId, roles: ['reviewer'] });
  });
  after(async () => {
    await t.close();
    await chat.close();
  });

  const newConversation = async () =>
    (await t.api.post('/conversations', { agent_id: 'compliance' }, alice.headers)).body.id as string;
  const say = async (conversationId: string, message: string) => {
    const response = await t.api.post(
      '/execute',
      { conversation_id: conversationId, message, agent_type: 'filing_prep' },
      alice.headers,
    );
    expect(response.status, response.text).to.equal(200);
    return response.body;
  };
  const guardOf = async (executionId: string) => {
    const events = (await t.deps.store.readStream(turnAggregate.stream(alice.tenantId, executionId))).map(
      readTurnEvent,
    );
    const guard = events.find((e) => e.type === 'NodeCompleted' && e.data.node === 'resume_guard');
    return guard!.data as { status: string; detail: Record<string, unknown> | null };
  };
  // The approval queue's rows for the conversation (every approval a turn opened is projected there before /execute answers).
  const approvalsOf = async (conversationId: string) =>
    (await t.deps
      .knex(APPROVALS_TABLE)
      .where({ tenant_id: alice.tenantId, conversation_id: conversationId })
      .select('approval_id')) as Array<{ approval_id: string }>;
  const delivered = (conversationId: string, approvalId: string) =>
    eventually(async () =>
      (await t.deps.store.readStream(conversationStream(alice.tenantId, conversationId))).find(
        (e) => e.type === 'ApprovalDecisionDelivered' && (e.data as any).approvalId === approvalId,
      ),
    );

  it('pause on A, another question, A approved by another user, "go ahead" resumes from A once and opens no second approval', async () => {
    const conversationId = await newConversation();
    const paused = await say(conversationId, `Please submit the W-10 for well ${wellApi}.`);
    expect(paused).to.include({ status: 'awaiting_hitl', hitl_checkpoint_type: 'filing_submission' });
    const approvalId = paused.hitl_approval_id as string;

    const other = await say(conversationId, `What is the status of well ${wellApi}?`);
    expect(other).to.include({ status: 'completed', hitl_approval_id: null });
    expect(await guardOf(other.execution_id)).to.deep.include({ status: 'pending' });

    // Four eyes: the turn's user cannot approve it; another reviewer does.
    expect(
      (await t.api.post(`/approvals/${approvalId}/decide`, { decision: 'approved' }, alice.headers)).status,
    ).to.equal(403);
    const decided = await t.api.post(
      `/approvals/${approvalId}/decide`,
      { decision: 'approved', comments: 'figures match the lease report' },
      reviewer.headers,
    );
    expect(decided.status, decided.text).to.equal(200);

    // The reactor routes the decision to the conversation, and its readers see it at once.
    const delivery = await delivered(conversationId, approvalId);
    expect(delivery.data).to.deep.include({
      decision: 'approved',
      reviewerId: reviewer.userId,
      comments: 'figures match the lease report',
      modifications: null,
    });
    const { body: messages } = await t.api.get(`/conversations/${conversationId}/messages`, alice.headers);
    const notice = (messages.messages ?? messages).find(
      (m: any) => m.role === 'system' && m.metadata?.approval_id === approvalId,
    );
    expect(notice.content).to.equal(
      `Approval ${approvalId} (filing_submission) approved by ${reviewer.userId}. Comments: figures match the lease report. Say 'go ahead' to continue.`,
    );

    const resumed = await say(conversationId, 'Go ahead and submit it.');
    expect(resumed).to.include({ status: 'completed', hitl_approval_id: null });
    expect(await guardOf(resumed.execution_id)).to.deep.include({
      status: 'resumed',
      detail: {
        approval_id: approvalId,
        checkpoint_type: 'filing_submission',
        decision: 'approved',
        reviewer_id: reviewer.userId,
        comments: 'figures match the lease report',
        modifications: null,
        decided_at: (delivery.data as any).decidedAt,
      },
    });
    expect(resumed.messages.at(-1).content).to.contain(`The reviewer approved approval ${approvalId}`);
    expect((await approvalsOf(conversationId)).map((a) => a.approval_id)).to.deep.equal([approvalId]);

    // Exactly once: the next turn has nothing to resume.
    const later = await say(conversationId, 'Go ahead.');
    expect(await guardOf(later.execution_id)).to.deep.include({ status: 'nothing_to_resume' });
    const consumed = (await t.deps.store.readStream(conversationStream(alice.tenantId, conversationId))).filter(
      (e) => e.type === 'ApprovalDecisionConsumed',
    );
    expect(consumed.map((e) => e.data)).to.deep.equal([{ approvalId, executionId: resumed.execution_id }]);
  });

  it('a turn that resumed from a decision and then failed (model error) gives the decision back: the next turn resumes from it', async () => {
    const conversationId = await newConversation();
    const approvalId = (await say(conversationId, `Please submit the W-10 for well ${wellApi}.`))
      .hitl_approval_id as string;
    expect(
      (
        await t.api.post(
          `/approvals/${approvalId}/decide`,
          { decision: 'approved', comments: 'ok to file' },
          reviewer.headers,
        )
      ).status,
    ).to.equal(200);
    await delivered(conversationId, approvalId);

    chat.script.push({ status: 500, error: 'GPU on fire' });
    const body = {
      conversation_id: conversationId,
      message: 'Go ahead and submit it.',
      agent_type: 'filing_prep',
      model: 'local/llama-3.1-8b-instruct',
    };
    const failed = (await t.api.post('/execute', body, alice.headers)).body;
    expect(failed.status).to.equal('error');
    expect(await guardOf(failed.execution_id)).to.deep.include({ status: 'resumed' });

    const resumed = await say(conversationId, 'Go ahead and submit it.');
    expect(resumed).to.include({ status: 'completed' });
    expect(await guardOf(resumed.execution_id)).to.deep.include({ status: 'resumed' });
    expect((await guardOf(resumed.execution_id)).detail).to.deep.include({
      approval_id: approvalId,
      decision: 'approved',
      comments: 'ok to file',
    });
    // And then only once.
    expect(await guardOf((await say(conversationId, 'Go ahead.')).execution_id)).to.deep.include({
      status: 'nothing_to_resume',
    });
  });

  it('asking again while A is pending pauses on A again; a rejection reaches the next turn the same way and nothing is filed', async () => {
    const conversationId = await newConversation();
    const paused = await say(conversationId, `Please submit the W-10 for well ${wellApi}.`);
    const approvalId = paused.hitl_approval_id as string;
    const again = await say(conversationId, `Please submit the W-10 for well ${wellApi} now.`);
    expect(again).to.include({ status: 'awaiting_hitl', hitl_approval_id: approvalId });
    expect(await approvalsOf(conversationId)).to.have.length(1);

    const decided = await t.api.post(
      `/approvals/${approvalId}/decide`,
      { decision: 'rejected', comments: 'test date is wrong' },
      reviewer.headers,
    );
    expect(decided.status, decided.text).to.equal(200);
    await delivered(conversationId, approvalId);

    const resumed = await say(conversationId, 'Go ahead and submit it.');
    expect(resumed).to.include({ status: 'completed', hitl_approval_id: null });
    expect(await guardOf(resumed.execution_id)).to.deep.include({ status: 'resumed' });
    expect((await guardOf(resumed.execution_id)).detail).to.deep.include({
      approval_id: approvalId,
      decision: 'rejected',
      comments: 'test date is wrong',
    });
    expect(resumed.messages.at(-1).content).to.contain('Nothing will be filed');
    expect(await approvalsOf(conversationId)).to.have.length(1);
  });

  it('a replayed reaction delivers nothing twice, and of two concurrent "go ahead" turns exactly one resumes', async () => {
    const conversationId = await newConversation();
    const approvalId = (await say(conversationId, `Please submit the W-10 for well ${wellApi}.`))
      .hitl_approval_id as string;
    expect(
      (
        await t.api.post(
          `/approvals/${approvalId}/decide`,
          { decision: 'modified', modifications: { test_date: '2026-01-12' } },
          reviewer.headers,
        )
      ).status,
    ).to.equal(200);
    await delivered(conversationId, approvalId);

    // The runner replays the event after a crash before its checkpoint: the same delivery appends nothing.
    const decision = (await t.deps.store.readStream(approvalAggregate.stream(alice.tenantId, approvalId))).find(
      (e) => e.type === 'ApprovalDecided',
    )!;
    const before = (await t.deps.store.readStream(conversationStream(alice.tenantId, conversationId))).length;
    await runReaction(routeDecisionReactor, decision, t.deps);
    expect(await t.deps.store.readStream(conversationStream(alice.tenantId, conversationId))).to.have.length(before);

    const turns = await Promise.all([
      say(conversationId, 'Go ahead and submit it.'),
      say(conversationId, 'Go ahead and submit it.'),
    ]);
    const guards = await Promise.all(turns.map((turn) => guardOf(turn.execution_id)));
    expect(guards.map((g) => g.status).sort()).to.deep.equal(['nothing_to_resume', 'resumed']);
    expect(guards.find((g) => g.status === 'resumed')!.detail).to.deep.include({
      approval_id: approvalId,
      decision: 'modified',
      modifications: { test_date: '2026-01-12' },
    });
  });

  it('a turn paused before conversations recorded their approvals is read from its stream; a turn this instance ran is not read back', async () => {
    // A pause as older code left it: the turn's own stream says it paused, its conversation does not.
    const first = await newConversation();
    const paused = await say(first, `Please submit the W-10 for well ${wellApi}.`);
    const approvalId = paused.hitl_approval_id as string;
    const legacy = await newConversation();
    const legacyTurn = '00000000-0000-4000-8000-00000000a24b';
    const copied = (await t.deps.store.readStream(turnAggregate.stream(alice.tenantId, paused.execution_id))).map(
      (e) => ({
        id: randomUUID(),
        type: e.type,
        data:
          e.type === 'TurnStarted'
            ? { ...(e.data as object), executionId: legacyTurn, conversationId: legacy }
            : e.data,
        metadata: e.metadata,
      }),
    );
    await t.deps.store.append(turnAggregate.stream(alice.tenantId, legacyTurn), copied);
    const message = {
      type: 'AppendMessage' as const,
      callerId: alice.userId,
      messageId: randomUUID(),
      role: 'assistant' as const,
      content: 'Waiting for a reviewer.',
      toolName: null,
      metadata: { execution_id: legacyTurn },
      attachmentIds: [],
    };
    const rows = appendMessagesDecision(alice.tenantId, legacy, [message]);
    await t.deps.handle(rows.decider, rows.stream, rows.command, { tenantId: alice.tenantId, actorId: alice.userId });

    const reads = sinon.spy(t.deps.store, 'readStream');
    try {
      const afterLegacy = await say(legacy, 'Is it filed yet?');
      expect(await guardOf(afterLegacy.execution_id)).to.deep.include({
        status: 'pending',
        detail: { approval_id: approvalId, checkpoint_type: 'filing_submission', decision: null },
      });
      expect(reads.calledWith(turnAggregate.stream(alice.tenantId, legacyTurn))).to.equal(true);

      // The turn just run is remembered by the instance that ran it: the next turn asks nothing of its stream.
      reads.resetHistory();
      await say(legacy, 'And now?');
      expect(reads.calledWith(turnAggregate.stream(alice.tenantId, afterLegacy.execution_id))).to.equal(false);
    } finally {
      reads.restore();
    }
  });
});
