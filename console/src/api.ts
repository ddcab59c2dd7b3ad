/** The API client: same-origin fetch with the `svc_token` cookie; errors as readable messages. */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Field name → message, from the spec's 422 shape `{detail: [{loc, msg}]}`. */
    readonly fields: Record<string, string> = {},
    readonly body: unknown = undefined,
  ) {
    super(message);
  }
}

type Listener = () => void;
const unauthorizedListeners = new Set<Listener>();
/** Called when any request answers 401 mid-session (the session expired or was revoked). */
export function onUnauthorized(listener: Listener): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

function describe(status: number, body: unknown): { message: string; fields: Record<string, string> } {
  const fields: Record<string, string> = {};
  if (body && typeof body === 'object') {
    const b = body as { detail?: unknown; error?: unknown };
    if (Array.isArray(b.detail)) {
      const parts: string[] = [];
      for (const issue of b.detail as Array<{ loc?: unknown[]; msg?: string }>) {
        const loc = (issue.loc ?? []).slice(1).join('.');
        if (loc && !fields[loc]) fields[loc] = issue.msg ?? 'invalid';
        parts.push(loc ? `${loc}: ${issue.msg}` : String(issue.msg));
      }
      return { message: parts.join('; ') || `Request failed (${status})`, fields };
    }
    if (typeof b.detail === 'string') return { message: b.detail, fields };
    if (b.detail && typeof b.detail === 'object') {
      // Connector refusals (docs/connectors.md): `{detail: {error, reason?, fields?: {name: msg} | [names], errors?: [{message}]}}`.
      const d = b.detail as {
        error?: unknown;
        reason?: unknown;
        fields?: unknown;
        errors?: unknown;
        expected?: unknown;
      };
      const parts = [typeof d.error === 'string' ? d.error.replace(/_/g, ' ') : `Request failed (${status})`];
      if (typeof d.reason === 'string') parts.push(d.reason);
      if (d.fields && typeof d.fields === 'object' && !Array.isArray(d.fields)) {
        for (const [k, v] of Object.entries(d.fields as Record<string, unknown>)) {
          fields[k] = String(v);
          parts.push(`${k}: ${String(v)}`);
        }
      } else if (Array.isArray(d.fields)) parts.push(`fields: ${d.fields.join(', ')}`);
      if (Array.isArray(d.expected)) parts.push(`expected: ${d.expected.join(', ')}`);
      if (Array.isArray(d.errors))
        for (const e of d.errors as Array<{ message?: string }>) if (e?.message) parts.push(e.message);
      return { message: parts.join(' — '), fields };
    }
    if (typeof b.error === 'string') return { message: b.error, fields };
  }
  const generic: Record<number, string> = {
    401: 'Your session has ended; please sign in again.',
    403: 'You do not have permission to do this.',
    404: 'Not found.',
    413: 'The file is too large.',
    415: 'This file type is not supported.',
    429: 'Too many requests; try again shortly.',
  };
  return { message: generic[status] ?? `Request failed (${status})`, fields };
}

export async function request<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
  init: RequestInit = {},
): Promise<T> {
  const isForm = typeof FormData !== 'undefined' && body instanceof FormData;
  let response: Response;
  try {
    response = await fetch(`/api/v1${path}`, {
      method,
      credentials: 'same-origin',
      headers:
        body !== undefined && !isForm ? { 'content-type': 'application/json', ...(init.headers ?? {}) } : init.headers,
      body: body === undefined ? undefined : isForm ? (body as FormData) : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'The server could not be reached. Check your connection and try again.');
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  if (!response.ok) {
    if (response.status === 401 && path !== '/auth/token') for (const l of unauthorizedListeners) l();
    const { message, fields } = describe(response.status, parsed);
    throw new ApiError(response.status, message, fields, parsed);
  }
  return parsed as T;
}

export const api = {
  get: <T = unknown>(path: string) => request<T>('GET', path),
  post: <T = unknown>(path: string, body?: unknown) => request<T>('POST', path, body ?? {}),
  put: <T = unknown>(path: string, body?: unknown) => request<T>('PUT', path, body ?? {}),
  patch: <T = unknown>(path: string, body?: unknown) => request<T>('PATCH', path, body ?? {}),
  del: <T = unknown>(path: string) => request<T>('DELETE', path),
};

export function qs(params: Record<string, string | number | boolean | undefined | null>): string {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') s.set(k, String(v));
  const out = s.toString();
  return out ? `?${out}` : '';
}

export interface Me {
  user_id: string;
  email: string;
  display_name: string | null;
  tenant_id: string;
  roles: string[];
  permissions: string[];
}

/**
 * A multipart upload that reports its progress (fetch cannot): `onProgress(sent, total)` as the
 * browser sends the body; the answer and errors as `request` gives them.
 */
export function upload<T = unknown>(
  path: string,
  form: FormData,
  onProgress: (sent: number, total: number) => void,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/api/v1${path}`);
    xhr.withCredentials = true;
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : 0);
    xhr.onerror = () =>
      reject(new ApiError(0, 'The server could not be reached. Check your connection and try again.'));
    xhr.onload = () => {
      let parsed: unknown;
      try {
        parsed = xhr.responseText ? JSON.parse(xhr.responseText) : undefined;
      } catch {
        parsed = xhr.responseText;
      }
      if (xhr.status >= 200 && xhr.status < 300) return resolve(parsed as T);
      if (xhr.status === 401) for (const l of unauthorizedListeners) l();
      const { message, fields } = describe(xhr.status, parsed);
      reject(new ApiError(xhr.status, message, fields, parsed));
    };
    xhr.send(form);
  });
}
