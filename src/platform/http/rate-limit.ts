import type { Request, RequestHandler } from 'express';
import type Redis from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config';
import { GatewayError } from './errors';
import { createMemoryBucketStore, type TokenBucketStore, withFallback } from './token-bucket';
import { createRedisBucketStore } from './token-bucket-redis';

/**
 * The gateway's rate-limit stage: a token bucket per identity, `burst` tokens
 * refilled at `perMinute`/60 per second. It runs after authentication, so a signed-in
 * caller is counted by user id wherever they connect from; anonymous callers (public
 * paths) by address.
 */
export interface RateLimitOptions {
  config: Pick<Config, 'rateLimit' | 'http'>;
  /** Shared buckets across instances; in-process buckets when absent. */
  redis?: Redis | null;
  logger: Logger;
  clock?: () => number;
  /** Redis key prefix (tests use one of their own). */
  keyPrefix?: string;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Who a request counts against: a signed-in caller by user id, anyone else by the address
 * Express derives under TRUST_PROXY (`req.ip`). That address walks X-Forwarded-For from the
 * right only across the trusted hops, so the entries a client writes itself (the left-most
 * ones) never name a bucket: rotating them behind one trusted proxy gives no fresh bucket.
 */
export function rateLimitIdentity(req: Pick<Request, 'headers' | 'socket' | 'ip'>): string {
  const userId = single(req.headers['x-user-id']);
  if (userId) return `user:${userId}`;
  const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  return `ip:${(address.startsWith('::ffff:') ? address.slice(7) : address).slice(0, 64)}`;
}

export function rateLimitMessage(perMinute: number): string {
  return `rate limit exceeded — ${perMinute} requests/minute`;
}

export function createRateLimitStore(
  options: Pick<RateLimitOptions, 'config' | 'redis' | 'logger' | 'keyPrefix'>,
): TokenBucketStore {
  const policy = { capacity: options.config.rateLimit.burst, refillPerSecond: options.config.rateLimit.perMinute / 60 };
  const local = createMemoryBucketStore(policy);
  if (!options.redis) return local;
  return withFallback(
    createRedisBucketStore(options.redis, policy, { prefix: options.keyPrefix }),
    local,
    options.logger,
  );
}

export function createRateLimitStage(options: RateLimitOptions): RequestHandler {
  const store = createRateLimitStore(options);
  const clock = options.clock ?? Date.now;
  const message = rateLimitMessage(options.config.rateLimit.perMinute);
  // No Retry-After and no X-RateLimit-* headers: the spec's 429 is the body alone.
  return async (req, _res, next) => {
    try {
      const allowed = await store.take(rateLimitIdentity(req), clock());
      next(allowed ? undefined : new GatewayError(429, message));
    } catch (err) {
      next(err);
    }
  };
}
