import { expect } from 'chai';
import { signIn } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

/** The rate limit's defaults (600/min, burst 100), observed through HTTP. */
describe('gateway rate limit with the default limits', () => {
  let t: TestPlatform;

  before(async () => {
    t = await startTestPlatform();
  });
  after(() => t.close());

  it('defaults to a burst of 100 and names 600 requests/minute in the 429', async () => {
    const { headers } = await signIn(t);
    const responses = await Promise.all(
      Array.from({ length: 120 }, () => t.api.get('/settings/model-options', headers)),
    );
    const passed = responses.filter((r) => r.status === 200).length;
    // 100 from the burst, plus whatever 10/s refilled while the requests were in flight.
    expect(passed).to.be.within(100, 115);
    const limited = responses.find((r) => r.status === 429);
    expect(limited?.body).to.deep.equal({ error: 'rate limit exceeded — 600 requests/minute' });
  });

  it('an exhausted user is served again as the bucket refills at 10 per second', async () => {
    const { headers } = await signIn(t);
    const burst = await Promise.all(Array.from({ length: 130 }, () => t.api.get('/settings/model-options', headers)));
    expect(burst.some((r) => r.status === 429)).to.equal(true);
    await new Promise((resolve) => setTimeout(resolve, 350));
    const afterWait = await Promise.all(
      Array.from({ length: 15 }, () => t.api.get('/settings/model-options', headers)),
    );
    // 350 ms at 10/s is 3.5 tokens (plus the remainder and what refills in flight): at least 3 pass, far fewer than asked.
    expect(afterWait.filter((r) => r.status === 200).length).to.be.within(3, 9);
  });

  it('health is outside the gateway and never rate limited', async () => {
    const responses = await Promise.all(Array.from({ length: 150 }, () => fetch(`${t.publicUrl}/health`)));
    expect(responses.every((r) => r.status === 200)).to.equal(true);
  });
});
