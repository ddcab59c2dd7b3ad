import type { RequestHandler } from 'express';
import type { GatewayStages } from '../../platform/http/gateway';
import { GatewayError } from '../../platform/http/errors';
import { stampIdentity, stripIdentityHeaders } from '../../platform/http/identity';
import { presentedCredential } from './cookies';
import type { IdentityDeps } from '../../../commands/identity/identity-deps';
import { isInternalOnlyPath, isPublicPath } from './public-paths';
import type { ResolvedIdentity } from '../../../commands/identity/resolver';
import { passesGate, roleGateFor } from './role-gates';
import { changesState, isCrossSite } from './same-site';

/**
 * Authentication and role gates. Identity headers sent by the client are
 * dropped first, whatever their letter case or count; they are stamped only from a token
 * that verifies locally (HS256, exp) and resolves to an active user of the current token
 * version. A resolve failure is 503, never a pass-through. A state change authenticated by the
 * session cookie from another site is refused 403 (see same-site.ts).
 */
export function identityGateway(deps: IdentityDeps): Pick<GatewayStages, 'authenticate' | 'authorize'> {
  const { tokens, resolver, clock } = deps;
  const ownOrigin = originOf(deps.config.http.publicBaseUrl);

  const authenticate: RequestHandler = async (req, res, next) => {
    stripIdentityHeaders(req);
    if (isInternalOnlyPath(req.path)) {
      res.status(404).json({ detail: `No route for ${req.method} ${req.baseUrl}${req.path}` });
      return;
    }
    // Public paths still get an identity when a good token comes along; a bad one is ignored.
    const optional = isPublicPath(req.method, req.path);
    const credential = presentedCredential(req);
    if (!credential) return optional ? next() : next(new GatewayError(401, 'missing authentication'));
    if (credential.via === 'cookie' && changesState(req) && isCrossSite(req, ownOrigin)) {
      // A public write (log in, redeem an invite) goes on without the cookie's identity.
      return optional ? next() : next(new GatewayError(403, 'cross-site request refused'));
    }
    const { token } = credential;
    const verified = await tokens.verify(token, clock());
    if (!verified.ok) return optional ? next() : next(new GatewayError(401, `invalid token: ${verified.reason}`));
    let resolution;
    try {
      resolution = await resolver.resolve(verified.claims);
    } catch (err) {
      req.log.error({ err }, 'identity resolution failed');
      return optional ? next() : next(new GatewayError(503, 'authorization service unavailable'));
    }
    if (!resolution.valid)
      return optional ? next() : next(new GatewayError(401, `invalid token: ${resolution.reason}`));
    stampIdentity(req, resolution.identity);
    res.locals.identity = resolution.identity;
    next();
  };

  const authorize: RequestHandler = (req, res, next) => {
    const gate = roleGateFor(req.method, req.path);
    if (!gate) return next();
    const identity = res.locals.identity as ResolvedIdentity | undefined;
    if (!identity) return next(new GatewayError(401, 'missing authentication'));
    if (!passesGate(gate, identity.roles)) return next(new GatewayError(403, gate.message));
    next();
  };

  return { authenticate, authorize };
}

/** PUBLIC_BASE_URL's origin; a value that is no URL names no origin (the Host check still applies). */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}
