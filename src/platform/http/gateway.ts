import type { RequestHandler } from 'express';
import { stripIdentityHeaders } from './identity';

/**
 * The gateway's pluggable stages, in the order of spec 1 §8 (CORS comes before them and
 * routes after). The identity context supplies real ones; the defaults only make sure no
 * client-sent identity header ever reaches a route.
 */
export interface GatewayStages {
  /** Verifies the token, resolves the identity and stamps the identity headers. */
  authenticate: RequestHandler;
  /** Role gates of spec 1 §5. */
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
