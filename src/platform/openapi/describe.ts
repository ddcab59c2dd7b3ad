import {
  extendZodWithOpenApi,
  OpenAPIRegistry,
  OpenApiGeneratorV31,
  type ResponseConfig,
  type RouteConfig,
} from '@asteasolutions/zod-to-openapi';
import { z, type ZodObject, type ZodRawShape, type ZodTypeAny } from 'zod';
import { UPLOAD_LIMIT_BYTES } from '../infra/extraction/extract';
import { type BodyLimit, DEFAULT_JSON_LIMIT_BYTES, readableBytes } from '../http/body-limits';
import { outputBounds } from './output-bounds';

extendZodWithOpenApi(z);

/**
 * The API contract: every context describes its routes in
 * `src/contexts/<ctx>/openapi.ts` with the SAME zod schemas its router parses with, and the
 * document for each listener is generated from those descriptions. Paths are written as the
 * router writes them (express `:param` syntax, relative to /api/v1).
 */
export type Listener = 'public' | 'internal';
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A response: a zod schema for a JSON body, `null` for no body, or the long form. */
export type ResponseSpec =
  | ZodTypeAny
  | null
  | {
      description?: string;
      schema?: ZodTypeAny;
      contentType?:
        | 'application/json'
        | 'text/event-stream'
        | 'text/html'
        | 'text/plain'
        | 'application/pdf'
        | 'application/zip'
        | '*/*';
      /** SSE routes: each named event's `data` (JSON) schema; the content type becomes text/event-stream. */
      events?: Record<string, ZodTypeAny>;
    };

/** An SSE stream's frames as one schema: `{id?, event, data}` per named event. */
export function sseFrames(events: Record<string, ZodTypeAny>): ZodTypeAny {
  const frames = Object.entries(events).map(([event, data]) =>
    z.object({ id: z.string().optional(), event: z.literal(event), data }).openapi({ title: event }),
  );
  const schema =
    frames.length === 1 ? frames[0] : z.union(frames as unknown as [ZodTypeAny, ZodTypeAny, ...ZodTypeAny[]]);
  return schema.openapi({
    description:
      'Server-sent events: each frame is `id:` (resume with Last-Event-ID), `event:` and one JSON line of `data:`; `: heartbeat` comments keep it open.',
  });
}

export interface RouteDescription {
  method: Method;
  /** Express syntax, relative to /api/v1 (`/auth/admin/users/:id`); absolute when `root` is set. */
  path: string;
  summary: string;
  description?: string;
  /** `public`: no token needed (src/contexts/identity/public-paths.ts); `user` (default): bearer or cookie. */
  auth?: 'public' | 'user';
  params?: ZodObject<ZodRawShape>;
  query?: ZodObject<ZodRawShape>;
  headers?: ZodObject<ZodRawShape>;
  /** JSON body schema, or `'multipart'` for a `file` upload. */
  body?: ZodTypeAny | 'multipart';
  /** A JSON body route that also takes a multipart `file` upload. */
  alsoMultipart?: boolean;
  /** The largest upload a multipart route takes, in bytes (default `UPLOAD_LIMIT_BYTES`, 10 MB). */
  uploadLimit?: number;
  /** The largest JSON body this route takes, in bytes, when it differs from its context's `bodyLimit`. */
  bodyLimit?: number;
  /** Success responses by status. */
  responses: { [status: number]: ResponseSpec | undefined };
  /** Error statuses this route answers beyond the standard ones (see `standardErrors`). */
  errors?: number[];
  /** Extra error body shapes by status (accepted besides the standard body), e.g. a structured 422 refusal. */
  errorBodies?: { [status: number]: ZodTypeAny };
  /** Mounted outside /api/v1 (health, docs). */
  root?: boolean;
  tags?: string[];
}

/**
 * What a context exports from `src/contexts/<ctx>/openapi.ts`. The route lists are functions so
 * the description may import route-local schemas from its router while the router's module
 * imports the description (the lists are read only when a document is built).
 */
export interface ApiDescription {
  /** The tag its routes are grouped under. */
  tag: string;
  /** The largest JSON body its routes take, in bytes (default `DEFAULT_JSON_LIMIT_BYTES`, 2 MB); a route may name its own. */
  bodyLimit?: number;
  public?: () => RouteDescription[];
  internal?: () => RouteDescription[];
}

