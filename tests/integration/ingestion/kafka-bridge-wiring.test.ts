import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { expect } from 'chai';
import pino from 'pino';
import { loadConfig } from '../../../src/platform/config';
import { startPlatform } from '../../../src/platform/platform';
import { contexts } from '../../../src/contexts';
import { createTestDatabase } from '../../support/database';
import { TEST_JWT_SECRET, TEST_SECRET_STORE_KEY, TEST_SIGNING_KEY } from '../../support/secrets';
import { bridgePending, readBridgeCheckpoint } from '../../../src/contexts/ingestion/kafka-bridge';
import { signIn } from '../../support/auth';
import { startTestPlatform } from '../../support/platform';

/** A port nothing listens on: the real kafkajs client meets a broker that is down. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('Kafka bridge wiring', function () {
  this.timeout(60_000);

  it('with KAFKA_BROKERS set and the broker down, ingestion still answers, the backlog stays in the log with the error recorded, and the platform stops cleanly', async () => {
    const t = await startTestPlatform({ env: { KAFKA_BROKERS: `127.0.0.1:${await closedPort()}` } });
    try {
      const user = await signIn(t, { roles: ['power_user'], tenantId: randomUUID() });
      const response = await t.api.post(
        '/ingest/rrc-scrape',
        { data_types: ['operators'], district: '09', date_range: { from: '2025-01-01', to: '2025-01-31' } },
        user.headers,
      );
      expect(response.status).to.equal(200);
      const deadline = Date.now() + 15_000;
      while ((await readBridgeCheckpoint(t.deps.knex)).lastError === null && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      expect((await readBridgeCheckpoint(t.deps.knex)).lastError).to.be.a('string');
      expect((await bridgePending(t.deps.store, t.deps.knex)).pending).to.equal(2);
    } finally {
      const started = Date.now();
      await t.close();
      expect(Date.now() - started).to.be.lessThan(15_000);
    }
  });
});

describe('graph consumer wiring', function () {
  this.timeout(60_000);

  it('ROLE=graph-consumer with the broker down starts healthy without a public listener, keeps retrying, and stops cleanly', async () => {
    const t0 = Date.now();
    const { url } = await createTestDatabase();
    const config = loadConfig({
      NODE_ENV: 'test',
      PORT: '0',
      INTERNAL_PORT: '0',
      DATABASE_URL: url,
      AUDIT_SIGNING_KEY: TEST_SIGNING_KEY,
      JWT_SECRET: TEST_JWT_SECRET,
      SECRET_STORE_KEY: TEST_SECRET_STORE_KEY,
      BOOTSTRAP_ADMIN_EMAIL: 'admin@example.com',
      BOOTSTRAP_ADMIN_PASSWORD: 'bootstrap-password-1',
      BCRYPT_COST: '10',
      LOG_LEVEL: 'silent',
      ROLE: 'graph-consumer',
      KAFKA_BROKERS: `127.0.0.1:${await closedPort()}`,
    });
    const platform = await startPlatform({ config, contexts, logger: pino({ level: 'silent' }) });
    try {
      expect(platform.isReady()).to.equal(true);
      expect(platform.publicUrl).to.equal(null);
      const health = await fetch(`${platform.internalUrl}/health`);
      expect(health.status).to.equal(200);
    } finally {
      const stopping = Date.now();
      await platform.stop();
      expect(Date.now() - stopping).to.be.lessThan(15_000);
    }
    expect(Date.now() - t0).to.be.lessThan(40_000);
  });
});
