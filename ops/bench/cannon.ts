/** autocannon ships no type declarations; these are the call shapes the benchmarks use. */
export interface CannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Called before each request: a fresh body per request (unique ids, rotating targets); `context` is the connection's own. */
  setupRequest?: (request: CannonRequest, context: Record<string, unknown>) => CannonRequest;
  /** Called with each response (autocannon then keeps the body). */
  onResponse?: (status: number, body: string) => void;
}

export interface CannonOptions {
  url: string;
  connections: number;
  duration: number;
  headers?: Record<string, string>;
  requests?: CannonRequest[];
}

export interface CannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  duration: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

export const autocannon = require('autocannon') as (options: CannonOptions) => Promise<CannonResult>;
