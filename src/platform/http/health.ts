import { Router } from 'express';
import { REACTOR_PREFIX } from '../reactors/runner';
import type { RuntimeHealth } from '../runtime/report';
import { SCHEDULED_PREFIX } from '../scheduling/schedule';

export type { LaneHealth, RuntimeHealth } from '../runtime/report';

/** How long /health waits for the runtime's figures before it calls the database unreachable (ms). */
const RUNTIME_HEALTH_TIMEOUT_MS = 3000;

/** A lane that misses work now: its wake-up subscription is down, or it is behind by more than the bound. */
function degradedLanes(
  runtime: RuntimeHealth,
): Array<{ name: string; kind: string; reason: 'subscription_down' | 'behind' }> {
  const out: Array<{ name: string; kind: string; reason: 'subscription_down' | 'behind' }> = [];
  for (const lane of runtime.lanes) {
    if (lane.subscribed === false) out.push({ name: lane.name, kind: lane.kind, reason: 'subscription_down' });
    else if (lane.lag_seconds > runtime.lagDegradedS) out.push({ name: lane.name, kind: lane.kind, reason: 'behind' });
  }
  return out;
}

function withinTime<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timed out')), ms)));
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export interface HealthSource {
  /** Migrations ran and projections reached the head of the log. */
  ready(): boolean;
  /**
   * Projectors (and `reactor:`-prefixed reactors, `scheduled:`-prefixed scheduled-message
   * handlers) with unresolved dead letters: the platform serves, but those miss work.
   */
  degraded(): Promise<string[]>;
  details(): Record<string, unknown>;
  /** The runtime's lanes and leaderships (absent: not reported). */
  runtime?(): Promise<RuntimeHealth>;
}

/**
 * `GET /health` (outside /api/v1): 503 while starting or stopping; 200 once ready, with
 * `status: 'degraded'` and the projector (reactor, scheduled handler) names while any has dead
 * letters, the lanes whose subscription is down or that are behind, the leaderships nobody
 * holds, or while the database does not answer. Every lane's lag is in `lanes` (docs/runtime.md).
 */
export function createHealthApi(source: HealthSource): Router {
  const router = Router();
  /**
   * The figures being read now: a request that comes meanwhile shares them (about twenty
   * queries, one per lane's lag) rather than reading them again, so a storm of probes costs the
   * database one read at a time. A request that joins gets figures whose read began at most
   * one read before it came.
   */
  let reading: Promise<[string[], RuntimeHealth | 'unreachable' | null]> | null = null;
  const read = () =>
    (reading ??= Promise.all([
      source.degraded().catch(() => []),
      source.runtime
        ? withinTime(source.runtime(), RUNTIME_HEALTH_TIMEOUT_MS).catch(() => 'unreachable' as const)
        : null,
    ]).finally(() => (reading = null)));
  router.get('/health', async (_req, res) => {
    const ready = source.ready();
    if (!ready) {
      res.status(503).json({ status: 'starting', ...source.details() });
      return;
    }
    const [degraded, runtime] = await read();
    const unreachable = runtime === 'unreachable';
    const lanes = runtime && !unreachable ? degradedLanes(runtime) : [];
    const leaderless = runtime && !unreachable ? runtime.leaderless : [];
    // Reactor lanes and scheduled handlers keep their dead letters beside the projectors', under a prefix.
    const prefixed = (prefix: string) =>
      degraded.filter((n) => n.startsWith(prefix)).map((n) => n.slice(prefix.length));
    const reactors = prefixed(REACTOR_PREFIX);
    const scheduled = prefixed(SCHEDULED_PREFIX);
    const projectors = degraded.filter((n) => !n.startsWith(REACTOR_PREFIX) && !n.startsWith(SCHEDULED_PREFIX));
    const healthy = degraded.length === 0 && !unreachable && lanes.length === 0 && leaderless.length === 0;
    res.status(200).json({
      status: healthy ? 'ok' : 'degraded',
      ...(projectors.length > 0 ? { degraded_projectors: projectors } : {}),
      ...(lanes.length > 0 ? { degraded_lanes: lanes } : {}),
      ...(leaderless.length > 0 ? { leaderless } : {}),
      ...(unreachable ? { database: 'unreachable' } : {}),
      ...(runtime && !unreachable ? { lanes: runtime.lanes, lag_degraded_after_s: runtime.lagDegradedS } : {}),
      ...(reactors.length > 0 ? { degraded_reactors: reactors } : {}),
      ...(scheduled.length > 0 ? { degraded_scheduled_handlers: scheduled } : {}),
      ...source.details(),
    });
  });
  return router;
}
