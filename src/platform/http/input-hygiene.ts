import type { RequestHandler } from 'express';
import { type FieldIssue, Invalid, ValidationFailed } from '../domain-errors';

/**
 * The one input-hygiene stage every request passes, on both listeners, before any route
 * (and, for the URL, before the gateway) sees it. Routes added later inherit it: nothing
 * here knows a path. What it refuses never reaches a parser, a database or a log line:
 *
 * - a path or query with a malformed `%` escape (or one decoding to invalid UTF-8) → 400;
 * - a NUL (or other C0 control but tab/newline) in the decoded path or query → 400, since
 *   PostgreSQL text cannot hold NUL and a query-template parameter would otherwise fail
 *   deep inside the store as a 5xx;
 * - a JSON body nested deeper than `maxDepth` → 400, before anything recursive (canonical
 *   JSON, property encoding, zod) walks it;
 * - a NUL or a lone UTF-16 surrogate in any JSON string or key → 422 naming the field;
 * - a `__proto__` key anywhere in a JSON body → 422, an unknown field like any other.
 *
 * The offending bytes are never echoed or logged: refusals are logged at warn with the
 * rule that fired and the field's location only.
 */
export const DEFAULT_MAX_JSON_DEPTH = 64;

// eslint-disable-next-line no-control-regex
const URL_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;
// eslint-disable-next-line no-control-regex
const NUL = /\u0000/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function decodeComponent(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/** Why a raw request target is refused, or null when it is clean. */
export function urlProblem(rawUrl: string): string | null {
  const q = rawUrl.indexOf('?');
  const path = q === -1 ? rawUrl : rawUrl.slice(0, q);
  const query = q === -1 ? '' : rawUrl.slice(q + 1);
  const decodedPath = decodeComponent(path);
  if (decodedPath === null) return 'malformed percent-encoding in the path';
  if (URL_CONTROL.test(decodedPath)) return 'control character in the path';
  if (query) {
    for (const pair of query.split('&')) {
      const decoded = decodeComponent(pair.replace(/\+/g, ' '));
      if (decoded === null) return 'malformed percent-encoding in the query string';
      if (URL_CONTROL.test(decoded)) return 'control character in the query string';
    }
  }
  return null;
}

export type BodyProblem = { status: 400; message: string } | { status: 422; issue: FieldIssue };

/**
 * Walks a parsed JSON value without recursion (a hostile depth must not overflow this
 * check either) and reports the first problem found.
 */
export function bodyProblem(body: unknown, maxDepth = DEFAULT_MAX_JSON_DEPTH): BodyProblem | null {
  if (body === null || typeof body !== 'object') return typeof body === 'string' ? stringProblem(body, []) : null;
  const stack: Array<{ value: unknown; path: Array<string | number>; depth: number }> = [
    { value: body, path: [], depth: 1 },
  ];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      const problem = stringProblem(value, path);
      if (problem) return problem;
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth > maxDepth) return { status: 400, message: `JSON body nested deeper than ${maxDepth} levels` };
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: [...path, i], depth: depth + 1 });
      continue;
    }
    for (const key of Object.keys(value)) {
      if (key === '__proto__')
        return {
          status: 422,
          issue: { loc: ['body', ...path, key], msg: 'Unrecognized key: "__proto__"', type: 'unrecognized_keys' },
        };
      const problem = stringProblem(key, path, true);
      if (problem) return problem;
      stack.push({ value: (value as Record<string, unknown>)[key], path: [...path, key], depth: depth + 1 });
    }
  }
  return null;
}

function stringProblem(text: string, path: Array<string | number>, isKey = false): BodyProblem | null {
  const what = isKey ? 'a key' : 'a string';
  if (NUL.test(text))
    return {
      status: 422,
      issue: {
        loc: ['body', ...path],
        msg: `${what} contains a NUL character (\\u0000), which is not accepted`,
        type: 'string.nul',
      },
    };
  if (LONE_SURROGATE.test(text))
    return {
      status: 422,
      issue: {
        loc: ['body', ...path],
        msg: `${what} contains an unpaired UTF-16 surrogate, which is not valid Unicode`,
        type: 'string.lone_surrogate',
      },
    };
  return null;
}

/** First stage of both apps: the request target. */
export const urlHygiene: RequestHandler = (req, _res, next) => {
  const problem = urlProblem(req.originalUrl ?? req.url);
  if (!problem) return next();
  req.log?.warn({ rule: problem, method: req.method }, 'request refused by input hygiene');
  next(new Invalid(`Malformed request: ${problem}`));
};

/** Right after the JSON body parser: the parsed body. */
export function bodyHygiene(maxDepth = DEFAULT_MAX_JSON_DEPTH): RequestHandler {
  return (req, _res, next) => {
    if (req.body === undefined) return next();
    const problem = bodyProblem(req.body, maxDepth);
    if (!problem) return next();
    if (problem.status === 400) {
      req.log?.warn({ rule: problem.message }, 'request refused by input hygiene');
      return next(new Invalid(`Malformed request: ${problem.message}`));
    }
    req.log?.warn({ rule: problem.issue.type, loc: problem.issue.loc }, 'request refused by input hygiene');
    next(new ValidationFailed([problem.issue]));
  };
}