// ---- error bodies ---------------------------------------------------------

export const ErrorDetail = z
  .object({ detail: z.string() })
  .passthrough()
  .openapi('ErrorDetail', { description: 'A backend error: `{detail}` (extra fields may accompany some conflicts).' });

export const ValidationIssue = z
  .object({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() })
  .openapi('ValidationIssue');

export const ValidationError = z.object({ detail: z.array(ValidationIssue) }).openapi('ValidationError', {
  description: 'Request validation failed: one issue per field, `loc` = [part, field…].',
});

export const GatewayErrorBody = z.object({ error: z.string() }).openapi('GatewayError', {
  description: 'An error from the gateway (authentication, role gates, rate limit, start-up).',
});

const ERROR_TEXT: Record<number, string> = {
  400: 'Malformed request',
  401: 'Not authenticated',
  403: 'Forbidden',
  404: "Not found (another tenant's resource answers the same)",
  409: 'Conflict',
  413: 'Body too large',
  415: 'Unsupported media type',
  422: 'Validation failed',
  429: 'Rate limited',
  500: 'Internal server error',
  503: 'Unavailable (starting, or a dependency is down)',
};

function errorSchema(status: number, extra?: ZodTypeAny): ZodTypeAny {
  const standard: ZodTypeAny[] =
    status === 422
      ? [ValidationError, ErrorDetail]
      : status === 401 || status === 403 || status === 429 || status === 503
        ? [GatewayErrorBody, ErrorDetail]
        : [ErrorDetail];
  const all = extra ? [...standard, extra] : standard;
  return all.length === 1 ? all[0] : z.union(all as [ZodTypeAny, ZodTypeAny, ...ZodTypeAny[]]);
}

/** The errors every route may answer, from how it is mounted and what it parses. */
export function standardErrors(route: RouteDescription, listener: Listener): number[] {
  // 400: the input-hygiene stage refuses a malformed URL (bad escape, control character) on any route.
  const statuses = new Set<number>([400, 404, 500, 503, ...(route.errors ?? [])]);
  if (!route.root && listener === 'public') {
    statuses.add(429);
    if (route.auth !== 'public') {
      statuses.add(401);
      statuses.add(403);
    }
  }
  if (listener === 'internal' && !route.root) statuses.add(401).add(403);
  if (route.params || route.query || route.body || route.headers) statuses.add(422);
  if (route.body) statuses.add(413).add(415);
  if (route.method !== 'get') statuses.add(409);
  return [...statuses].sort();
}

export const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

function responseConfig(status: number, spec: ResponseSpec): ResponseConfig {
  if (spec === null) return { description: status === 204 ? 'No content' : 'No body' };
  if (spec instanceof z.ZodType) return { description: 'OK', content: { 'application/json': { schema: spec } } };
  if (spec.events)
    return {
      description: spec.description ?? 'Event stream',
      content: { 'text/event-stream': { schema: sseFrames(spec.events) } },
    };
  const contentType = spec.contentType ?? 'application/json';
  return {
    description: spec.description ?? 'OK',
    ...(spec.schema || contentType !== 'application/json'
      ? { content: { [contentType]: { schema: spec.schema ?? z.string() } } }
      : {}),
  };
}

/**
 * Who may call: the session token by header or cookie; on a public path also nobody (`{}`),
 * while a good token there is still resolved. The root routes (health, docs)
 * have no gateway. On the internal listener (127.0.0.1 only, no gateway) the local caller
 * asserts the identity with `X-Tenant-Id` and `X-User-Id`; the token-resolving route reads the
 * session token itself.
 */
function security(route: RouteDescription, listener: Listener): Record<string, string[]>[] {
  if (route.root) return [];
  const session: Record<string, string[]>[] = [{ bearer: [] }, { cookie: [] }];
  if (listener === 'internal')
    return route.auth === 'public' ? session : [{ internal_tenant: [], internal_user: [] }, { internal_tenant: [] }];
  return route.auth === 'public' ? [{}, ...session] : session;
}

/** A multipart `file` upload: its length is the route's byte limit (the parser answers 413 past it). */
const uploadSchema = (maxBytes: number) =>
  z.object({
    file: z.string().openapi({
      format: 'binary',
      maxLength: maxBytes,
      description: `At most ${Math.round(maxBytes / (1024 * 1024))} MB (413 past it).`,
    }),
  });

