import { Router } from 'express';
import { REACTOR_PREFIX } from '../reactors/runner';
import { SCHEDULED_PREFIX } from '../scheduling/schedule';

export interface HealthSource {
  /** Migrations ran and projections reached the head of the log. */
  ready(): boolean;
  /**
   * Projectors (and `reactor:`-prefixed reactors, `scheduled:`-prefixed scheduled-message
   * handlers) with unresolved dead letters: the platform serves, but those miss work.
   */
  degraded(): Promise<string[]>;
  details(): Record<string, unknown>;
}

/**
 * `GET /health` (outside /api/v1): 503 while starting or stopping; 200 once ready, with
 * `status: 'degraded'` and the projector (reactor, scheduled handler) names while any has dead letters.
 */
export function createHealthApi(source: HealthSource): Router {
  const router = Router();
  router.get('/health', async (_req, res) => {
    const ready = source.ready();
    if (!ready) {
      res.status(503).json({ status: 'starting', ...source.details() });
      return;
    }
    const degraded = await source.degraded().catch(() => []);
    // Reactor lanes and scheduled handlers keep their dead letters beside the projectors', under a prefix.
    const prefixed = (prefix: string) => degraded.filter((n) => n.startsWith(prefix)).map((n) => n.slice(prefix.length));
    const reactors = prefixed(REACTOR_PREFIX);
    const scheduled = prefixed(SCHEDULED_PREFIX);
    const projectors = degraded.filter((n) => !n.startsWith(REACTOR_PREFIX) && !n.startsWith(SCHEDULED_PREFIX));
    res.status(200).json({
      status: degraded.length > 0 ? 'degraded' : 'ok',
      ...(projectors.length > 0 ? { degraded_projectors: projectors } : {}),
      ...(reactors.length > 0 ? { degraded_reactors: reactors } : {}),
      ...(scheduled.length > 0 ? { degraded_scheduled_handlers: scheduled } : {}),
      ...source.details(),
    });
  });
  return router;
}
