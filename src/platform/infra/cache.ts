import type { Logger } from 'pino';
import { LRUCache } from 'lru-cache';
import type Redis from 'ioredis';

/**
 * A small JSON cache: in-process by default, Redis when REDIS_URL is set so
 * several API instances share it and a write's invalidation reaches them all.
 */
export interface Cache {
  readonly kind: 'memory' | 'redis';
  get<T>(key: string): Promise<T | undefined>;
  set<T>(key: string, value: T, ttlSeconds: number): Promise<void>;
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}

/** Entries the in-process cache holds at most; the least recently used go first. */
export const MEMORY_CACHE_MAX_ENTRIES = 10_000;

export function createMemoryCache(now: () => number = Date.now, maxEntries = MEMORY_CACHE_MAX_ENTRIES): Cache {
  // Bounded by count (lru-cache) and by each entry's own TTL, checked on read.
  const entries = new LRUCache<string, { value: string; expiresAt: number }>({ max: maxEntries });
  return {
    kind: 'memory',
    async get<T>(key: string) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expiresAt <= now()) {
        entries.delete(key);
        return undefined;
      }
      return JSON.parse(entry.value) as T;
    },
    // Stored as JSON text so a cached object can never be mutated by a caller, as with Redis.
    async set(key, value, ttlSeconds) {
      entries.set(key, { value: JSON.stringify(value), expiresAt: now() + ttlSeconds * 1000 });
    },
    async delete(key) {
      entries.delete(key);
    },
    async close() {
      entries.clear();
    },
  };
}

export function createRedisCache(redis: Redis, prefix = 'platform:'): Cache {
  return {
    kind: 'redis',
    async get<T>(key: string) {
      const text = await redis.get(prefix + key);
      return text === null ? undefined : (JSON.parse(text) as T);
    },
    async set(key, value, ttlSeconds) {
      await redis.set(prefix + key, JSON.stringify(value), 'PX', Math.max(1, Math.round(ttlSeconds * 1000)));
    },
    async delete(key) {
      await redis.del(prefix + key);
    },
    async close() {
      // The connection belongs to the composition root.
    },
  };
}

export function connectRedis(url: string, logger?: Logger): Redis {
  // ioredis loads only when REDIS_URL is set.
  const Client = require('ioredis').default as typeof Redis;
  const redis = new Client(url, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true });
  // ioredis reconnects by itself; unheard, its errors are printed to the console instead of the log.
  redis.on('error', (error: Error) => logger?.warn({ err: error }, 'redis connection error; reconnecting'));
  return redis;
}