/** A JSON body route's limit: its own, else its context's, else the platform's (413 past it). */
const jsonLimitOf = (route: RouteDescription, description: ApiDescription) =>
  route.bodyLimit ?? description.bodyLimit ?? DEFAULT_JSON_LIMIT_BYTES;

/** The body limit of every JSON body route of a listener, for the parser (src/platform/http/body-limits.ts). */
export function bodyLimitsOf(descriptions: ApiDescription[], listener: Listener): BodyLimit[] {
  return descriptions.flatMap((description) =>
    routesOf(description, listener)
      .filter((route) => route.body && route.body !== 'multipart' && !route.root)
      .map((route) => ({ method: route.method, path: route.path, bytes: jsonLimitOf(route, description) })),
  );
}

function register(
  registry: OpenAPIRegistry,
  route: RouteDescription,
  listener: Listener,
  description: ApiDescription,
): void {
  const tag = description.tag;
  const responses: RouteConfig['responses'] = {};
  for (const [status, spec] of Object.entries(route.responses))
    if (spec !== undefined) responses[status] = responseConfig(Number(status), spec);
  for (const status of new Set([
    ...standardErrors(route, listener),
    ...Object.keys(route.errorBodies ?? {}).map(Number),
  ])) {
    responses[String(status)] ??= {
      description: ERROR_TEXT[status] ?? 'Error',
      content: { 'application/json': { schema: errorSchema(status, route.errorBodies?.[status]) } },
    };
  }
  const upload = { 'multipart/form-data': { schema: uploadSchema(route.uploadLimit ?? UPLOAD_LIMIT_BYTES) } };
  const body =
    route.body === 'multipart'
      ? { content: upload, required: true }
      : route.body
        ? {
            content: {
              'application/json': { schema: route.body },
              ...(route.alsoMultipart ? upload : {}),
            },
            required: true,
          }
        : undefined;
  const name = route.path.replace(/[:/{}-]+/g, '_').replace(/^_|_$/g, '');
  // Every operation says what it does, how large a body it takes, and, for a write without a body, that it takes none.
  const limit =
    route.body === 'multipart'
      ? (route.uploadLimit ?? UPLOAD_LIMIT_BYTES)
      : route.body
        ? jsonLimitOf(route, description)
        : null;
  const limitText =
    limit === null
      ? null
      : route.body === 'multipart'
        ? `Upload: at most ${readableBytes(limit)} (413 past it).`
        : `Request body: at most ${readableBytes(limit)} of JSON (413 past it).`;
  const text = [
    route.description ?? `${route.summary}.`,
    limitText,
    route.method !== 'get' && !route.body ? 'No request body: a body sent is ignored.' : null,
  ]
    .filter(Boolean)
    .join('\n\n');
  registry.registerPath({
    method: route.method,
    path: (route.root ? '' : '/api/v1') + openApiPath(route.path),
    operationId: `${listener === 'internal' ? 'internal_' : ''}${route.method}_${name || 'root'}`,
    summary: route.summary,
    description: text,
    ...(limit === null ? {} : { 'x-body-limit': limit }),
    tags: route.tags ?? [tag],
    security: security(route, listener),
    request: {
      ...(route.params ? { params: route.params } : {}),
      ...(route.query ? { query: route.query } : {}),
      ...(route.headers ? { headers: route.headers } : {}),
      ...(body ? { body } : {}),
    },
    responses,
  });
}

const routesOf = (description: ApiDescription, listener: Listener) =>
  (listener === 'public' ? description.public : description.internal)?.() ?? [];

export interface DocumentOptions {
  listener: Listener;
  version?: string;
}

