import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import pino from 'pino';
import { createMemoryBucketStore, type TokenBucketStore } from '../../src/platform/http/token-bucket';
import { createRedisBucketStore } from '../../src/platform/http/token-bucket-redis';
import { loadConfig } from '../../src/platform/config';
import { createMemoryCache } from '../../src/platform/infra/cache';
import { resolveEffectiveSettings } from '../../src/contexts/settings/effective-settings';
import { INHERIT_ALL } from '../../streams/settings/fields';
import { settingsCacheKey } from '../../src/contexts/settings/settings-cache';
import { type BenchRow, perSecond } from './support';

const POLICY = { capacity: 100, refillPerSecond: 10 };

/** Takes per second over `identities` buckets with `concurrency` callers in flight. */
async function takesPerSecond(
  store: TokenBucketStore,
  total: number,
  concurrency: number,
  identities: number,
): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        await store.take(`user:${i % identities}`, Date.now());
      }
    }),
  );
  return perSecond(total, started);
}

/** Rate-limit stores and the per-turn settings resolution (cache hit). */
export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  rows.push({
    name: 'rate-limit take, memory, 10k identities',
    value: await takesPerSecond(createMemoryBucketStore(POLICY), 500_000, 1, 10_000),
    unit: 'ops/s',
    target: '>= 1,000,000',
  });

  if (process.env.REDIS_URL) {
    const redis = new Redis(process.env.REDIS_URL);
    try {
      const store = createRedisBucketStore(redis, POLICY, { prefix: `bench:ratelimit:${randomUUID()}:` });
      rows.push({
        name: 'rate-limit take, redis Lua, 64 in flight',
        value: await takesPerSecond(store, 50_000, 64, 10_000),
        unit: 'ops/s',
        target: '>= 20,000',
      });
    } finally {
      await redis.quit();
    }
  }

  const config = loadConfig({ NODE_ENV: 'test' });
  const cache = createMemoryCache();
  const tenantId = randomUUID();
  await cache.set(
    settingsCacheKey(tenantId),
    {
      tenantId,
      stored: {
        values: { ...INHERIT_ALL, defaultModel: 'openai/gpt-4o' },
        updatedBy: 'x',
        updatedAt: new Date().toISOString(),
      },
      overrides: {},
    },
    300,
  );
  const deps = {
    knex: (() => {
      throw new Error('cache miss in bench');
    }) as never,
    cache,
    config,
    logger: pino({ level: 'silent' }),
  };
  const turns = 100_000;
  const started = process.hrtime.bigint();
  for (let i = 0; i < turns; i++)
    await resolveEffectiveSettings(deps, { tenantId, userId: 'u', request: { thinkingMode: 'adaptive' } });
  rows.push({
    name: 'resolve turn settings (cache hit)',
    value: perSecond(turns, started),
    unit: 'ops/s',
    target: '>= 50,000',
  });
  return rows;
}
