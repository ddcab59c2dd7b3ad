import type { Request } from 'express';
import { normalizePath } from './public-paths';

/**
 * No state change from another site. The session cookie is `SameSite=Lax`, which
 * browsers still send on a top-level cross-site navigation and (for older browsers or a
 * same-site sibling) on some cross-site writes: a link or form on any site could make a
 * signed-in user start a turn or change data. The platform lets every origin *read* (CORS reflects
 * it); writes authenticated by the cookie must come from the platform's own pages. Bearer
 * clients carry their token by hand and are never cross-site in this sense.
 */
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const STREAM = /^\/conversations\/[^/]+\/stream$/;

/** Every write method, and the stream GET that starts a turn when it carries `message`. */
export function changesState(req: Request): boolean {
  const method = req.method.toUpperCase();
  if (WRITES.has(method)) return true;
  return (
    (method === 'GET' || method === 'HEAD') &&
    STREAM.test(normalizePath(req.path)) &&
    new URL(req.originalUrl, 'http://x').searchParams.has('message')
  );
}

/**
 * Whether the browser says the request comes from another site: `Sec-Fetch-Site: cross-site`,
 * or an `Origin` that is neither the platform's public origin (PUBLIC_BASE_URL) nor the host
 * the request was sent to (`null`, from a sandboxed frame or a cross-site redirect, is another
 * site too). Without either header (curl, old clients) nothing marks it cross-site.
 */
export function isCrossSite(req: Request, ownOrigin: string): boolean {
  const site = req.headers['sec-fetch-site'];
  if (typeof site === 'string' && site.toLowerCase() === 'cross-site') return true;
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  if (origin === ownOrigin) return false;
  try {
    return new URL(origin).host !== req.headers.host;
  } catch {
    return true;
  }
}
