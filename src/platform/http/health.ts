import { Router } from 'express';

export interface HealthSource {
  /** Migrations ran and projections reached the head of the log. */
  ready(): boolean;
  /** Projectors with unresolved dead letters: the platform serves, but those read models miss events. */
  degraded(): Promise<string[]>;
  details(): Record<string, unknown>;
}

/**
 * `GET /health` (outside /api/v1): 503 while starting or stopping; 200 once ready, with
 * `status: 'degraded'` and the projector names while any projector has dead letters.
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
    res.status(200).json({ status: degraded.length > 0 ? 'degraded' : 'ok', ...(degraded.length > 0 ? { degraded_projectors: degraded } : {}), ...source.details() });
  });
  return router;
}
