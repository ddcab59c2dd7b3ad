import { contractOf, type ContractCheck } from '../../src/platform/openapi/contract';

/** A small JSON client over fetch for integration tests. */
export interface HttpResponse<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

export type HeaderMap = Record<string, string>;

export interface HttpClient {
  request<T = any>(
    method: string,
    path: string,
    options?: { body?: unknown; headers?: HeaderMap; raw?: BodyInit },
  ): Promise<HttpResponse<T>>;
  get<T = any>(path: string, headers?: HeaderMap): Promise<HttpResponse<T>>;
  delete<T = any>(path: string, headers?: HeaderMap): Promise<HttpResponse<T>>;
  post<T = any>(path: string, body?: unknown, headers?: HeaderMap): Promise<HttpResponse<T>>;
  put<T = any>(path: string, body?: unknown, headers?: HeaderMap): Promise<HttpResponse<T>>;
  patch<T = any>(path: string, body?: unknown, headers?: HeaderMap): Promise<HttpResponse<T>>;
}

/** Sees every response; throwing fails the request. */
export type ResponseHook = (method: string, path: string, response: HttpResponse) => void | Promise<void>;

const served = new Map<string, Promise<ContractCheck | null>>();

/**
 * The default hook: checks every response against the OpenAPI document the server itself
 * serves at `<baseUrl>/openapi.json` (fetched once per server). A route the document does
 * not describe is left to the route-walk test (tests/integration/openapi), which fails for it.
 */
export function servedContractHook(baseUrl: string): ResponseHook {
  return async (method, path, response) => {
    let loading = served.get(baseUrl);
    if (!loading) {
      loading = fetch(`${baseUrl}/openapi.json`)
        .then(async (r) =>
          r.ok && (r.headers.get('content-type') ?? '').includes('json') ? contractOf(await r.json()) : null,
        )
        .catch(() => null);
      served.set(baseUrl, loading);
    }
    const contract = await loading;
    if (!contract) return;
    const verdict = contract.check(
      method,
      new URL(baseUrl + path).pathname,
      response.status,
      response.headers.get('content-type') ?? '',
      response.body,
    );
    if (!verdict.ok && !verdict.undescribed) throw new Error(`API contract: ${verdict.reason}`);
  };
}

export function httpClient(
  baseUrl: string,
  defaults: HeaderMap = {},
  onResponse: ResponseHook = servedContractHook(baseUrl),
): HttpClient {
  async function request<T>(
    method: string,
    path: string,
    options: { body?: unknown; headers?: HeaderMap; raw?: BodyInit } = {},
  ): Promise<HttpResponse<T>> {
    const headers: HeaderMap = { ...defaults, ...(options.headers ?? {}) };
    let body: BodyInit | undefined = options.raw;
    if (options.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(options.body);
    }
    const response = await fetch(baseUrl + path, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    const result = { status: response.status, body: parsed as T, text, headers: response.headers };
    await onResponse(method, path, result);
    return result;
  }
  return {
    request,
    get: (path, headers) => request('GET', path, { headers }),
    delete: (path, headers) => request('DELETE', path, { headers }),
    post: (path, body, headers) => request('POST', path, { body, headers }),
    put: (path, body, headers) => request('PUT', path, { body, headers }),
    patch: (path, body, headers) => request('PATCH', path, { body, headers }),
  };
}
