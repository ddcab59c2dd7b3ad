import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { evaluationContext } from '../../../src/contexts/evaluation/module';
import { captureAggregate, captureIdOf, readCaptureEvent } from '../../../streams/evaluation/capture';
import { turnAggregate } from '../../../streams/agents/turn';
import { type Session, signIn } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

describe('eval captures over /eval/captures and /eval/metrics', function () {
  this.timeout(60_000);
  let t: TestPlatform;
  let alice: Session;
  let bob: Session;

  before(async function () {
    this.timeout(120_000);
    t = await startTestPlatform({ env: { EVAL_SNAPSHOT_RETRY_MS: '1500' } });
    alice = await signIn(t);
    bob = await signIn(t);
  });
  after(async () => t?.close());

  /** A real turn on the builtin deterministic model. */
  async function turn(who: Session, message = 'What forms does a new oil well need?') {
    const conversationId = (await t.api.post('/conversations', { agent_id: 'compliance' }, who.headers)).body
      .id as string;
    const result = await t.api.post('/execute', { conversation_id: conversationId, message }, who.headers);
    expect(result.status, JSON.stringify(result.body)).to.equal(200);
    return { conversationId, executionId: result.body.execution_id as string };
  }
  const capture = (who: Session, body: Record<string, unknown>) => t.api.post('/eval/captures', body, who.headers);
  const captureEvents = async (who: Session, executionId: string) =>
    (
      await t.deps.store.readStream(
        captureAggregate.stream(who.tenantId, captureIdOf(who.tenantId, executionId, who.userId)),
      )
    ).map(readCaptureEvent);
  /** Writes a turn's first event straight into the log, as the agents context does. */
  const appendTurnStarted = (who: Session, executionId: string, conversationId: string) =>
    t.deps.store.append(turnAggregate.stream(who.tenantId, executionId), [
      {
        type: 'TurnStarted',
        data: {
          executionId,
          conversationId,
          userId: who.userId,
          agentId: 'compliance',
          agentType: 'compliance',
          model: 'builtin/deterministic',
          fallbackModel: null,
          thinkingMode: 'adaptive',
          maxTokens: null,
          maxCostUsd: null,
          userMessageId: randomUUID(),
          attachmentIds: [],
          startedAt: new Date().toISOString(),
        },
        metadata: {
          tenantId: who.tenantId,
          actorId: who.userId,
          correlationId: randomUUID(),
          causationId: randomUUID(),
        },
      },
    ]);

  it('a bare score on an existing turn is linked, frozen and not mirrored (no mirror configured)', async () => {
    const { executionId } = await turn(alice);
    const response = await capture(alice, { execution_id: executionId, score: 1 });
    expect(response.status).to.equal(200);
    expect(response.body).to.deep.equal({
      id: captureIdOf(alice.tenantId, executionId, alice.userId),
      execution_id: executionId,
      score: 1,
      snapshot_status: 'linked',
      mirror_status: 'skipped',
      replay_mode: 'frozen',
    });
    expect((await captureEvents(alice, executionId)).map((e) => e.type)).to.deep.equal([
      'CaptureRecorded',
      'SnapshotLinked',
    ]);
  });

  it('a second gesture updates the score while enrichment fields persist through a later bare gesture', async () => {
    const { conversationId, executionId } = await turn(alice);
    expect(
      (
        await capture(alice, {
          execution_id: executionId,
          score: 1,
          expected_output: 'File a W-1 permit.',
          note: 'good',
          category_tag: 'permits',
        })
      ).status,
    ).to.equal(200);
    const bare = await capture(alice, { execution_id: executionId, score: -1 });
    expect(bare.body).to.include({ score: -1, snapshot_status: 'linked', replay_mode: 'frozen' });
    const listed = await t.api.get(`/eval/captures?conversation_id=${conversationId}`, alice.headers);
    expect(listed.status).to.equal(200);
    expect(listed.body).to.deep.equal({
      captures: [
        {
          execution_id: executionId,
          score: -1,
          expected_output: 'File a W-1 permit.',
          note: 'good',
          category_tag: 'permits',
          snapshot_status: 'linked',
          mirror_status: 'skipped',
        },
      ],
      total: 1,
    });
    // One stream per (tenant, execution, user): both gestures are on it, the link only once.
    expect((await captureEvents(alice, executionId)).map((e) => e.type)).to.deep.equal([
      'CaptureRecorded',
      'SnapshotLinked',
      'CaptureRecorded',
    ]);
  });

  it('a score other than -1 or 1 is 422 and records nothing', async () => {
    const { executionId } = await turn(alice);
    for (const score of [0, 2, '1', null]) {
      const response = await capture(alice, { execution_id: executionId, score });
      expect(response.status, `score ${JSON.stringify(score)}`).to.equal(422);
    }
    expect(await captureEvents(alice, executionId)).to.deep.equal([]);
  });

  it("a capture for another user's execution is 404, and identity comes only from the headers", async () => {
    const { conversationId, executionId } = await turn(alice);
    const response = await capture(bob, { execution_id: executionId, score: 1, user_id: alice.userId });
    expect(response.status).to.equal(404);
    expect(await captureEvents(bob, executionId)).to.deep.equal([]);
    // A user_id in the body does not make bob's capture alice's (nor the other way round).
    expect((await capture(alice, { execution_id: executionId, score: 1, user_id: bob.userId })).status).to.equal(200);
    expect((await captureEvents(alice, executionId)).length).to.equal(2);
    expect((await t.api.get(`/eval/captures?conversation_id=${conversationId}`, bob.headers)).body).to.deep.equal({
      captures: [],
      total: 0,
    });
  });

  it('GET /eval/captures needs conversation_id', async () => {
    expect((await t.api.get('/eval/captures', alice.headers)).status).to.equal(422);
  });

  it('a capture before the turn exists is missing and live, and the retry about 2 s later links it', async () => {
    const executionId = randomUUID();
    const conversationId = `c-${randomUUID()}`;
    const response = await capture(alice, { execution_id: executionId, conversation_id: conversationId, score: 1 });
    expect(response.body).to.include({ snapshot_status: 'missing', replay_mode: 'live' });
    await appendTurnStarted(alice, executionId, conversationId);
    await evaluationContext.captures(t.deps).settled();
    const events = await captureEvents(alice, executionId);
    expect(events.map((e) => e.type)).to.deep.equal(['CaptureRecorded', 'SnapshotMissing', 'SnapshotLinked']);
    expect(events[2].data).to.include({ check: 'retry' });
    const listed = await t.api.get(`/eval/captures?conversation_id=${conversationId}`, alice.headers);
    expect(listed.body.captures[0]).to.include({ snapshot_status: 'linked' });
  });

  it('a retry that still finds nothing is recorded, and the start-up re-link pass links the capture once the turn exists', async () => {
    const executionId = randomUUID();
    const conversationId = `c-${randomUUID()}`;
    await capture(alice, { execution_id: executionId, conversation_id: conversationId, score: 1 });
    await evaluationContext.captures(t.deps).settled();
    expect((await captureEvents(alice, executionId)).map((e) => e.type)).to.deep.equal([
      'CaptureRecorded',
      'SnapshotMissing',
      'SnapshotMissing',
    ]);
    const before = await t.api.get('/eval/metrics', alice.headers);
    expect(before.body.missing).to.be.greaterThan(0);

    await appendTurnStarted(alice, executionId, conversationId);
    await evaluationContext.start!(t.deps);
    const events = await captureEvents(alice, executionId);
    expect(events.map((e) => e.type)).to.deep.equal([
      'CaptureRecorded',
      'SnapshotMissing',
      'SnapshotMissing',
      'SnapshotLinked',
    ]);
    expect(events[3].data).to.include({ check: 'startup' });
    const after = await t.api.get('/eval/metrics', alice.headers);
    expect(after.body.missing).to.equal(before.body.missing - 1);
  });

  it("GET /eval/metrics counts the tenant's captures as integers", async () => {
    const tenant = await signIn(t, { tenantId: `tenant-${randomUUID().slice(0, 8)}` });
    expect((await t.api.get('/eval/metrics', tenant.headers)).body).to.deep.equal({
      total: 0,
      missing: 0,
      mirror_failed: 0,
      mirror_pending: 0,
    });
    const { executionId } = await turn(tenant);
    await capture(tenant, { execution_id: executionId, score: 1 });
    await capture(tenant, { execution_id: randomUUID(), score: -1 });
    expect((await t.api.get('/eval/metrics', tenant.headers)).body).to.deep.equal({
      total: 2,
      missing: 1,
      mirror_failed: 0,
      mirror_pending: 0,
    });
    await evaluationContext.captures(t.deps).settled();
  });
});
