import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { EventStore, RecordedEvent } from '../../../src/platform/eventstore/types';
import { createStreamTail, type StreamTail } from '../../../src/platform/subscriptions/stream-tail';
import { createTestEventStore, storeWhoseFirstSubscriptionDies } from '../../support/event-store';

const meta = { tenantId: 't', actorId: 'a', correlationId: 'c', causationId: 'c' };
const ev = (n: number) => ({ type: 'Ticked', data: { n }, metadata: meta });

async function take(iterable: AsyncIterable<RecordedEvent>, count: number): Promise<number[]> {
  const seen: number[] = [];
  for await (const event of iterable) {
    seen.push((event.data as { n: number }).n);
    if (seen.length === count) break;
  }
  return seen;
}

describe('stream tail: one subscription, many SSE followers', () => {
  let store: EventStore;
  let cleanup: () => Promise<void>;
  let tail: StreamTail;

  before(async () => {
    ({ store, cleanup } = await createTestEventStore());
    tail = createStreamTail(store, pino({ level: 'silent' }));
  });
  after(async () => {
    await tail.stop();
    await cleanup();
  });

  it('replays a stream from the log, then follows it live, each event once and in order', async () => {
    const stream = `test.tick-${randomUUID()}`;
    await store.append(stream, [ev(1), ev(2)]);
    const controller = new AbortController();
    const reading = take(tail.follow(stream, null, controller.signal), 5);
    await new Promise((r) => setTimeout(r, 50));
    await store.append(stream, [ev(3)]);
    await store.append(stream, [ev(4), ev(5)]);
    expect(await reading).to.deep.equal([1, 2, 3, 4, 5]);
    controller.abort();
  });

  it('resumes right after the last revision a reader saw (Last-Event-ID)', async () => {
    const stream = `test.tick-${randomUUID()}`;
    await store.append(stream, [ev(1), ev(2), ev(3)]);
    const controller = new AbortController();
    const reading = take(tail.follow(stream, 1n, controller.signal), 2);
    await new Promise((r) => setTimeout(r, 50));
    await store.append(stream, [ev(4)]);
    expect(await reading).to.deep.equal([3, 4]);
    controller.abort();
  });

  it('an aborted follower leaves no listener behind', async () => {
    const stream = `test.tick-${randomUUID()}`;
    await store.append(stream, [ev(1)]);
    const before = tail.followers;
    const controller = new AbortController();
    const iterator = tail.follow(stream, null, controller.signal)[Symbol.asyncIterator]();
    await iterator.next();
    expect(tail.followers).to.equal(before + 1);
    const pending = iterator.next();
    controller.abort();
    expect((await pending).done).to.equal(true);
    expect(tail.followers).to.equal(before);
  });

  it('fifty followers of fifty streams all receive their own events', async () => {
    const streams = Array.from({ length: 50 }, () => `test.tick-${randomUUID()}`);
    const controllers = streams.map(() => new AbortController());
    const readings = streams.map((s, i) => take(tail.follow(s, null, controllers[i].signal), 2));
    await new Promise((r) => setTimeout(r, 100));
    await Promise.all(streams.map((s, i) => store.append(s, [ev(i), ev(i + 1000)])));
    const results = await Promise.all(readings);
    results.forEach((seen, i) => expect(seen).to.deep.equal([i, i + 1000]));
    for (const c of controllers) c.abort();
  });

  it('when the shared subscription ends, open followers read what they missed from the log and keep following', async () => {
    const { store: flaky, subscriptions } = storeWhoseFirstSubscriptionDies(store, 100);
    const own = createStreamTail(flaky, pino({ level: 'silent' }));
    const stream = `test.tick-${randomUUID()}`;
    const controller = new AbortController();
    try {
      const reading = take(own.follow(stream, null, controller.signal), 2);
      await new Promise((r) => setTimeout(r, 300));
      await store.append(stream, [ev(1)]);
      await new Promise((r) => setTimeout(r, 300));
      await store.append(stream, [ev(2)]);
      const outcome = await Promise.race([reading, new Promise((r) => setTimeout(() => r('hung'), 5000))]);
      expect(outcome).to.deep.equal([1, 2]);
      expect(subscriptions()).to.be.greaterThan(1);
    } finally {
      controller.abort();
      await own.stop();
    }
  });
});
