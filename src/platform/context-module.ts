import type { Router } from 'express';
import type { ToolProvider, ToolRegistry } from './agent-tools';
import type { AuditCatalog } from './audit/catalog';
import type { StreamTail } from './subscriptions/stream-tail';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { CommandHandler } from './command-handling/command-handler';
import type { Config } from './config';
import type { EventStore } from './eventstore/types';
import type { GatewayStages } from './http/gateway';
import type { Cache } from './infra/cache';
import type { Projector } from './projection-runner/projector';
import type { ProjectionRunner } from './projection-runner/runner';
import type { Reactor } from './reactors/reactor';
import type { ReactorRunner } from './reactors/runner';
import type { ScheduledHandler } from './scheduling/due-lane';
import type { ApiDescription } from './openapi/describe';

/** What every context receives from the composition root; passed explicitly, never global. */
export interface PlatformDeps {
  config: Config;
  logger: Logger;
  knex: Knex;
  store: EventStore;
  handle: CommandHandler;
  projections: ProjectionRunner;
  /** Process managers on the log; routes wait on them when their answer shows a follow-up. */
  reactors: ReactorRunner;
  cache: Cache;
  clock: () => Date;
  /** Tools for agent turns, filled from every context's `agentTools`. */
  agentTools: ToolRegistry;
  /** Live followers of single streams (SSE replay + tail), one store subscription per process. */
  streamTail: StreamTail;
  /** Every context the platform runs: the audit review merges their catalogs. */
  contexts: readonly ContextModule[];
}

/**
 * A bounded context as the platform sees it (DESIGN §2): its projectors, its routers for
 * the two listeners (mounted under /api/v1) and an optional start hook (bootstrap data).
 */
export interface ContextModule {
  name: string;
  projectors?: Projector[];
  /** Its process managers: events of any context -> commands (src/platform/reactors/reactor.ts). */
  reactors?: Reactor[];
  /** What it does when a message it scheduled falls due (src/platform/scheduling/). */
  scheduledHandlers?: ScheduledHandler[];
  publicRouter?(deps: PlatformDeps): Router;
  /** Routes of the public listener outside /api/v1 and its gateway (`/.well-known/…`): public by nature. */
  rootRouter?(deps: PlatformDeps): Router;
  internalRouter?(deps: PlatformDeps): Router;
  /** Tools this context offers to agent turns (graph templates, approved exposures…). */
  agentTools?(deps: PlatformDeps): ToolProvider;
  /** Its aggregates, reviewer keys and event wording for the audit review (src/platform/audit/catalog.ts). */
  audit?: AuditCatalog;
  /** Replaces gateway stages (the identity context fills them). */
  gateway?(deps: PlatformDeps): Partial<GatewayStages>;
  /** Runs after projections have caught up, before the platform reports healthy. */
  start?(deps: PlatformDeps): Promise<void>;
  stop?(): Promise<void>;
  /** Its routes in the API contract: `src/contexts/<ctx>/openapi.ts` (issue 18). */
  openapi?: ApiDescription;
}
