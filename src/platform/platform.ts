import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type Redis from 'ioredis';
import { type Express, type RequestHandler, Router } from 'express';
import { createHealthApi } from './http/health';
import { createCommandHandler } from './command-handling/command-handler';
import { createSnapshotStore } from './command-handling/snapshots';
import { createToolRegistry } from './agent-tools';
import { createStreamTail } from './subscriptions/stream-tail';
import type { Config } from './config';
import type { ContextModule, PlatformDeps } from './context-module';
import { createInternalApp, createPublicApp } from './http/app';
import { CONSOLE_ROOT } from './http/console';
import { outlastClientIdle } from './http/keep-alive';
import { defaultGatewayStages, type GatewayStages } from './http/gateway';
import { createRateLimitStage } from './http/rate-limit';
import { type Cache, connectRedis, createMemoryCache, createRedisCache } from './infra/cache';
import type { Database } from './infra/database';
import { type Infrastructure, openInfrastructure } from './infra/infrastructure';
import { createLogger } from './infra/logger';
import { startTracing } from './observability/tracing';
import { createAdvisoryLeaderLock, type LeaderLock, PROJECTOR_LOCK_KEY } from './projection-runner/leader-lock';
import { ProjectionRunner } from './projection-runner/runner';
import { degradedProjectors } from './projection-runner/dead-letters';
import { TAIL_EVENTS } from './projection-runner/lane-runtime';
import { WakeUps } from './projection-runner/wake-ups';
import { ReactorRunner } from './reactors/runner';
import type { RuntimeView } from './runtime/report';
import { createRuntimeView } from './runtime/view';
import { REACTOR_LOCK_KEY } from './reactors/reactor-lock';
import { DueMessageLane, SCHEDULER_LOCK_KEY } from './scheduling/due-lane';
import { degradedScheduledHandlers, scheduleProjector } from './scheduling/schedule';
import { createPlatformMetrics } from './observability/metrics';
import { instrumentStore } from './observability/instrumented-store';
import { internalMetricsRouter, publicMetricsRouter } from './observability/http-metrics';
import { runtimeSnapshot } from './observability/runtime-snapshot';
import { bodyLimitsOf } from './openapi/describe';
import { descriptionsOf, openApiRouters } from './openapi/serve';

export interface PlatformOptions {
  config: Config;
  logger?: Logger;
  /** The product's contexts (`src/contexts.ts`), in start order; tests pass toy lists. */
  contexts: ContextModule[];
}

export interface Platform {
  deps: PlatformDeps;
  db: Database;
  publicUrl: string | null;
  internalUrl: string;
  /** The express apps of the two listeners (route walks of the API contract test). */
  apps: { public: Express | null; internal: Express };
  isReady(): boolean;
  stop(): Promise<void>;
}

const neverLead: LeaderLock = { tryAcquire: async () => false, isHeld: () => false, release: async () => undefined };

