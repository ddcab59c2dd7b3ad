import express, { type RequestHandler } from 'express';

/** One route's JSON body limit: method and path as the router writes them (relative to /api/v1). */
export interface BodyLimit {
  method: string;
  path: string;
  bytes: number;
}

/** What a route takes when its description names no limit: the one limit all routes had before. */
export const DEFAULT_JSON_LIMIT_BYTES = 2 * 1024 * 1024;

/** `2 MB`, `64 KB`: how limits read in the 413 and in the document. */
export const readableBytes = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB` : `${Math.round(bytes / 1024)} KB`;

/**
 * JSON bodies parsed with the limit of the route they are for: a login needs a few
 * hundred bytes, an artifact pasted whole a few megabytes, and the smallest limit that fits
 * each route keeps what one request can make the parser hold small. The route is found as
 * the router will find it (method, then the path with literal segments before parameters); a
 * body past its limit is refused by the parser with the platform's 413 `{detail}` before
 * any route runs.
 */
export function jsonBodies(limits: BodyLimit[], fallback = DEFAULT_JSON_LIMIT_BYTES): RequestHandler {
  // Compiled once, grouped by method, most literal paths first: a request tests only its method's routes.
  const byMethod = new Map<string, Array<{ regex: RegExp; literals: number; bytes: number }>>();
  for (const limit of limits) {
    const segments = limit.path.split('/');
    const pattern = segments
      .map((s) => (s.startsWith(':') ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    const method = limit.method.toUpperCase();
    byMethod.set(method, [
      ...(byMethod.get(method) ?? []),
      {
        regex: new RegExp(`^${pattern}/?$`, 'i'),
        literals: segments.filter((s) => !s.startsWith(':')).length,
        bytes: limit.bytes,
      },
    ]);
  }
  for (const routes of byMethod.values()) routes.sort((a, b) => b.literals - a.literals);
  const parsers = new Map<number, RequestHandler>();
  const parserFor = (bytes: number) => {
    let parser = parsers.get(bytes);
    if (!parser) parsers.set(bytes, (parser = express.json({ limit: bytes })));
    return parser;
  };
  return (req, res, next) => {
    const route = byMethod.get(req.method)?.find((r) => r.regex.test(req.path));
    parserFor(route?.bytes ?? fallback)(req, res, next);
  };
}
