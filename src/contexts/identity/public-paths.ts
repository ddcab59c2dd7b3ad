/**
 * Which paths (relative to /api/v1) skip authentication and which the public
 * gateway must answer 404 for because they exist only on the internal listener
 * (docs/http-api.md). Shared by the authentication and rate-limit stages. Paths are compared in a
 * normalised form (decoded, lower-case, single slashes, no trailing slash) because Express
 * routes case-insensitively and ignores a trailing slash: `/AUTH/Resolve/` must not slip by.
 */
export function normalizePath(path: string): string {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // Malformed escapes stay as sent; no route matches them either.
  }
  const collapsed = decoded.toLowerCase().replace(/\/{2,}/g, '/');
  return collapsed.length > 1 && collapsed.endsWith('/') ? collapsed.slice(0, -1) : collapsed;
}

interface PublicPath {
  methods: string[] | '*';
  pattern: RegExp;
  /** Callable without identity; a valid token is still resolved and stamped when present. */
  description: string;
}

export const PUBLIC_PATHS: readonly PublicPath[] = [
  { methods: ['POST'], pattern: /^\/auth\/token$/, description: 'log in' },
  { methods: ['GET', 'HEAD'], pattern: /^\/auth\/invites\/[^/]+$/, description: 'inspect an invite or reset token' },
  { methods: ['POST'], pattern: /^\/auth\/invites\/redeem$/, description: 'redeem an invite or reset token' },
  { methods: ['POST'], pattern: /^\/auth\/logout$/, description: 'expire the session cookie' },
  { methods: ['POST'], pattern: /^\/auth\/validate$/, description: 'legacy claims-only decode' },
  { methods: ['GET', 'HEAD'], pattern: /^\/openapi\.json$/, description: 'the API contract (OpenAPI document)' },
  {
    methods: ['GET', 'HEAD'],
    pattern: /^\/(entity-types|relationship-rules|relationship-types)(\/.*)?$/,
    description: 'graph configuration reads',
  },
];

export function isPublicPath(method: string, path: string): boolean {
  const normalized = normalizePath(path);
  const verb = method.toUpperCase();
  return PUBLIC_PATHS.some((p) => (p.methods === '*' || p.methods.includes(verb)) && p.pattern.test(normalized));
}

const INTERNAL_ONLY: readonly RegExp[] = [
  /^\/auth\/resolve$/,
  // Connector service routes: status check, bindings for tool building, agent execute.
  /^\/connectors(\/[^/]+)*\/(status|bindings|execute)(\/.*)?$/,
  /^\/extract(\/.*)?$/,
  /^\/duplication-rules(\/.*)?$/,
];

export function isInternalOnlyPath(path: string): boolean {
  const normalized = normalizePath(path);
  return INTERNAL_ONLY.some((pattern) => pattern.test(normalized));
}
