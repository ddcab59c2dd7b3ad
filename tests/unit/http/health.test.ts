import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import express from 'express';
import { createHealthApi, type HealthSource, type RuntimeHealth } from '../../../src/platform/http/health';

/** `GET /health` reads the runtime's figures once for every request that comes while they are read. */
describe('GET /health (src/platform/http/health.ts)', () => {
  let server: Server;
  let base: string;
  let reads = 0;
  let release: () => void = () => undefined;
  let lagSeconds = 0;

  const source: HealthSource = {
    ready: () => true,
    degraded: async () => [],
    details: () => ({ uptime_s: 1 }),
    async runtime(): Promise<RuntimeHealth> {
      reads++;
      await new Promise<void>((resolve) => (release = resolve));
      return {
        lanes: [
          { name: 'toy', kind: 'projection', lag_events: 1, lag_seconds: lagSeconds, subscribed: true, failures: 0 },
        ],
        leaderless: [],
        lagDegradedS: 60,
      };
    },
  };

  before(async () => {
    const app = express();
    app.use(createHealthApi(source));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  async function whileReading<T>(requests: () => Promise<T>): Promise<T> {
    const answers = requests();
    while (reads === 0) await new Promise((r) => setTimeout(r, 5));
    // Let every request reach the handler before the read ends.
    await new Promise((r) => setTimeout(r, 50));
    release();
    return answers;
  }

  it('given five probes at once, then the figures are read once and all five get them', async () => {
    const bodies = await whileReading(() =>
      Promise.all(Array.from({ length: 5 }, () => fetch(`${base}/health`).then((r) => r.json()))),
    );
    expect(reads).to.equal(1);
    expect(bodies.map((b) => b.status)).to.deep.equal(['ok', 'ok', 'ok', 'ok', 'ok']);
  });

  it('given a read that ended, when the next probe comes, then it reads the figures afresh', async () => {
    reads = 0;
    lagSeconds = 120;
    const body = await whileReading(() => fetch(`${base}/health`).then((r) => r.json()));
    expect(reads).to.equal(1);
    expect(body.status).to.equal('degraded');
    expect(body.degraded_lanes).to.deep.equal([{ name: 'toy', kind: 'projection', reason: 'behind' }]);
  });
});
