import { Router } from 'express';

export interface HealthSource {
  /** Migrations ran and projections reached the head of the log. */
  ready(): boolean;
  details(): Record<string, unknown>;
}

/** `GET /health` (outside /api/v1): 503 while starting or stopping, 200 once ready. */
export function createHealthApi(source: HealthSource): Router {
  const router = Router();
  router.get('/health', (_req, res) => {
    const ready = source.ready();
    res.status(ready ? 200 : 503).json({ status: ready ? 'ok' : 'starting', ...source.details() });
  });
  return router;
}
