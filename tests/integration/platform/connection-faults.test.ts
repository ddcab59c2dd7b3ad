import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Client } from 'pg';
import { signIn } from '../../support/auth';
import { createTestDatabase } from '../../support/database';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { type Relay, startRelayFor } from '../../support/tcp-relay';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Every connection the platform holds (the event store's pool, knex's, the wake-up LISTEN
 * connection, the leader lock, the lanes' transactions) is cut under load, repeatedly: by a
 * TCP reset, by a clean close, and by PostgreSQL terminating the backends itself. No fault may
 * end the process, no acknowledged write may be lost, and writes succeed again once the
 * database is reachable (docs/operations.md, "Connection faults").
 */
describe('connection faults under load', function () {
  this.timeout(120_000);
  let t: TestPlatform;
  let relay: Relay;
  let databaseName: string;
  let adminUrl: string;
  const crashes: unknown[] = [];
  const onCrash = (error: unknown) => crashes.push(error);

  before(async () => {
    const database = await createTestDatabase();
    databaseName = database.name;
    adminUrl = database.url;
    relay = await startRelayFor(database.url);
    // The writers' pace is what is under test, not the rate limit.
    t = await startTestPlatform({
      env: { DATABASE_URL: relay.url(database.url), RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_BURST: '1000000' },
    });
    process.prependListener('uncaughtException', onCrash);
    process.prependListener('unhandledRejection', onCrash);
  });
  after(async () => {
    process.removeListener('uncaughtException', onCrash);
    process.removeListener('unhandledRejection', onCrash);
    await t?.close().catch(() => undefined);
    await relay?.close();
  });

  /** PostgreSQL's own termination of every backend of the test's database but the caller's. */
  async function terminateBackends(): Promise<number> {
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      const { rowCount } = await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [databaseName],
      );
      return rowCount ?? 0;
    } finally {
      await admin.end();
    }
  }

  it('six writers, every connection cut five times (reset, clean close, server termination): the process lives, every acknowledged write is readable, new writes succeed', async () => {
    const session = await signIn(t, { roles: ['operator'], tenantId: randomUUID() });
    const acknowledged: { id: string; entityId: string }[] = [];
    const statuses = new Map<number, number>();
    let writing = true;

    const writer = async (n: number) => {
      for (let i = 0; writing; i++) {
        const entityId = `W-fault-${n}-${i}-${randomUUID().slice(0, 8)}`;
        const response = await t.api.post(
          '/graph/entities',
          { label: 'Well', properties: { entity_id: entityId } },
          session.headers,
        );
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        if (response.status === 201) acknowledged.push({ id: response.body.id, entityId });
        else expect(response.status, JSON.stringify(response.body)).to.be.oneOf([409, 500, 503]);
      }
    };
    const writers = Array.from({ length: 6 }, (_, n) => writer(n));

    const faults: string[] = [];
    await sleep(500);
    for (const fault of ['reset', 'end', 'terminate', 'reset', 'reset'] as const) {
      const before = acknowledged.length;
      // Each cut must find connections to cut: between two cuts the pool may briefly hold none.
      const open = Date.now() + 10_000;
      while (relay.connections === 0 && Date.now() < open) await sleep(20);
      if (fault === 'terminate') faults.push(`terminate:${await terminateBackends()}`);
      else faults.push(`${fault}:${relay.dropAll(fault)}`);
      // Writes get through again before the next cut.
      const deadline = Date.now() + 20_000;
      while (acknowledged.length < before + 6 && Date.now() < deadline) await sleep(100);
    }
    writing = false;
    await Promise.all(writers);

    expect(crashes.map(String), `faults ${faults.join(', ')}`).to.deep.equal([]);
    expect(
      faults.every((f) => Number(f.split(':')[1]) > 0),
      faults.join(', '),
    ).to.equal(true);
    expect(acknowledged.length, JSON.stringify([...statuses])).to.be.greaterThan(30);

    // Writes succeed after the cuts: every one of them, not eventually.
    for (let i = 0; i < 12; i++) {
      const entityId = `W-after-${i}-${randomUUID().slice(0, 8)}`;
      const response = await t.api.post(
        '/graph/entities',
        { label: 'Well', properties: { entity_id: entityId } },
        session.headers,
      );
      expect(response.status, JSON.stringify(response.body)).to.equal(201);
      acknowledged.push({ id: response.body.id, entityId });
    }

    // Every acknowledged write is in the log and readable through the API.
    const stored = await t.deps
      .knex('events')
      .where({ type: 'VertexCreated' })
      .whereRaw(`data->>'entityId' like 'W-%'`)
      .select(t.deps.knex.raw(`data->>'entityId' as entity_id`));
    const storedIds = new Set(stored.map((row: { entity_id: string }) => row.entity_id));
    expect(acknowledged.filter((w) => !storedIds.has(w.entityId))).to.deep.equal([]);
    for (const write of acknowledged) {
      const read = await t.api.get(`/graph/entities/Well/${write.id}`, session.headers);
      expect(read.status, write.entityId).to.equal(200);
      expect(read.body.entity_id).to.equal(write.entityId);
    }
    expect(crashes.map(String)).to.deep.equal([]);
  });
});
