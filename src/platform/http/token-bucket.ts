import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';

/**
 * Token buckets for the gateway's rate limit: each identity has a bucket of
 * `capacity` tokens that refills continuously at `refillPerSecond`; a request takes one
 * token or is refused. A bucket that has refilled completely is the same as no bucket, so
 * stores forget it.
 */
export interface BucketPolicy {
  capacity: number;
  refillPerSecond: number;
}

export interface TokenBucketStore {
  readonly kind: 'memory' | 'redis';
  /** Takes one token from `key`'s bucket if it holds one; atomic per key. */
  take(key: string, nowMs: number): Promise<boolean>;
}

/** A bucket's level after refilling from `at` to `now` (a clock that steps back refills nothing). */
export function refill(
  policy: BucketPolicy,
  bucket: { tokens: number; at: number },
  now: number,
): { tokens: number; at: number } {
  if (now <= bucket.at) return bucket;
  return {
    tokens: Math.min(policy.capacity, bucket.tokens + ((now - bucket.at) * policy.refillPerSecond) / 1000),
    at: now,
  };
}

/** Milliseconds an empty bucket needs to fill up again: how long state is worth keeping. */
export const msToFull = (policy: BucketPolicy) => Math.ceil((policy.capacity / policy.refillPerSecond) * 1000);

/**
 * One process's buckets. `take` never awaits between reading and writing a bucket, so
 * concurrent requests on the event loop cannot both spend the last token. Full buckets are
 * swept at most once per refill period, which bounds memory by the identities active in it.
 */
/** Buckets one process keeps at most. */
export const MEMORY_BUCKETS_MAX = 100_000;

export function createMemoryBucketStore(policy: BucketPolicy): TokenBucketStore & { size(): number } {
  // Also bounded by count (lru-cache): a flood of fresh addresses within one refill period
  // evicts the least recently seen buckets, which are the ones closest to full.
  const buckets = new LRUCache<string, { tokens: number; at: number }>({ max: MEMORY_BUCKETS_MAX });
  const period = msToFull(policy);
  let lastSweep = -Infinity;

  function sweep(now: number): void {
    lastSweep = now;
    for (const [key, bucket] of [...buckets.entries()]) {
      if (refill(policy, bucket, now).tokens >= policy.capacity) buckets.delete(key);
    }
  }

  return {
    kind: 'memory',
    async take(key, now) {
      if (now - lastSweep >= period) sweep(now);
      const bucket = refill(policy, buckets.get(key) ?? { tokens: policy.capacity, at: now }, now);
      const allowed = bucket.tokens >= 1;
      buckets.set(key, { tokens: allowed ? bucket.tokens - 1 : bucket.tokens, at: bucket.at });
      return allowed;
    },
    size: () => buckets.size,
  };
}

/**
 * The shared store first; when it fails or is slow, this process's own buckets, so a Redis
 * outage neither opens the gateway to unlimited traffic nor turns every request into a 500.
 * Limits are then per instance until Redis answers again. Warnings are rate-limited too.
 */
export function withFallback(
  primary: TokenBucketStore,
  fallback: TokenBucketStore,
  logger: Logger,
  { timeoutMs = 250, warnEveryMs = 30_000 } = {},
): TokenBucketStore {
  let lastWarning = -Infinity;
  let failures = 0;
  const warn = (err: unknown) => {
    failures++;
    const now = Date.now();
    if (now - lastWarning < warnEveryMs) return;
    lastWarning = now;
    logger.warn({ err, failures }, `rate-limit store (${primary.kind}) unavailable; using in-process buckets`);
    failures = 0;
  };
  return {
    kind: primary.kind,
    async take(key, now) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        return await Promise.race([primary.take(key, now), timeout]);
      } catch (err) {
        warn(err);
        return fallback.take(key, now);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
