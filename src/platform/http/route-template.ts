import type { Request } from 'express';

const PLAIN_PATH = /^(\/(:?[A-Za-z0-9_.~-]+))*\/?$/;

/**
 * The route a request matched, as the API describes it (`/api/v1/checklists/{id}/submit`),
 * never with the ids of the request itself; null when no route matched (a 404, a console
 * file). Routers are mounted under fixed prefixes, so the prefix is the request path's first
 * segments, as many as the route's own path leaves over (read at the end of the request,
 * when an error handler may already have reset `req.baseUrl`).
 */
export function routeTemplate(req: Request): string | null {
  const own = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof own !== 'string') return null;
  const ownSegments = own.split('/').filter(Boolean);
  const template = (segments: string[]) => `/${segments.join('/').replace(/:(\w+)/g, '{$1}')}`;
  // A pattern (wildcards, optional parts) does not say how many segments it takes.
  if (!PLAIN_PATH.test(own)) return template([...req.baseUrl.split('/').filter(Boolean), ...ownSegments]);
  const requested = req.originalUrl.split('?')[0].split('/').filter(Boolean);
  return template([...requested.slice(0, Math.max(0, requested.length - ownSegments.length)), ...ownSegments]);
}
