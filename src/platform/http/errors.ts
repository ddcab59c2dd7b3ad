import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ZodError } from 'zod';
import { DomainError } from '../domain-errors';
import { EventStoreUnavailableError } from '../eventstore/types';
import { isConnectionLoss } from '../infra/connection-loss';
import { readableBytes } from './body-limits';
import { issuesOf } from './validation';

const STATUS: Record<DomainError['kind'], number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unsupported_media: 415,
  validation: 422,
  rate_limited: 429,
  unavailable: 503,
};

/** Gateway-originated errors use `{error}`, backend ones `{detail}`. */
export class GatewayError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const notFoundHandler: RequestHandler = (req, res) => {
  res.status(404).json({ detail: `No route for ${req.method} ${req.path}` });
};

/** The one place that turns errors into HTTP. Every 5xx is logged with the request id. */
export const errorHandler: ErrorRequestHandler = (error, req, res, _next) => {
  if (res.headersSent) {
    req.log?.error({ err: error }, 'error after the response started');
    res.destroy();
    return;
  }
  if (error instanceof GatewayError) {
    res.status(error.status).json({ error: error.message });
    return;
  }
  if (error instanceof DomainError) {
    const status = STATUS[error.kind];
    if (status >= 500) req.log?.error({ err: error }, 'service unavailable');
    const detail = error.kind === 'validation' ? (error as unknown as { issues: unknown }).issues : error.message;
    res.status(status).json({ detail, ...(error.body ?? {}) });
    return;
  }
  if (error instanceof ZodError) {
    res.status(422).json({ detail: issuesOf(error, 'body') });
    return;
  }
  // body-parser's own errors carry an http status and a type.
  const typed = error as { type?: string; status?: number; expose?: boolean; limit?: number };
  if (typed.type === 'entity.parse.failed') {
    res.status(400).json({ detail: 'Malformed JSON body' });
    return;
  }
  if (typed.type === 'entity.too.large') {
    res.status(413).json({
      detail: typed.limit
        ? `Request body too large: this route takes at most ${readableBytes(typed.limit)}`
        : 'Request body too large',
    });
    return;
  }
  if (typed.expose && typed.status && typed.status >= 400 && typed.status < 500) {
    res.status(typed.status).json({ detail: (error as Error).message });
    return;
  }
  // Second wall behind the input-hygiene stage (src/platform/http/input-hygiene.ts): what a client
  // sent is never a 5xx. A router's own 4xx (a parameter it could not decode), a URIError,
  // and PostgreSQL's data exceptions (class 22: a value the column cannot hold) and
  // program-limit errors (54: e.g. a key too long for an index) are the client's input.
  if (typed.status && typed.status >= 400 && typed.status < 500) {
    req.log?.warn({ status: typed.status, type: typed.type }, 'request refused');
    res.status(typed.status).json({ detail: 'Malformed request' });
    return;
  }
  if (error instanceof URIError) {
    req.log?.warn('request refused: malformed percent-encoding');
    res.status(400).json({ detail: 'Malformed request: malformed percent-encoding' });
    return;
  }
  const pgCode = (error as { code?: unknown }).code;
  if (typeof pgCode === 'string' && /^(22|54)[0-9A-Z]{3}$/.test(pgCode)) {
    req.log?.warn({ pgCode }, 'request refused: a value the database cannot hold');
    res.status(400).json({ detail: 'Malformed request: a value is not acceptable here' });
    return;
  }
  if (error instanceof EventStoreUnavailableError || isConnectionLoss(error)) {
    req.log?.error({ err: error }, 'a dependency is unavailable');
    res.status(503).json({ error: 'service unavailable' });
    return;
  }
  req.log?.error({ err: error }, 'unhandled error');
  res.status(500).json({ detail: 'Internal server error' });
};
