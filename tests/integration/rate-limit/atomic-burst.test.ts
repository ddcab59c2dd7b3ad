import { expect } from 'chai';
import { signIn } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { getFrom, randomClientAddress, randomLoopbackAddress } from './from-address';

/**
 * Burst 100 with a refill of 1 per minute: within a test, refill is negligible, so the
 * counts are exact. Runs against Redis too when REDIS_URL is set (the platform picks it up).
 */
describe('gateway rate limit: burst and atomicity', () => {
  let t: TestPlatform;

  before(async () => {
    t = await startTestPlatform({ env: { RATE_LIMIT_BURST: '100', RATE_LIMIT_PER_MINUTE: '1' } });
  });
  after(() => t.close());

  it('300 parallel requests from one user: exactly 100 pass, 200 get 429', async () => {
    const { headers } = await signIn(t);
    const responses = await Promise.all(
      Array.from({ length: 300 }, () => t.api.get('/settings/model-options', headers)),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).to.have.length(100);
    expect(statuses.filter((s) => s === 429)).to.have.length(200);
  });

  it('answers 429 with the exact body, the configured rate, and no Retry-After or X-RateLimit-* headers', async () => {
    const { headers } = await signIn(t);
    await Promise.all(Array.from({ length: 100 }, () => t.api.get('/settings/model-options', headers)));
    const limited = await t.api.get('/settings/model-options', headers);
    expect(limited.status).to.equal(429);
    expect(limited.body).to.deep.equal({ error: 'rate limit exceeded — 1 requests/minute' });
    expect(limited.headers.get('retry-after')).to.equal(null);
    expect([...limited.headers.keys()].filter((name) => name.startsWith('x-ratelimit'))).to.deep.equal([]);
  });

  it('each user has an independent bucket: one exhausted user does not slow another', async () => {
    const heavy = await signIn(t);
    const light = await signIn(t);
    await Promise.all(Array.from({ length: 101 }, () => t.api.get('/settings/model-options', heavy.headers)));
    expect((await t.api.get('/settings/model-options', heavy.headers)).status).to.equal(429);
    expect((await t.api.get('/settings/model-options', light.headers)).status).to.equal(200);
  });

  it('a signed-in user is counted by user id, not by address', async () => {
    const user = await signIn(t);
    const url = `${t.publicUrl}/api/v1/settings/model-options`;
    // The same user from 110 different addresses still has one bucket of 100.
    const responses = await Promise.all(
      Array.from({ length: 110 }, () => getFrom(url, randomLoopbackAddress(), user.headers)),
    );
    expect(responses.filter((r) => r.status === 429)).to.have.length(10);
  });

  it('without TRUST_PROXY a rotating X-Forwarded-For does not mint fresh buckets on public paths', async () => {
    const address = randomLoopbackAddress();
    const url = `${t.publicUrl}/api/v1/entity-types`;
    const responses = await Promise.all(
      Array.from({ length: 101 }, () => getFrom(url, address, { 'x-forwarded-for': randomClientAddress() })),
    );
    expect(responses.filter((r) => r.status === 429)).to.have.length(1);
    // Another client address still has its own full bucket.
    expect((await getFrom(url, randomLoopbackAddress())).status).not.to.equal(429);
  });

  it('a client-sent X-User-Id cannot choose the bucket', async () => {
    const address = randomLoopbackAddress();
    const url = `${t.publicUrl}/api/v1/entity-types`;
    const responses = await Promise.all(
      Array.from({ length: 101 }, (_, i) =>
        getFrom(url, address, { 'x-user-id': `00000000-0000-4000-8000-${String(i).padStart(12, '0')}` }),
      ),
    );
    expect(responses.filter((r) => r.status === 429)).to.have.length(1);
  });
});
