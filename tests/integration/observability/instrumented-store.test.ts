import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { WrongExpectedRevisionError } from '../../../src/platform/eventstore/types';
import { instrumentStore } from '../../../src/platform/observability/instrumented-store';
import { createPlatformMetrics } from '../../../src/platform/observability/metrics';
import { createTestEventStore } from '../../support/event-store';

/** Appends are counted once, at the store the platform hands out, over the real PostgreSQL store. */
describe('the instrumented event store', () => {
  let fixture: Awaited<ReturnType<typeof createTestEventStore>>;
  before(async () => (fixture = await createTestEventStore()));
  after(() => fixture.cleanup());

  const event = (type: string) => {
    const id = randomUUID();
    return { type, data: {}, metadata: { tenantId: 't', actorId: 'a', correlationId: id, causationId: id } };
  };
  /** A series' value; a histogram's `_sum` and `_count` are read from the histogram. */
  const count = async (metrics: ReturnType<typeof createPlatformMetrics>, name: string, labels = {}) => {
    const metric = metrics.registry.getSingleMetric(name.replace(/_(sum|count)$/, ''))!;
    const { values } = await metric.get();
    const found = (values as Array<(typeof values)[number] & { metricName?: string }>).find(
      (v) =>
        (v.metricName === undefined || v.metricName === name) &&
        Object.entries(labels).every(([k, l]) => v.labels[k] === l),
    );
    return found?.value ?? 0;
  };

  it('counts appends, events per append and conflicts; a conflict still reaches the caller', async () => {
    const metrics = createPlatformMetrics({ defaultMetrics: false });
    const store = instrumentStore(fixture.store, metrics);
    const stream = `toy.note-t-${randomUUID()}`;
    await store.append(stream, [event('A'), event('B')], { expectedRevision: 'no_stream' });
    await store.appendMany([
      { stream, events: [event('C')], expectedRevision: 1n },
      { stream: `toy.note-t-${randomUUID()}`, events: [event('D'), event('E')] },
    ]);
    let refused: unknown = null;
    await store.append(stream, [event('F')], { expectedRevision: 0n }).catch((error: unknown) => (refused = error));
    expect(refused).to.be.instanceOf(WrongExpectedRevisionError);

    expect(await count(metrics, 'eventstore_appends_total', { result: 'ok' })).to.equal(2);
    expect(await count(metrics, 'eventstore_appends_total', { result: 'conflict' })).to.equal(1);
    expect(await count(metrics, 'eventstore_concurrency_conflicts_total')).to.equal(1);
    expect(await count(metrics, 'eventstore_append_events_sum')).to.equal(5);
    expect(await count(metrics, 'eventstore_append_duration_seconds_count')).to.equal(3);
    expect(await store.readStream(stream)).to.have.length(3);
  });

  it("passes the store's optional methods through as the store has them", async () => {
    const store = instrumentStore(fixture.store, createPlatformMetrics({ defaultMetrics: false }));
    expect(store.kind).to.equal('postgres');
    expect(typeof store.measureLag).to.equal(typeof fixture.store.measureLag);
    expect(typeof store.readStreams).to.equal(typeof fixture.store.readStreams);
    expect(await store.headPosition()).to.deep.equal(await fixture.store.headPosition());
  });
});
