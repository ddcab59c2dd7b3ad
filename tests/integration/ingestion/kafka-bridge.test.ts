import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Kafka } from 'kafkajs';
import pino from 'pino';
import sinon from 'sinon';
import { kafkaClient } from '../../../src/contexts/ingestion/kafka-client';
import { applyMessage, GRAPH_CONSUMER_GROUP, startGraphConsumer } from '../../../src/contexts/ingestion/graph-consumer';
import {
  bridgePending,
  ensureBridgeTable,
  KafkaBridge,
  readBridgeCheckpoint,
  toMessage,
} from '../../../src/contexts/ingestion/kafka-bridge';
import { PUBLISHED_EVENT_TYPES } from '../../../streams/ingestion/broker-messages';
import { comparePositions, type EventStore, type ReadAllOptions, START } from '../../../src/platform/eventstore/types';
import { signIn } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

/**
 * The bridge against the real event log, with sinon at the kafkajs boundary (producer,
 * admin, consumer): the broker itself cannot run here; the live test below needs KAFKA_BROKERS.
 */
describe('Kafka bridge and graph consumer', () => {
  let t: TestPlatform;
  const logger = pino({ level: 'silent' });
  const leader = { tryAcquire: async () => true, isHeld: () => true, release: async () => undefined };
  before(async () => {
    t = await startTestPlatform();
  });
  after(() => t.close());

  function fakeKafka() {
    const producer = {
      connect: sinon.stub().resolves(),
      disconnect: sinon.stub().resolves(),
      send: sinon.stub().resolves([]),
    };
    const admin = {
      connect: sinon.stub().resolves(),
      disconnect: sinon.stub().resolves(),
      createTopics: sinon.stub().resolves(true),
    };
    const kafka = { producer: sinon.stub().returns(producer), admin: sinon.stub().returns(admin) };
    return { kafka: kafka as unknown as Pick<Kafka, 'producer' | 'admin'>, producer, admin };
  }

  async function scrape(tenantId = randomUUID()) {
    const user = await signIn(t, { roles: ['power_user'], tenantId });
    const response = await t.api.post(
      '/ingest/rrc-scrape',
      { data_types: ['operators', 'wells'], district: '7C', date_range: { from: '2025-01-01', to: '2025-01-31' } },
      user.headers,
    );
    expect(response.status).to.equal(200);
    return user;
  }

  async function eventually(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error('condition not reached in time');
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  const sentMessages = (producer: { send: sinon.SinonStub }) =>
    producer.send
      .getCalls()
      .flatMap((c) => c.args[0].messages as Array<{ key: string; value: string; headers: Record<string, string> }>);

  it('publishes {event_type, data} keyed by event type to a topic it creates with 3 partitions and replication factor 1', async () => {
    await scrape();
    const { kafka, producer, admin } = fakeKafka();
    const bridge = new KafkaBridge({
      kafka,
      store: t.deps.store,
      knex: t.deps.knex,
      logger,
      leaderLock: leader,
      batchSize: 1000,
    });
    await ensureBridgeTable(t.deps.knex);
    while ((await bridge.tick()) > 0);
    expect(admin.createTopics.calledOnce).to.equal(true);
    expect(admin.createTopics.firstCall.args[0].topics).to.deep.equal([
      { topic: 'entity-extraction-worker', numPartitions: 3, replicationFactor: 1 },
    ]);
    expect(producer.send.firstCall.args[0]).to.include({ topic: 'entity-extraction-worker', acks: -1 });
    const messages = sentMessages(producer);
    const wells = messages.find((m) => m.key === 'wells_scraped')!;
    expect(wells.headers).to.include({ source: 'ingestion', 'event-type': 'RrcDataScraped' });
    const value = JSON.parse(wells.value);
    expect(value.event_type).to.equal('wells_scraped');
    expect(value.data.records).to.have.length(36);
    expect(messages.map((m) => m.key)).to.include.members([
      'operators_scraped',
      'wells_scraped',
      'rrc_scrape_completed',
    ]);
    const status = await bridgePending(t.deps.store, t.deps.knex);
    expect(status.pending).to.equal(0);
  });

  it('a broker outage delays publishing and drops nothing: the checkpoint moves only after the ack', async () => {
    const { kafka, producer } = fakeKafka();
    const bridge = new KafkaBridge({
      kafka,
      store: t.deps.store,
      knex: t.deps.knex,
      logger,
      leaderLock: leader,
      batchSize: 1000,
      pollMs: 5,
      maxBackoffMs: 20,
    });
    await ensureBridgeTable(t.deps.knex);
    while ((await bridge.tick()) > 0); // publish whatever earlier tests left
    const checkpoint = await readBridgeCheckpoint(t.deps.knex);
    producer.send.resetHistory();

    const outage = new Error('Connection error: connect ECONNREFUSED 127.0.0.1:9092');
    producer.send.rejects(outage);
    await scrape();
    let thrown: unknown;
    try {
      await bridge.tick();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).to.equal(outage);
    expect((await readBridgeCheckpoint(t.deps.knex)).position).to.deep.equal(checkpoint.position);
    const pending = (await bridgePending(t.deps.store, t.deps.knex)).pending;
    expect(pending).to.be.greaterThan(0);

    // The running loop keeps retrying with backoff and records the error; then the broker returns.
    bridge.start();
    await eventually(
      async () => (await readBridgeCheckpoint(t.deps.knex)).lastError !== null && producer.send.callCount > 1,
    );
    expect((await readBridgeCheckpoint(t.deps.knex)).lastError).to.match(/ECONNREFUSED/);
    producer.send.resetHistory();
    producer.send.resolves([]);
    await eventually(async () => (await bridgePending(t.deps.store, t.deps.knex)).pending === 0);
    await bridge.stop();
    const after = await readBridgeCheckpoint(t.deps.knex);
    expect(after.lastError).to.equal(null);
    expect((await bridgePending(t.deps.store, t.deps.knex)).pending).to.equal(0);
    const ids = sentMessages(producer).map((m) => m.headers['event-id']);
    expect(new Set(ids).size).to.equal(pending);
  });

  it('cuts produce requests by size and checkpoints after each acknowledged one', async () => {
    const { kafka, producer } = fakeKafka();
    const bridge = new KafkaBridge({
      kafka,
      store: t.deps.store,
      knex: t.deps.knex,
      logger,
      leaderLock: leader,
      batchSize: 1000,
      maxRequestBytes: 1,
    });
    await ensureBridgeTable(t.deps.knex);
    while ((await bridge.tick()) > 0);
    await scrape();
    producer.send.resetHistory();
    producer.send.onSecondCall().rejects(new Error('Request Produce timed out'));
    const before = await readBridgeCheckpoint(t.deps.knex);
    let thrown: unknown;
    await bridge.tick().catch((e) => (thrown = e));
    expect(thrown).to.be.instanceOf(Error);
    expect(producer.send.callCount).to.equal(2);
    expect(producer.send.firstCall.args[0].messages).to.have.length(1);
    const after = await readBridgeCheckpoint(t.deps.knex);
    expect(after.published - before.published).to.equal(1);
    const firstId = producer.send.firstCall.args[0].messages[0].headers['event-id'];
    const [first] = await t.deps.store.readAll({
      from: before.position,
      limit: 1,
      filter: { eventTypes: [...PUBLISHED_EVENT_TYPES] },
    });
    expect(first.id).to.equal(firstId);
    expect(after.position).to.deep.equal(first.position);
  });

  it('never reads again the events it did not publish: a round reads only what was appended since the last one', async () => {
    // The bridge's own view of the store, its reads recorded (the projectors read the log too).
    const reads = sinon.spy((options: ReadAllOptions) => t.deps.store.readAll(options));
    const store: EventStore = Object.assign(Object.create(t.deps.store), { readAll: reads });
    const { kafka } = fakeKafka();
    const bridge = new KafkaBridge({ kafka, store, knex: t.deps.knex, logger, leaderLock: leader, batchSize: 1000 });
    await ensureBridgeTable(t.deps.knex);
    while ((await bridge.tick()) > 0);
    const bridgeRead = () => reads.lastCall.args[0].from!;
    // Rows of the log (any type) after where a round's read started: what the database walks.
    const rowsAfter = async (from: { commit: bigint; prepare: bigint }) =>
      Number(
        (
          await t.deps.knex.raw(
            'SELECT count(*) AS n FROM events WHERE (transaction_id, position) > (?::text::xid8, ?)',
            from.commit < 0n ? ['0', -1] : [from.commit.toString(), from.prepare.toString()],
          )
        ).rows[0].n,
      );
    const appendNoise = async (count: number) => {
      const metadata = {
        tenantId: randomUUID(),
        actorId: randomUUID(),
        correlationId: randomUUID(),
        causationId: randomUUID(),
      };
      for (let i = 0; i < count; i += 100)
        await t.deps.store.append(
          `test.noise-${randomUUID()}`,
          Array.from({ length: 100 }, (_, n) => ({ type: 'NoiseRecorded', data: { n }, metadata })),
        );
    };
    // Earlier tests' reactors may still be appending: start once the log is quiet.
    for (let before = START; comparePositions(before, await t.deps.store.headPosition()) !== 0;) {
      before = await t.deps.store.headPosition();
      await new Promise((r) => setTimeout(r, 500));
    }
    try {
      const walked: number[] = [];
      for (let round = 0; round < 3; round++) {
        await appendNoise(300);
        reads.resetHistory();
        expect(await bridge.tick()).to.equal(0);
        walked.push(await rowsAfter(bridgeRead()));
      }
      // 900 unpublished events since the last published one; each round started past the previous ones.
      expect(
        walked.every((n) => n <= 300),
        `rows after each round's start: ${walked.join(', ')}`,
      ).to.equal(true);
      // Nothing appended since: the round reads nothing at all. (A late reaction of an earlier
      // test may still append once; the first round after it catches up, the next is idle.)
      for (let round = 0; round < 5; round++) {
        reads.resetHistory();
        expect(await bridge.tick()).to.equal(0);
        if (!reads.called) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(reads.called).to.equal(false);
      // And what is published later is still published.
      await scrape();
      expect(await bridge.tick()).to.be.greaterThan(0);
    } finally {
      sinon.restore();
    }
  });

  it('a follower without the bridge lock publishes nothing', async () => {
    const { kafka, producer } = fakeKafka();
    const bridge = new KafkaBridge({
      kafka,
      store: t.deps.store,
      knex: t.deps.knex,
      logger,
      leaderLock: { tryAcquire: async () => false, isHeld: () => false, release: async () => undefined },
    });
    await scrape();
    expect(await bridge.tick()).to.equal(0);
    expect(producer.send.called).to.equal(false);
  });

  it("the graph consumer feeds another deployment's graph from the messages, idempotently", async () => {
    const source = await scrape();
    const events = (await t.deps.store.readAll({ filter: { eventTypes: [...PUBLISHED_EVENT_TYPES] } })).filter(
      (e) => e.metadata.tenantId === source.tenantId,
    );
    const target = await signIn(t, { roles: ['power_user'], tenantId: randomUUID() });
    const messages = events.map(toMessage).map((m) => ({
      value: Buffer.from(m.value),
      headers: { ...m.headers, 'tenant-id': Buffer.from(target.tenantId) },
    }));
    for (const m of messages) await applyMessage(t.deps, logger, m);
    const wells = await t.api.get('/graph/entities/Well?limit=1000', target.headers);
    expect(wells.body.entities).to.have.length(36);
    const edges = await t.api.get(`/graph/edges/Well/${wells.body.entities[0].entity_id}`, target.headers);
    expect(edges.body.edges.map((e: { edge_label: string }) => e.edge_label)).to.include('OPERATED_BY');

    const head = await t.deps.store.headPosition();
    for (const m of messages) await applyMessage(t.deps, logger, m);
    expect(await t.deps.store.headPosition()).to.deep.equal(head);
  });

  it('the consumer joins group graph-consumer from the earliest offset and commits automatically', async () => {
    const consumer = {
      connect: sinon.stub().resolves(),
      subscribe: sinon.stub().resolves(),
      run: sinon.stub().resolves(),
      disconnect: sinon.stub().resolves(),
    };
    const kafka = { consumer: sinon.stub().returns(consumer) };
    await startGraphConsumer(kafka as unknown as Pick<Kafka, 'consumer'>, t.deps, logger);
    expect(kafka.consumer.firstCall.args[0]).to.deep.equal({ groupId: GRAPH_CONSUMER_GROUP });
    expect(consumer.subscribe.firstCall.args[0]).to.deep.equal({
      topics: ['entity-extraction-worker'],
      fromBeginning: true,
    });
    expect(consumer.run.firstCall.args[0].autoCommit).to.equal(true);
  });

  it('publishes to a live broker when KAFKA_BROKERS is set', async function () {
    const brokers = process.env.KAFKA_BROKERS;
    if (!brokers) this.skip();
    const kafka = kafkaClient(brokers!.split(','), `ingestion-live-test-${randomUUID().slice(0, 8)}`);
    const topic = `entity-extraction-worker-test-${randomUUID().slice(0, 8)}`;
    await scrape();
    const bridge = new KafkaBridge({
      kafka,
      store: t.deps.store,
      knex: t.deps.knex,
      logger,
      leaderLock: leader,
      topic,
      batchSize: 1000,
    });
    await ensureBridgeTable(t.deps.knex);
    await t.deps.knex('ingestion_bridge_checkpoints').delete();
    let published = 0;
    for (let n = await bridge.tick(); n > 0; n = await bridge.tick()) published += n;
    await bridge.stop();
    const admin = kafka.admin();
    await admin.connect();
    const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
    const offsets = await admin.fetchTopicOffsets(topic);
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
    expect(metadata.topics[0].partitions).to.have.length(3);
    expect(offsets.reduce((sum: number, p: { high: string }) => sum + Number(p.high), 0)).to.equal(published);
  });
});
