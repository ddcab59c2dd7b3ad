/**
 * The wait before retry number `attempt` (1, 2, …): `baseMs` doubling, at most `capMs`. The
 * one backoff of every retry loop that waits for something to come back (a lane, the wake-up
 * subscription, the SSE tail, the Kafka bridge, a scheduled message).
 */
export const retryDelayMs = (attempt: number, baseMs: number, capMs: number): number =>
  Math.min(capMs, baseMs * 2 ** Math.min(attempt - 1, 10));