/** The OpenAPI 3.1 document of one listener, built from the descriptions of the running contexts. */
export function buildOpenApiDocument(descriptions: ApiDescription[], options: DocumentOptions) {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'Session token from POST /api/v1/auth/token: a JWT handled per RFC8725 (HS256 only, `exp`, `iat` and issuer required, no `kid`/`jku`/`jwk`/`x5u` headers).',
  });
  registry.registerComponent('securitySchemes', 'cookie', {
    type: 'apiKey',
    in: 'cookie',
    name: 'svc_token',
    description: 'The HttpOnly session cookie set at login',
  });
  if (options.listener === 'internal') {
    const asserted = 'asserted by the local caller: the internal listener binds 127.0.0.1 only and has no gateway';
    registry.registerComponent('securitySchemes', 'internal_tenant', {
      type: 'apiKey',
      in: 'header',
      name: 'X-Tenant-Id',
      description: `The tenant, ${asserted} (at most 128 characters).`,
    });
    registry.registerComponent('securitySchemes', 'internal_user', {
      type: 'apiKey',
      in: 'header',
      name: 'X-User-Id',
      description: `The user, ${asserted} (at most 128 characters); with \`X-Permissions\` (a comma list, at most 4,096 characters).`,
    });
  }
  registry.register('ErrorDetail', ErrorDetail);
  registry.register('ValidationError', ValidationError);
  registry.register('GatewayError', GatewayErrorBody);
  for (const description of descriptions) {
    for (const route of routesOf(description, options.listener))
      register(registry, route, options.listener, description);
  }
  const generator = new OpenApiGeneratorV31(registry.definitions);
  const tags = [
    ...new Map(
      descriptions
        .flatMap((d) => routesOf(d, options.listener).flatMap((r) => r.tags ?? [d.tag]))
        .map((tag) => [tag, { name: tag, description: `Routes of the ${tag} context` }]),
    ).values(),
  ];
  const document = generator.generateDocument({
    openapi: '3.1.0',
    tags,
    info: {
      title:
        options.listener === 'public' ? 'Compliance platform API' : 'Compliance platform internal API (127.0.0.1 only)',
      version: options.version ?? '0.1.0',
      description:
        options.listener === 'public'
          ? 'Every route of the public listener. Errors: backend `{detail: string}`, validation 422 `{detail: [{loc, msg, type}]}`, gateway `{error}`.'
          : 'Routes of the internal listener: no gateway; local services name the tenant with `X-Tenant-Id` where a route needs one.',
    },
    servers: [{ url: '/', 'x-internal': options.listener === 'internal' } as { url: string }],
  });
  impliedBounds(document);
  outputBounds(document);
  // A path parameter is always required (a coercing schema such as `z.coerce.number()` reads as optional to the generator).
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(
      item as Record<string, { parameters?: Array<{ in: string; required?: boolean }> }>,
    )) {
      for (const parameter of operation.parameters ?? []) if (parameter.in === 'path') parameter.required = true;
    }
  }
  return document;
}

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;

/** `type: 'integer'`, or `type: ['integer', 'null']` for a nullable one. */
const isType = (schema: Record<string, unknown>, type: string) =>
  schema.type === type || (Array.isArray(schema.type) && schema.type.includes(type));

/** Lengths a format's own check already fixes (zod's uuid and date patterns match exactly this many characters). */
const FORMAT_LENGTH: Record<string, number> = { uuid: 36, date: 10 };
const INT32 = 2 ** 31;

/**
 * Writes into the document the bounds the checks already enforce but the generator leaves
 * out: a uuid or date string's length, and an integer's format when its range
 * fits int32 or int64. Nothing is added that the zod schema does not check.
 */
function impliedBounds(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(impliedBounds);
  if (!node || typeof node !== 'object') return;
  const schema = node as Record<string, unknown>;
  if (
    isType(schema, 'string') &&
    typeof schema.format === 'string' &&
    FORMAT_LENGTH[schema.format] &&
    schema.maxLength === undefined
  )
    schema.maxLength = FORMAT_LENGTH[schema.format];
  if (isType(schema, 'integer') && schema.format === undefined) {
    const low =
      typeof schema.minimum === 'number'
        ? schema.minimum
        : typeof schema.exclusiveMinimum === 'number'
          ? schema.exclusiveMinimum
          : null;
    const high =
      typeof schema.maximum === 'number'
        ? schema.maximum
        : typeof schema.exclusiveMaximum === 'number'
          ? schema.exclusiveMaximum
          : null;
    if (low !== null && high !== null) schema.format = low >= -INT32 && high < INT32 ? 'int32' : 'int64';
  }
  for (const value of Object.values(schema)) impliedBounds(value);
}

/** zod with `.openapi()` (names and examples): description files import `z` from here. */
export { z };
