import { expect } from 'chai';
import { signIn } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { getFrom, randomClientAddress, randomLoopbackAddress } from './from-address';

/** TRUST_PROXY=true: a proxy is in front, so the left-most X-Forwarded-For is the client. */
describe('gateway rate limit behind a trusted proxy', () => {
  let t: TestPlatform;
  let url: string;

  before(async () => {
    t = await startTestPlatform({ env: { TRUST_PROXY: 'true', RATE_LIMIT_BURST: '3', RATE_LIMIT_PER_MINUTE: '1' } });
    url = `${t.publicUrl}/api/v1/entity-types`;
  });
  after(() => t.close());

  const statuses = async (n: number, headers: Record<string, string>, from = randomLoopbackAddress()) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push((await getFrom(url, from, headers)).status);
    return out.map((s) => (s === 429 ? 429 : 'passed'));
  };

  it('anonymous callers are counted by the left-most X-Forwarded-For entry', async () => {
    const client = randomClientAddress();
    // The proxy's own hops to the right differ per request; only the client counts.
    const results: Array<number | string> = [];
    for (let i = 0; i < 4; i++)
      results.push(...(await statuses(1, { 'x-forwarded-for': `${client}, 10.0.0.${i + 1}, 10.0.1.1` })));
    expect(results).to.deep.equal(['passed', 'passed', 'passed', 429]);
  });

  it('different forwarded clients behind the same proxy address have their own buckets', async () => {
    const proxy = randomLoopbackAddress();
    expect(await statuses(4, { 'x-forwarded-for': randomClientAddress() }, proxy)).to.deep.equal([
      'passed',
      'passed',
      'passed',
      429,
    ]);
    expect(await statuses(1, { 'x-forwarded-for': randomClientAddress() }, proxy)).to.deep.equal(['passed']);
  });

  it('without the header the connection address counts', async () => {
    expect(await statuses(4, {})).to.deep.equal(['passed', 'passed', 'passed', 429]);
  });

  it('a signed-in user is still counted by user id, whatever the header says', async () => {
    const user = await signIn(t);
    const results: number[] = [];
    for (let i = 0; i < 4; i++) {
      results.push(
        (
          await getFrom(`${t.publicUrl}/api/v1/settings/model-options`, randomLoopbackAddress(), {
            ...user.headers,
            'x-forwarded-for': randomClientAddress(),
          })
        ).status,
      );
    }
    expect(results).to.deep.equal([200, 200, 200, 429]);
  });
});
