import { z, type ApiDescription, type RouteDescription } from './describe';

/** The platform's own routes: /health and the contract itself (served on both listeners). */
const Health = z
  .object({
    status: z.enum(['ok', 'degraded', 'starting']),
    degraded_projectors: z.array(z.string()).optional(),
    /** Reactors with unresolved dead letters: some follow-ups did not happen (`ops reactors status`). */
    degraded_reactors: z.array(z.string()).optional(),
    /** Scheduled-message handlers with dead-lettered messages (`ops schedule status`). */
    degraded_scheduled_handlers: z.array(z.string()).optional(),
    /** Lanes missing work now: their wake-up subscription is down, or they are behind by more than `lag_degraded_after_s`. */
    degraded_lanes: z
      .array(z.object({ name: z.string(), kind: z.string(), reason: z.enum(['subscription_down', 'behind']) }))
      .optional(),
    /** Leaderships no instance holds (`projections`, `reactors`, `scheduler`): their lanes run nowhere. */
    leaderless: z.array(z.string()).optional(),
    /** Present when the database did not answer the runtime's figures in time. */
    database: z.literal('unreachable').optional(),
    /** Every lane's lag behind the head of the log: events it has yet to handle (counted up to 100,000) and the age of the oldest (s). */
    lanes: z
      .array(
        z.object({
          name: z.string(),
          kind: z.enum(['projection', 'reactor', 'scheduler']),
          lag_events: z.number().int(),
          lag_seconds: z.number(),
          subscribed: z.boolean().nullable(),
          failures: z.number().int(),
        }),
      )
      .optional(),
    lag_degraded_after_s: z.number().optional(),
    uptime_s: z.number(),
    event_store: z.string(),
    projections: z.object({ leader: z.boolean(), caught_up: z.boolean() }).nullable(),
    reactors: z
      .object({ leader: z.boolean(), names: z.array(z.string()) })
      .nullable()
      .optional(),
  })
  .openapi('Health');

const routes: RouteDescription[] = [
  {
    method: 'get',
    path: '/health',
    root: true,
    auth: 'public',
    summary: 'Liveness and readiness (503 while starting or stopping)',
    responses: { 200: Health, 503: Health },
  },
  {
    method: 'get',
    path: '/docs',
    root: true,
    auth: 'public',
    summary: 'This reference, as a readable page',
    responses: { 200: { contentType: 'text/html', description: 'HTML page' } },
  },
  {
    method: 'get',
    path: '/openapi.json',
    auth: 'public',
    summary: 'This OpenAPI 3.1 document',
    responses: { 200: z.object({ openapi: z.string(), paths: z.record(z.unknown()) }).passthrough() },
  },
];

/**
 * Prometheus's scrape target, on the internal listener. The public listener serves it only to
 * `Authorization: Bearer $METRICS_TOKEN` and otherwise answers 404, so its document leaves it out
 * (docs/operations.md#metrics).
 */
const metrics: RouteDescription = {
  method: 'get',
  path: '/metrics',
  root: true,
  auth: 'public',
  summary: 'Prometheus metrics of this instance (text exposition format 0.0.4)',
  responses: { 200: { contentType: 'text/plain', description: 'Prometheus text exposition' } },
};

export const platformApi: ApiDescription = {
  tag: 'platform',
  public: () => routes,
  internal: () => [...routes, metrics],
};
