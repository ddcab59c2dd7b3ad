import type { IncomingHttpHeaders } from 'node:http';
import type { Request } from 'express';
import type { NextFunction, Response } from 'express';
import { Unauthenticated, ValidationFailed } from '../domain-errors';

/**
 * The gateway stamps these from the resolved token; backends take identity from nowhere
 * else. Anything a client sends under these names is removed first.
 */
export const IDENTITY_HEADERS = ['x-user-id', 'x-tenant-id', 'x-permissions'] as const;

/**
 * On the internal listener the local caller asserts the identity with these headers (no
 * gateway): ids are UUIDs or short slugs (`default`), permissions a comma list. Longer values
 * are refused before any route reads them (the internal document states the same bounds).
 */
export const IDENTITY_HEADER_LIMITS: Record<(typeof IDENTITY_HEADERS)[number], number> = {
  'x-user-id': 128,
  'x-tenant-id': 128,
  'x-permissions': 4096,
};

export function boundedIdentityHeaders(req: Request, _res: Response, next: NextFunction): void {
  const refused = IDENTITY_HEADERS.filter((name) => {
    const value = req.headers[name];
    return (Array.isArray(value) ? value.join(',') : (value ?? '')).length > IDENTITY_HEADER_LIMITS[name];
  });
  if (refused.length === 0) return next();
  next(
    new ValidationFailed(
      refused.map((name) => ({
        loc: ['header', name],
        msg: `at most ${IDENTITY_HEADER_LIMITS[name]} characters`,
        type: 'too_long',
      })),
    ),
  );
}

export interface Identity {
  userId: string;
  tenantId: string;
  permissions: string[];
}

/** Node merges duplicate headers into one lower-case key; rawHeaders keeps every copy. */
export function stripIdentityHeaders(req: { headers: IncomingHttpHeaders; rawHeaders: string[] }): void {
  for (const name of IDENTITY_HEADERS) delete req.headers[name];
  const kept: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (!(IDENTITY_HEADERS as readonly string[]).includes(req.rawHeaders[i].toLowerCase()))
      kept.push(req.rawHeaders[i], req.rawHeaders[i + 1]);
  }
  req.rawHeaders.splice(0, req.rawHeaders.length, ...kept);
}

export function stampIdentity(req: Request, identity: Identity): void {
  stripIdentityHeaders(req);
  req.headers['x-user-id'] = identity.userId;
  req.headers['x-tenant-id'] = identity.tenantId;
  req.headers['x-permissions'] = identity.permissions.join(',');
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The stamped identity, or null on public paths and for header-less internal callers. */
export function identityOf(req: Request): Identity | null {
  const userId = single(req.headers['x-user-id']);
  const tenantId = single(req.headers['x-tenant-id']);
  if (!userId || !tenantId) return null;
  const permissions = (single(req.headers['x-permissions']) ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  return { userId, tenantId, permissions };
}

export function requireIdentity(req: Request): Identity {
  const identity = identityOf(req);
  if (!identity) throw new Unauthenticated('Not authenticated');
  return identity;
}
