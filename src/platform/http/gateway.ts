import type { RequestHandler } from 'express';
import { stripIdentityHeaders } from './identity';

/**
 * The gateway's pluggable stages, in this order (CORS comes before them and
 * routes after). The identity context supplies real ones; the defaults only make sure no
 * client-sent identity header ever reaches a route.
 */
export interface GatewayStages {
  /** Verifies the token, resolves the identity and stamps the identity headers. */
  authenticate: RequestHandler;
  /** Role gates: which roles may call a path at all, before any permission check. */
  authorize: RequestHandler;
  /** Per-identity token bucket. */
  rateLimit: RequestHandler;
}

const pass: RequestHandler = (_req, _res, next) => next();

export const defaultGatewayStages: GatewayStages = {
  authenticate: (req, _res, next) => {
    stripIdentityHeaders(req);
    next();
  },
  authorize: pass,
  rateLimit: pass,
};
