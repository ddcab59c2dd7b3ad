import cors from 'cors';
import express, { type Express, Router } from 'express';
import type { Logger } from 'pino';
import { consoleRouter } from './console';
import { type BodyLimit, jsonBodies } from './body-limits';
import { errorHandler, notFoundHandler } from './errors';
import { boundedIdentityHeaders } from './identity';
import type { GatewayStages } from './gateway';
import { bodyHygiene, urlHygiene } from './input-hygiene';
import { announceKeepAlive } from './keep-alive';
import { requestContext } from './request-context';
import { requestScope } from './request-scope';
import { traceRequests } from '../observability/http-spans';
import type { PlatformMetrics } from '../observability/metrics';
import { httpMetrics } from '../observability/http-metrics';

export interface PublicAppOptions {
  logger: Logger;
  metrics: PlatformMetrics;
  trustProxy: boolean | number;
  health: Router;
  gateway: GatewayStages;
  /** Context routers, mounted under /api/v1 after the gateway stages. */
  routers: Router[];
  /** JSON body limits by route (from the API descriptions); a route not listed takes 2 MB. */
  bodyLimits?: BodyLimit[];
  /** The built console (console/dist): served at `/` with an SPA fallback that never shadows /api or /health. */
  staticRoot?: string;
}

function base(
  logger: Logger,
  metrics: PlatformMetrics,
  listener: 'public' | 'internal',
  trustProxy: boolean | number,
): Express {
  const app = express();
  app.disable('x-powered-by');
  // Open event streams are counted where they open (./sse.ts), which reaches the registry through the app.
  app.locals.metrics = metrics;
  app.use(httpMetrics(metrics));
  // TRUST_PROXY=true means one proxy in front: Express's own `true` would trust every hop and
  // take the left-most X-Forwarded-For entry, which the client writes, as its address.
  app.set('trust proxy', trustProxy === true ? 1 : trustProxy);
  app.use(announceKeepAlive);
  app.use(traceRequests(listener, listener === 'internal' || (trustProxy !== false && trustProxy !== 0)));
  app.use(requestContext(logger, listener));
  // Before CORS, health and the gateway: a target no route could decode is refused here.
  app.use(urlHygiene);
  return app;
}

/**
 * The public listener: CORS, then the gateway (authentication, role gates, rate limit),
 * then routes. Bodies are parsed only after the gateway let a request through.
 */
export function createPublicApp(options: PublicAppOptions): Express {
  const app = base(options.logger, options.metrics, 'public', options.trustProxy);
  // Every origin may call; the origin is reflected so cookie sessions work.
  app.use(cors({ origin: true, credentials: true, maxAge: 600 }));
  app.use(options.health);
  const api = Router();
  api.use(options.gateway.authenticate, options.gateway.authorize, options.gateway.rateLimit, requestScope());
  api.use(jsonBodies(options.bodyLimits ?? []), bodyHygiene());
  for (const router of options.routers) api.use(router);
  app.use('/api/v1', api);
  if (options.staticRoot) app.use(consoleRouter(options.staticRoot));
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}

/** The internal listener (127.0.0.1): routes that the public gateway answers 404 for. */
export function createInternalApp(options: {
  logger: Logger;
  metrics: PlatformMetrics;
  routers: Router[];
  health: Router;
  bodyLimits?: BodyLimit[];
}): Express {
  const app = base(options.logger, options.metrics, 'internal', false);
  app.use(options.health);
  const api = Router();
  api.use(requestScope());
  api.use(boundedIdentityHeaders);
  api.use(jsonBodies(options.bodyLimits ?? []), bodyHygiene());
  for (const router of options.routers) api.use(router);
  app.use('/api/v1', api);
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
