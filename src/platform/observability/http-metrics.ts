import { timingSafeEqual } from 'node:crypto';
import { type RequestHandler, Router } from 'express';
import { routeTemplate } from '../http/route-template';
import { type PlatformMetrics, UNMATCHED_ROUTE } from './metrics';

/**
 * Times every request by method, route template and status: `/api/v1/checklists/{id}/submit`
 * is one label however many checklists exist (the same template names the request's span).
 */
export function httpMetrics(metrics: PlatformMetrics): RequestHandler {
  return (req, res, next) => {
    const end = metrics.httpDuration.startTimer();
    res.on('finish', () =>
      end({ method: req.method, route: routeTemplate(req) ?? UNMATCHED_ROUTE, status: String(res.statusCode) }),
    );
    next();
  };
}

/** The exposition itself, in Prometheus's text format. */
function exposition(metrics: PlatformMetrics): RequestHandler {
  return (_req, res, next) => {
    metrics
      .exposition()
      .then((text) => res.type(metrics.registry.contentType).send(text))
      .catch(next);
  };
}

/** `GET /metrics` of the internal listener: loopback only, no credentials (docs/operations.md#metrics). */
export function internalMetricsRouter(metrics: PlatformMetrics): Router {
  return Router().get('/metrics', exposition(metrics));
}

/**
 * `GET /metrics` of the public listener: only with `Authorization: Bearer <METRICS_TOKEN>`.
 * Without a token configured, or with a wrong one, the path does not exist (404 like any
 * unknown path): a scanner learns nothing from it.
 */
export function publicMetricsRouter(metrics: PlatformMetrics, token: string | null): Router {
  const router = Router();
  if (!token) return router;
  const expected = Buffer.from(`Bearer ${token}`);
  router.get('/metrics', (req, res, next) => {
    const given = Buffer.from(req.get('authorization') ?? '');
    if (given.length === expected.length && timingSafeEqual(given, expected))
      return exposition(metrics)(req, res, next);
    next();
  });
  return router;
}
