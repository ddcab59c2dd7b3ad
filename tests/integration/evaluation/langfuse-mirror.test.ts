import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { evaluationContext } from '../../../src/contexts/evaluation/module';
import { recordCapture } from '../../../commands/evaluation/record-capture';
import { captureAggregate, captureIdOf, readCaptureEvent } from '../../../streams/evaluation/capture';
import { type Session, signIn } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { type FakeLangfuse, startFakeLangfuse } from './langfuse-fake';

describe('eval capture scores mirrored to Langfuse (a local fake of its ingestion API)', function () {
  this.timeout(60_000);
  let t: TestPlatform;
  let langfuse: FakeLangfuse;
  let alice: Session;

  before(async function () {
    this.timeout(120_000);
    langfuse = await startFakeLangfuse('pk-lf-test', 'sk-lf-test');
    t = await startTestPlatform({
      env: {
        LANGFUSE_PUBLIC_KEY: 'pk-lf-test',
        LANGFUSE_SECRET_KEY: 'sk-lf-test',
        LANGFUSE_HOST: langfuse.host,
        EVAL_SNAPSHOT_RETRY_MS: '100',
      },
    });
    alice = await signIn(t, { tenantId: `mirror-${randomUUID().slice(0, 8)}` });
  });
  after(async () => {
    await evaluationContext.captures(t.deps).settled();
    await t?.close();
    await langfuse?.close();
  });
  beforeEach(() => {
    langfuse.requests.length = 0;
    langfuse.mode = 'ok';
  });

  async function turn() {
    const conversationId = (await t.api.post('/conversations', { agent_id: 'compliance' }, alice.headers)).body
      .id as string;
    const result = await t.api.post(
      '/execute',
      { conversation_id: conversationId, message: 'Which permit does a new well need?' },
      alice.headers,
    );
    return result.body.execution_id as string;
  }

  it('a capture is mirrored as a score-create with Basic auth, the capture id as score id and the execution as trace', async () => {
    const executionId = await turn();
    const response = await t.api.post(
      '/eval/captures',
      { execution_id: executionId, score: -1, note: 'wrong form', category_tag: 'permits' },
      alice.headers,
    );
    expect(response.status).to.equal(200);
    expect(response.body).to.include({ mirror_status: 'mirrored', snapshot_status: 'linked' });
    expect(langfuse.requests).to.have.length(1);
    const [request] = langfuse.requests;
    expect(request.path).to.equal('/api/public/ingestion');
    expect(request.authorization).to.equal(`Basic ${Buffer.from('pk-lf-test:sk-lf-test').toString('base64')}`);
    expect(request.body.batch).to.have.length(1);
    expect(request.body.batch[0]).to.include({ type: 'score-create' });
    expect(request.body.batch[0].body).to.deep.equal({
      id: captureIdOf(alice.tenantId, executionId, alice.userId),
      traceId: executionId,
      name: 'expert_verdict',
      value: -1,
      dataType: 'NUMERIC',
      comment: 'wrong form',
      metadata: { category_tag: 'permits' },
    });
    const events = (await t.deps.store.readStream(captureAggregate.stream(alice.tenantId, response.body.id))).map(
      readCaptureEvent,
    );
    expect(events.map((e) => e.type)).to.deep.equal(['CaptureRecorded', 'SnapshotLinked', 'ScoreMirrored']);
  });

  it('a mirror that answers 500 never fails the capture: mirror_status failed, counted in /eval/metrics, and a later gesture that succeeds clears it', async () => {
    const executionId = await turn();
    const before = (await t.api.get('/eval/metrics', alice.headers)).body;
    langfuse.mode = 'server_error';
    const response = await t.api.post('/eval/captures', { execution_id: executionId, score: 1 }, alice.headers);
    expect(response.status).to.equal(200);
    expect(response.body).to.include({ score: 1, mirror_status: 'failed' });
    const during = (await t.api.get('/eval/metrics', alice.headers)).body;
    expect(during).to.include({ total: before.total + 1, mirror_failed: before.mirror_failed + 1, mirror_pending: 0 });

    langfuse.mode = 'ok';
    expect(
      (await t.api.post('/eval/captures', { execution_id: executionId, score: -1 }, alice.headers)).body,
    ).to.include({ score: -1, mirror_status: 'mirrored' });
    expect((await t.api.get('/eval/metrics', alice.headers)).body).to.include({ mirror_failed: before.mirror_failed });
  });

  it('item errors in a 207 answer count as a failed mirror, with the reason in the event', async () => {
    const executionId = await turn();
    langfuse.mode = 'item_errors';
    const response = await t.api.post('/eval/captures', { execution_id: executionId, score: 1 }, alice.headers);
    expect(response.body).to.include({ mirror_status: 'failed' });
    const events = (await t.deps.store.readStream(captureAggregate.stream(alice.tenantId, response.body.id))).map(
      readCaptureEvent,
    );
    const failed = events.find((e) => e.type === 'ScoreMirrorFailed');
    expect(failed?.data).to.include({ score: 1 });
    expect((failed?.data as { error: string }).error).to.match(/Invalid request data/);
  });

  it('a gesture whose mirror never answered stays pending (counted in /eval/metrics) until the start-up pass sends it again', async () => {
    const executionId = await turn();
    // The gesture recorded as a stop mid-way would leave it: pending, no outcome.
    await recordCapture(
      t.deps,
      { tenantId: alice.tenantId, actorId: alice.userId },
      { execution_id: executionId, score: 1 },
      true,
    );
    const before = (await t.api.get('/eval/metrics', alice.headers)).body;
    expect(before.mirror_pending).to.equal(1);
    await evaluationContext.start!(t.deps);
    expect(langfuse.requests).to.have.length(1);
    expect(langfuse.requests[0].body.batch[0].body).to.include({ traceId: executionId, value: 1 });
    expect((await t.api.get('/eval/metrics', alice.headers)).body).to.include({
      mirror_pending: 0,
      mirror_failed: before.mirror_failed,
    });
  });
});
