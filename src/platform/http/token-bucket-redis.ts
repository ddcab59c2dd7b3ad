import type Redis from 'ioredis';
import { type BucketPolicy, msToFull, type TokenBucketStore } from './token-bucket';

/**
 * The same bucket in Redis, shared by every API instance. One Lua script reads, refills,
 * takes and writes, so it is atomic however many instances and requests race on a key.
 * Time comes from the caller (ARGV) so a test can drive it; instances whose clocks step
 * back relative to the stored time refill nothing rather than going negative.
 */
const TAKE = `
local capacity = tonumber(ARGV[1])
local per_ms = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local ttl = tonumber(ARGV[4])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil or at == nil then
  tokens = capacity
  at = now
end
if now > at then
  tokens = math.min(capacity, tokens + (now - at) * per_ms)
  at = now
end
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'at', string.format('%.17g', at))
redis.call('PEXPIRE', KEYS[1], ttl)
return allowed
`;

const COMMAND = 'platformTokenBucketTake';

type WithTake = Redis & {
  [COMMAND](key: string, capacity: number, perMs: number, now: number, ttl: number): Promise<number>;
};

export function createRedisBucketStore(
  redis: Redis,
  policy: BucketPolicy,
  { prefix = 'platform:ratelimit:' } = {},
): TokenBucketStore {
  const client = redis as WithTake;
  // defineCommand sends EVALSHA and falls back to EVAL once when the server lacks the script.
  if (typeof client[COMMAND] !== 'function') redis.defineCommand(COMMAND, { numberOfKeys: 1, lua: TAKE });
  const perMs = policy.refillPerSecond / 1000;
  // Past this, the bucket would be full again: the key may go.
  const ttl = msToFull(policy) + 1000;
  return {
    kind: 'redis',
    async take(key, now) {
      return (await client[COMMAND](prefix + key, policy.capacity, perMs, Math.floor(now), ttl)) === 1;
    },
  };
}
