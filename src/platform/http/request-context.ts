import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { bindToCurrentContext } from '../observability/tracing';

declare module 'express-serve-static-core' {
  interface Request {
    id: string;
    log: Logger;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** A request id on every log line (kept from the caller when well-formed) and an access log. */
export function requestContext(logger: Logger, listener: 'public' | 'internal'): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    req.id = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    req.log = logger.child({ requestId: req.id, listener });
    res.setHeader('X-Request-Id', req.id);
    const started = process.hrtime.bigint();
    // Bound to the request's trace: the access line carries its trace_id and span_id.
    res.on(
      'finish',
      bindToCurrentContext(() => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        // A failing request's error is logged by the error handler; the access line (which also
        // sees the expected 503s of /health while starting) stays a warning.
        const level = res.statusCode >= 500 ? 'warn' : 'info';
        req.log[level](
          { method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10 },
          'request',
        );
      }),
    );
    next();
  };
}
