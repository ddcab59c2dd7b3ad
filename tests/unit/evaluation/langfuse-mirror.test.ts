import { expect } from 'chai';
import sinon from 'sinon';
import { randomUUID } from 'node:crypto';
import { mirrorScore } from '../../../src/contexts/evaluation/langfuse-mirror';
import { startFakeLangfuse } from '../../integration/evaluation/langfuse-fake';

const config = { host: 'http://langfuse.invalid', publicKey: 'pk', secretKey: 'sk' };
const score = () => ({
  captureId: randomUUID(),
  executionId: 'exec-1',
  score: 1 as const,
  note: null,
  categoryTag: null,
  gesture: 1,
  at: new Date('2026-01-15T12:00:00Z'),
});

describe('the Langfuse score mirror', () => {
  it('reports an unreachable host as a failed mirror, never throws', async () => {
    const closed = await startFakeLangfuse('pk', 'sk');
    await closed.close();
    const result = await mirrorScore({ ...config, host: closed.host }, score());
    expect(result.ok).to.equal(false);
    expect((result as { error: string }).error).to.match(/^langfuse unreachable/);
  });

  it('gives up after its timeout', async () => {
    const fetch = sinon
      .stub()
      .callsFake(
        (_url: string, init: RequestInit) =>
          new Promise((_resolve, reject) => init.signal!.addEventListener('abort', () => reject(init.signal!.reason))),
      );
    const result = await mirrorScore(config, score(), {
      fetch: fetch as unknown as typeof globalThis.fetch,
      timeoutMs: 20,
    });
    expect(result.ok).to.equal(false);
    expect((result as { error: string }).error).to.match(/unreachable.*(timeout|aborted)/i);
  });

  it('a 401 is a failure naming the status; the secret is not in the error', async () => {
    const fetch = sinon
      .stub()
      .resolves(new Response(JSON.stringify({ message: 'Invalid credentials' }), { status: 401 }));
    const result = await mirrorScore(config, score(), { fetch: fetch as unknown as typeof globalThis.fetch });
    expect(result).to.deep.equal({ ok: false, error: 'langfuse answered 401: {"message":"Invalid credentials"}' });
    const [url, init] = fetch.firstCall.args;
    expect(url).to.equal('http://langfuse.invalid/api/public/ingestion');
    expect(init.headers.authorization).to.equal(`Basic ${Buffer.from('pk:sk').toString('base64')}`);
  });

  it('one ingestion event id per gesture, the same score id for every gesture of a capture', async () => {
    const fetch = sinon
      .stub()
      .callsFake(async () => new Response(JSON.stringify({ successes: [], errors: [] }), { status: 207 }));
    const s = score();
    await mirrorScore(config, s, { fetch: fetch as unknown as typeof globalThis.fetch });
    await mirrorScore(config, { ...s, gesture: 2 }, { fetch: fetch as unknown as typeof globalThis.fetch });
    const [a, b] = fetch.getCalls().map((c) => JSON.parse(c.args[1].body).batch[0]);
    expect(a.id).to.not.equal(b.id);
    expect(a.body.id).to.equal(s.captureId);
    expect(b.body.id).to.equal(s.captureId);
  });
});
