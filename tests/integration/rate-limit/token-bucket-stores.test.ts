import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import Redis from 'ioredis';
import pino from 'pino';
import sinon from 'sinon';
import {
  type BucketPolicy,
  createMemoryBucketStore,
  type TokenBucketStore,
  withFallback,
} from '../../../src/platform/http/token-bucket';
import { createRedisBucketStore } from '../../../src/platform/http/token-bucket-redis';

/**
 * One suite, two stores: the in-process buckets always, Redis whenever REDIS_URL is set.
 * Time is injected (`now` in ms), so refill is exact and nothing sleeps.
 */
const SPEC: BucketPolicy = { capacity: 100, refillPerSecond: 10 };
const T0 = 1_767_225_600_000;

function storeSuite(kind: 'memory' | 'redis', make: (policy: BucketPolicy) => TokenBucketStore) {
  describe(`token bucket store: ${kind}`, () => {
    const key = () => `user:${randomUUID()}`;
    const takeMany = async (store: TokenBucketStore, k: string, n: number, now: number) => {
      let allowed = 0;
      for (let i = 0; i < n; i++) if (await store.take(k, now)) allowed++;
      return allowed;
    };

    it('a new identity can burst the full capacity, then is refused', async () => {
      const store = make(SPEC);
      const k = key();
      expect(await takeMany(store, k, 100, T0)).to.equal(100);
      expect(await store.take(k, T0)).to.equal(false);
    });

    it('refills at the sustained rate: 10 per second, one per 100 ms', async () => {
      const store = make(SPEC);
      const k = key();
      await takeMany(store, k, 100, T0);
      expect(await store.take(k, T0 + 99)).to.equal(false);
      expect(await store.take(k, T0 + 100)).to.equal(true);
      expect(await store.take(k, T0 + 150)).to.equal(false);
      expect(await takeMany(store, k, 20, T0 + 1100)).to.equal(10);
    });

    it('600 per minute sustained after the burst', async () => {
      const store = make(SPEC);
      const k = key();
      let allowed = 0;
      // One request every 50 ms for a minute (1200 asks): the burst plus 600 refilled.
      for (let t = 0; t < 60_000; t += 50) if (await store.take(k, T0 + t)) allowed++;
      expect(allowed).to.be.within(699, 700);
    });

    it('never holds more than the burst, however long an identity is idle', async () => {
      const store = make(SPEC);
      const k = key();
      await store.take(k, T0);
      expect(await takeMany(store, k, 150, T0 + 3_600_000)).to.equal(100);
    });

    it('identities have independent buckets', async () => {
      const store = make(SPEC);
      const a = key();
      const b = key();
      await takeMany(store, a, 100, T0);
      expect(await store.take(a, T0)).to.equal(false);
      expect(await takeMany(store, b, 100, T0)).to.equal(100);
    });

    it('a clock that steps back refills nothing and spends nothing extra', async () => {
      const store = make(SPEC);
      const k = key();
      await takeMany(store, k, 100, T0);
      expect(await store.take(k, T0 - 10_000)).to.equal(false);
      expect(await store.take(k, T0 + 100)).to.equal(true);
    });

    it('is atomic: 300 concurrent takes against a burst of 100 let exactly 100 through', async () => {
      const store = make(SPEC);
      const k = key();
      const results = await Promise.all(Array.from({ length: 300 }, () => store.take(k, T0)));
      expect(results.filter(Boolean)).to.have.length(100);
    });
  });
}

storeSuite('memory', (policy) => createMemoryBucketStore(policy));

describe('token bucket stores against Redis', function () {
  const url = process.env.REDIS_URL;
  let redis: Redis;
  before(function () {
    if (!url) this.skip();
    redis = new Redis(url, { maxRetriesPerRequest: 2 });
  });
  after(() => redis?.quit());

  // A prefix per store: buckets from other tests or an earlier run cannot leak in.
  if (url)
    storeSuite('redis', (policy) =>
      createRedisBucketStore(redis, policy, { prefix: `test:ratelimit:${randomUUID()}:` }),
    );

  it('a bucket key expires once the bucket would be full again', async () => {
    const prefix = `test:ratelimit:${randomUUID()}:`;
    const store = createRedisBucketStore(redis, { capacity: 5, refillPerSecond: 10 }, { prefix });
    await store.take('ip:203.0.113.9', Date.now());
    const ttl = await redis.pttl(`${prefix}ip:203.0.113.9`);
    // 5 tokens at 10/s refill in 500 ms, plus a second of margin.
    expect(ttl).to.be.within(1, 1500);
  });
});

describe('token bucket store: memory housekeeping', () => {
  it('forgets buckets that have refilled completely', async () => {
    const store = createMemoryBucketStore({ capacity: 2, refillPerSecond: 1 });
    for (let i = 0; i < 50; i++) await store.take(`ip:10.0.0.${i}`, T0);
    expect(store.size()).to.equal(50);
    // Two seconds on, every bucket is full again: the next take sweeps them.
    await store.take('ip:10.9.9.9', T0 + 2000);
    expect(store.size()).to.equal(1);
  });
});

describe('token bucket store: fallback when the shared store fails', () => {
  const logger = pino({ level: 'silent' });

  it('uses the in-process buckets while the shared store errors, and warns', async () => {
    const failing: TokenBucketStore = { kind: 'redis', take: sinon.stub().rejects(new Error('ECONNREFUSED')) };
    const warn = sinon.spy(logger, 'warn');
    const store = withFallback(failing, createMemoryBucketStore({ capacity: 3, refillPerSecond: 1 }), logger);
    const results = await Promise.all([1, 2, 3, 4].map(() => store.take('user:x', T0)));
    expect(results).to.deep.equal([true, true, true, false]);
    // One warning for the outage, not one per request.
    expect(warn.callCount).to.equal(1);
  });

  it('does not wait on a store that hangs', async () => {
    const hanging: TokenBucketStore = { kind: 'redis', take: () => new Promise(() => undefined) };
    const store = withFallback(hanging, createMemoryBucketStore({ capacity: 1, refillPerSecond: 1 }), logger, {
      timeoutMs: 20,
    });
    const started = Date.now();
    expect(await store.take('user:y', T0)).to.equal(true);
    expect(Date.now() - started).to.be.below(500);
  });

  it('a real Redis connection that is down falls back instead of failing requests', async () => {
    // Port 1 on loopback: nothing listens, the connection is refused at once.
    const down = new Redis('redis://127.0.0.1:1', {
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      lazyConnect: true,
      retryStrategy: () => null,
    });
    down.on('error', () => undefined);
    try {
      const store = withFallback(
        createRedisBucketStore(down, { capacity: 2, refillPerSecond: 1 }),
        createMemoryBucketStore({ capacity: 2, refillPerSecond: 1 }),
        logger,
      );
      expect([await store.take('ip:a', T0), await store.take('ip:a', T0), await store.take('ip:a', T0)]).to.deep.equal([
        true,
        true,
        false,
      ]);
    } finally {
      down.disconnect();
    }
  });
});
