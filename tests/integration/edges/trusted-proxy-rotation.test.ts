import { expect } from 'chai';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { getFrom, randomClientAddress, randomLoopbackAddress } from '../rate-limit/from-address';

/**
 * Behind one trusted proxy the client writes the left-most X-Forwarded-For entries itself;
 * the proxy appends the address it saw. Rotating the client-written part gives no fresh
 * bucket, with TRUST_PROXY=1 and with TRUST_PROXY=true (which means one hop).
 */
for (const trust of ['1', 'true']) {
  describe(`rate limit behind one trusted proxy (TRUST_PROXY=${trust})`, () => {
    let t: TestPlatform;
    before(async () => {
      t = await startTestPlatform({ env: { TRUST_PROXY: trust, RATE_LIMIT_BURST: '3', RATE_LIMIT_PER_MINUTE: '1' } });
    });
    after(() => t.close());

    it('a rotating client-written X-Forwarded-For prefix gives no fresh bucket', async () => {
      const proxy = randomLoopbackAddress();
      const realClient = randomClientAddress();
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        const forged = `${randomClientAddress()}, ${randomClientAddress()}`;
        statuses.push(
          (
            await getFrom(`${t.publicUrl}/api/v1/entity-types`, proxy, {
              'x-forwarded-for': `${forged}, ${realClient}`,
            })
          ).status,
        );
      }
      expect(statuses.map((s) => (s === 429 ? 429 : 'passed'))).to.deep.equal(['passed', 'passed', 'passed', 429, 429]);
    });

    it('another real client behind the same proxy has its own bucket', async () => {
      const proxy = randomLoopbackAddress();
      for (let i = 0; i < 3; i++)
        await getFrom(`${t.publicUrl}/api/v1/entity-types`, proxy, { 'x-forwarded-for': randomClientAddress() });
      expect(
        (await getFrom(`${t.publicUrl}/api/v1/entity-types`, proxy, { 'x-forwarded-for': randomClientAddress() }))
          .status,
      ).to.not.equal(429);
    });
  });
}
