import { expect } from 'chai';
import type { AppendNotifier } from '../../../src/platform/eventstore/postgres/notifier';
import { PollingSubscription } from '../../../src/platform/eventstore/postgres/subscription';
import { comparePositions, type Position, type RecordedEvent, START } from '../../../src/platform/eventstore/types';

/** A log in memory and a notifier that wakes its readers when told, as appends do. */
function fakeLog() {
  const events: RecordedEvent[] = [];
  const waiters = new Set<() => void>();
  let reads = 0;
  const notifier = {
    seen: 0,
    wait(timeoutMs: number) {
      return new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          waiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        waiters.add(done);
      });
    },
  };
  const append = () => {
    const n = BigInt(events.length + 1);
    events.push({
      id: String(n),
      stream: 's',
      revision: n - 1n,
      position: { commit: n, prepare: n },
      type: 'T',
      data: {},
      metadata: { tenantId: 't', actorId: 'a', correlationId: 'c', causationId: 'c', signature: 's' },
      recordedAt: new Date(),
    });
    notifier.seen++;
    for (const waiter of [...waiters]) waiter();
  };
  const readLive = async (from: Position, limit: number) => {
    reads++;
    return { events: events.filter((e) => comparePositions(e.position, from) > 0).slice(0, limit), hidden: false };
  };
  return { append, readLive, notifier: notifier as unknown as AppendNotifier, reads: () => reads };
}

describe('polling subscription: gathering a burst of appends', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /** A subscription over `log` with `gatherMs`, and what it has delivered so far. */
  function subscribe(log: ReturnType<typeof fakeLog>, gatherMs: number) {
    const subscription = new PollingSubscription({
      readLive: log.readLive,
      headPosition: async () => START,
      notifier: log.notifier,
      from: START,
      batchSize: 100,
      pollIntervalMs: 400,
      gatherMs: () => gatherMs,
    });
    const seen: RecordedEvent[] = [];
    const running = (async () => {
      for await (const event of subscription) seen.push(event);
    })();
    return { subscription, seen, stop: async () => (await subscription.stop(), await running) };
  }

  it('given a gathering time, when a burst of appends lands, then one read serves the burst', async () => {
    const log = fakeLog();
    const { seen, stop } = subscribe(log, 300);
    await sleep(20);
    const before = log.reads();
    for (let i = 0; i < 5; i++) {
      log.append();
      await sleep(3);
    }
    await sleep(450);
    expect(seen.map((e) => e.id)).to.deep.equal(['1', '2', '3', '4', '5']);
    expect(log.reads() - before, 'reads for five appends').to.equal(1);
    await stop();
  });

  it('given no gathering time, when an append lands, then the wake-up reads it at once', async () => {
    const log = fakeLog();
    const { seen, stop } = subscribe(log, 0);
    await sleep(20);
    log.append();
    await sleep(5);
    expect(seen).to.have.length(1);
    await stop();
  });

  it('given a long gathering, when the reader is hurried, then it reads at once', async () => {
    const log = fakeLog();
    const { subscription, seen, stop } = subscribe(log, 5_000);
    await sleep(20);
    log.append();
    await sleep(10);
    expect(seen, 'still gathering').to.have.length(0);
    subscription.hurry();
    await sleep(10);
    expect(seen).to.have.length(1);
    await stop();
  });
});
