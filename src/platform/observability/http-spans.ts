import { propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { RequestHandler } from 'express';
import { routeTemplate } from '../http/route-template';
import { startSpan, tracingOn, withContext } from './tracing';

/**
 * A server span around every request, named by method and route template
 * (`POST /api/v1/checklists/{id}/submit`, never a raw id), so everything the request does
 * (its command, append, SQL, log lines) is inside it. A caller's `traceparent` header is
 * continued only from a caller trusted like `X-Forwarded-For` is (`trustCaller`: the internal
 * listener, or a proxy in front per TRUST_PROXY): anyone else could mark every request sampled
 * and have it recorded whatever the sample ratio, or write into another request's trace.
 */
export function traceRequests(listener: 'public' | 'internal', trustCaller: boolean): RequestHandler {
  return (req, res, next) => {
    if (!tracingOn()) return next();
    const started = startSpan(
      req.method,
      { 'http.request.method': req.method, 'url.path': req.path, 'platform.listener': listener },
      { parent: trustCaller ? propagation.extract(ROOT_CONTEXT, req.headers) : ROOT_CONTEXT, kind: SpanKind.SERVER },
    );
    if (!started) return next();
    const { span } = started;
    res.once('close', () => {
      const route = routeTemplate(req);
      if (route) {
        span.updateName(`${req.method} ${route}`);
        span.setAttribute('http.route', route);
      }
      span.setAttribute('http.response.status_code', res.statusCode);
      if (req.id) span.setAttribute('request.id', req.id);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      // A client that went away before the answer was written.
      if (!res.writableFinished) span.setAttribute('http.aborted', true);
      span.end();
    });
    withContext(started.context, next);
  };
}
