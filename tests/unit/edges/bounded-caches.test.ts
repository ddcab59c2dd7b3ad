import { expect } from 'chai';
import { createMemoryCache } from '../../../src/platform/infra/cache';
import { createMemoryBucketStore, MEMORY_BUCKETS_MAX } from '../../../src/platform/http/token-bucket';
import { rateLimitIdentity } from '../../../src/platform/http/rate-limit';
import { createIdentityResolver } from '../../../commands/identity/resolver';

describe('bounded in-memory caches (lru-cache: max entries and TTL)', () => {
  it('the memory cache keeps at most its max entries, least recently used out first', async () => {
    const cache = createMemoryCache(Date.now, 3);
    for (const key of ['a', 'b', 'c']) await cache.set(key, key, 60);
    await cache.get('a');
    await cache.set('d', 'd', 60);
    expect(await cache.get('b')).to.equal(undefined);
    expect(await cache.get('a')).to.equal('a');
    expect(await cache.get('d')).to.equal('d');
  });

  it('the memory cache still honours each entry’s TTL', async () => {
    let now = 1_000;
    const cache = createMemoryCache(() => now);
    await cache.set('k', { v: 1 }, 10);
    now += 9_999;
    expect(await cache.get('k')).to.deep.equal({ v: 1 });
    now += 2;
    expect(await cache.get('k')).to.equal(undefined);
  });

  it('a flood of fresh addresses within one refill period cannot grow the buckets past their bound', async () => {
    const store = createMemoryBucketStore({ capacity: 10, refillPerSecond: 0.01 });
    for (let i = 0; i < MEMORY_BUCKETS_MAX + 5_000; i++) await store.take(`ip:flood-${i}`, 1_000);
    expect(store.size()).to.equal(MEMORY_BUCKETS_MAX);
  });

  it('the identity resolver forgets rows past their staleness bound', async () => {
    let now = 0;
    let loads = 0;
    const resolver = createIdentityResolver({
      now: () => now,
      load: async () => (loads++, null),
      freshMs: 10,
      maxStaleMs: 20,
    });
    await resolver.lookup('u1');
    now = 5;
    await resolver.lookup('u1');
    expect(loads).to.equal(1);
    now = 100;
    await resolver.lookup('u1');
    expect(loads).to.equal(2);
  });
});

describe('rate-limit identity', () => {
  const socket = { remoteAddress: '10.0.0.9' } as never;
  it('anonymous callers are keyed by req.ip (what Express derives under TRUST_PROXY), never by X-Forwarded-For', () => {
    const key = rateLimitIdentity({
      headers: { 'x-forwarded-for': '203.0.113.7, 198.51.100.2' },
      ip: '198.51.100.2',
      socket,
    });
    expect(key).to.equal('ip:198.51.100.2');
  });
  it('IPv4-mapped addresses are keyed as IPv4; a signed-in caller by user id', () => {
    expect(rateLimitIdentity({ headers: {}, ip: '::ffff:127.0.0.5', socket })).to.equal('ip:127.0.0.5');
    expect(rateLimitIdentity({ headers: { 'x-user-id': 'u-1' }, ip: '1.2.3.4', socket })).to.equal('user:u-1');
  });
});