function listen(server: Server, port: number, host: string): Promise<number> {
  outlastClientIdle(server);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

function closeServer(server: Server | null, graceMs: number): Promise<void> {
  if (!server) return Promise.resolve();
  return new Promise((resolve) => {
    // Finish in-flight requests, then cut the remaining keep-alive and stream connections.
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/**
 * The composition root: builds everything from one config, in dependency order, and tears
 * it down in reverse. `npm start` and the tests both come through here.
 */
export async function startPlatform(options: PlatformOptions): Promise<Platform> {
  const { config } = options;
  const logger = options.logger ?? createLogger(config.logLevel);
  const contextModules = options.contexts;
  for (const warning of config.warnings) logger.warn(`DEVELOPMENT DEFAULT: ${warning}`);
  // First, so SQL issued while starting is instrumented too (docs/operations.md#tracing).
  const tracing = startTracing(config.tracing, logger);
  if (config.tracing) logger.info({ endpoint: config.tracing.endpoint }, 'tracing on: spans exported over OTLP/HTTP');

  let ready = false;
  let stopping = false;
  let infrastructure: Infrastructure | null = null;
  let redis: Redis | null = null;
  let runner: ProjectionRunner | null = null;
  let reactors: ReactorRunner | null = null;
  let scheduler: DueMessageLane | null = null;
  let platformDeps: PlatformDeps | null = null;
  let runtimeView: RuntimeView | null = null;
  let publicServer: Server | null = null;
  let internalServer: Server | null = null;
  const started = Date.now();
  const metrics = createPlatformMetrics({ tenantLabels: config.metrics.tenantLabels });
  metrics.addEventMeters(contextModules.flatMap((c) => c.meters ?? []));

  const health = createHealthApi({
    ready: () => ready && !stopping,
    degraded: async () => {
      if (!infrastructure) return [];
      const knex = infrastructure.db.knex;
      return (await Promise.all([degradedProjectors(knex), degradedScheduledHandlers(knex)])).flat();
    },
    runtime: async () =>
      runtimeView ? runtimeView.health() : { lanes: [], leaderless: [], lagDegradedS: config.runtime.laneLagDegradedS },
    details: () => ({
      uptime_s: Math.round((Date.now() - started) / 1000),
      event_store: config.eventStore.kind,
      projections: runner ? { leader: runner.isLeader, caught_up: runner.caughtUp } : null,
      reactors: reactors ? { leader: reactors.isLeader, names: reactors.names } : null,
    }),
  });

  async function stop(): Promise<void> {
    if (stopping) return;
    stopping = true;
    logger.info('stopping: draining requests');
    await Promise.all([closeServer(publicServer, 5000), closeServer(internalServer, 5000)]);
    for (const context of [...contextModules].reverse())
      await context.stop?.().catch((err) => logger.error({ err, context: context.name }, 'context stop failed'));
    await platformDeps?.streamTail.stop();
    await scheduler?.stop();
    await reactors?.stop();
    await runner?.stop();
    await redis?.quit().catch(() => undefined);
    await infrastructure?.close();
    await tracing.stop();
    logger.info('stopped');
  }

  try {
    // The listeners start first so /health answers 503 while the rest starts; routes and
    // gateway stages are filled in once their dependencies exist.
    const publicRoutes = Router();
    const internalRoutes = Router();
    const rootRoutes = Router();
    let stages: GatewayStages = defaultGatewayStages;
    const gateway: GatewayStages = {
      authenticate: (req, res, next) => stages.authenticate(req, res, next),
      authorize: (req, res, next) => stages.authorize(req, res, next),
      rateLimit: (req, res, next) => stages.rateLimit(req, res, next),
    };
    const whileStarting: RequestHandler = (_req, res, next) =>
      ready ? next() : res.status(503).json({ error: 'service starting' });
    // The API contract of each listener answers while starting too.
    const publicContract = openApiRouters(contextModules, 'public');
    const internalContract = openApiRouters(contextModules, 'internal');
    publicRoutes.use(publicContract.api);
    internalRoutes.use(internalContract.api);
    publicRoutes.use(whileStarting);
    internalRoutes.use(whileStarting);

    let publicApp: Express | null = null;
    // Workers (projector, Kafka bridge, graph consumer) serve only /health and the internal listener.
    if (config.role === 'all' || config.role === 'api') {
      publicServer = createServer(
        (publicApp = createPublicApp({
          logger,
          metrics,
          trustProxy: config.http.trustProxy,
          health: Router().use(
            health,
            publicMetricsRouter(metrics, config.metrics.token),
            publicContract.root,
            rootRoutes,
          ),
          gateway,
          routers: [publicRoutes],
          bodyLimits: bodyLimitsOf(descriptionsOf(contextModules), 'public'),
          staticRoot: CONSOLE_ROOT,
        })),
      );
    }
    const internalApp = createInternalApp({
      logger,
      metrics,
      health: Router().use(health, internalMetricsRouter(metrics), internalContract.root),
      routers: [internalRoutes],
      bodyLimits: bodyLimitsOf(descriptionsOf(contextModules), 'internal'),
    });
    internalServer = createServer(internalApp);
    const publicPort = publicServer ? await listen(publicServer, config.http.port, config.http.host) : null;
    const internalPort = await listen(internalServer, config.http.internalPort, '127.0.0.1');
    logger.info({ publicPort, internalPort }, 'listening');

    infrastructure = await openInfrastructure(config, logger);
    const { db } = infrastructure;
    // Every append, whoever makes it, is counted and timed here once.
    const store = instrumentStore(infrastructure.store, metrics);

    let cache: Cache;
    if (config.redisUrl) {
      redis = connectRedis(config.redisUrl, logger);
      cache = createRedisCache(redis);
    } else cache = createMemoryCache();
    stages = {
      ...stages,
      rateLimit: createRateLimitStage({ config, redis, logger: logger.child({ component: 'rate-limit' }) }),
    };

    const probe = { probeMs: config.runtime.leaderProbeMs };
    // One subscription wakes the lanes of every kind, and holds the tail the projection lanes read.
    const wakeUps = new WakeUps({ store, logger: logger.child({ component: 'wake-ups' }), tailEvents: TAIL_EVENTS });
    runner = new ProjectionRunner({
      knex: db.knex,
      store,
      wakeUps,
      projectors: [scheduleProjector, ...contextModules.flatMap((c) => c.projectors ?? [])],
      logger: logger.child({ component: 'projections' }),
      metrics,
      leaderLock:
        config.role === 'api' || config.role === 'bridge'
          ? neverLead
          : createAdvisoryLeaderLock(db.url, PROJECTOR_LOCK_KEY, probe),
    });
    const leads = !(config.role === 'api' || config.role === 'bridge');
    reactors = new ReactorRunner({
      knex: db.knex,
      store,
      wakeUps,
      reactors: contextModules.flatMap((c) => c.reactors ?? []),
      deps: () => deps,
      logger: logger.child({ component: 'reactors' }),
      metrics,
      leaderLock: leads ? createAdvisoryLeaderLock(db.url, REACTOR_LOCK_KEY, probe) : neverLead,
    });
    const schedulerLock = leads ? createAdvisoryLeaderLock(db.url, SCHEDULER_LOCK_KEY, probe) : neverLead;
    scheduler = new DueMessageLane({
      deps: () => deps,
      handlers: contextModules.flatMap((c) => c.scheduledHandlers ?? []),
      leaderLock: schedulerLock,
      logger: logger.child({ component: 'scheduler' }),
      wakeUps,
      metrics,
    });
    runtimeView = createRuntimeView({
      knex: db.knex,
      projections: runner,
      reactors,
      scheduler,
      lagDegradedS: config.runtime.laneLagDegradedS,
      clock: () => new Date(),
      handle: () => deps.handle,
    });
    metrics.observeRuntime(
      runtimeSnapshot({
        view: () => runtimeView,
        knex: db.knex,
        pool: db.pool,
        leads: {
          projection: () => runner?.isLeader ?? false,
          reactor: () => reactors?.isLeader ?? false,
          scheduler: () => schedulerLock.isHeld(),
        },
      }),
    );
    const deps: PlatformDeps = {
      config,
      logger,
      knex: db.knex,
      store,
      handle: createCommandHandler({
        store,
        projections: runner,
        logger,
        snapshots: createSnapshotStore(db.knex),
        retries: config.commandRetries,
        projectionWaitMs: config.projectionWaitMs,
      }),
      projections: runner,
      reactors,
      cache,
      clock: () => new Date(),
      agentTools: createToolRegistry(),
      streamTail: createStreamTail(store, logger.child({ component: 'stream-tail' })),
      contexts: contextModules,
      metrics,
      runtime: runtimeView,
    };
    platformDeps = deps;

    for (const context of contextModules) {
      if (context.publicRouter) publicRoutes.use(context.publicRouter(deps));
      if (context.rootRouter) rootRoutes.use(context.rootRouter(deps));
      if (context.internalRouter) internalRoutes.use(context.internalRouter(deps));
      if (context.gateway) stages = { ...stages, ...context.gateway(deps) };
      if (context.agentTools) deps.agentTools.register(context.agentTools(deps));
    }

    await runner.start();
    while (!runner.caughtUp && !stopping) await new Promise((r) => setTimeout(r, 20));
    // Reactions issue commands that read the read models: they start once those are current.
    await reactors.start();
    for (const context of contextModules) await context.start?.(deps);
    await scheduler.start();
    ready = true;
    logger.info({ ms: Date.now() - started }, 'platform ready');

    return {
      deps,
      db,
      publicUrl: publicPort === null ? null : `http://127.0.0.1:${publicPort}`,
      internalUrl: `http://127.0.0.1:${internalPort}`,
      apps: { public: publicApp, internal: internalApp },
      isReady: () => ready && !stopping,
      stop,
    };
  } catch (error) {
    logger.error({ err: error }, 'start failed');
    await stop();
    throw error;
  }
}
