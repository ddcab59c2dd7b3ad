import type { Router } from 'express';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { ToolProvider, ToolRegistry } from './agent-tools';
import type { AuditCatalog } from './audit/catalog';
import type { CommandContext, CommandHandler, Decision } from './command-handling/command-types';
import type { Config } from './config';
import type { EventStore, Position, RecordedEvent } from './eventstore/types';
import type { GatewayStages } from './http/gateway';
import type { Cache } from './infra/cache';
import type { EventMeter, PlatformMetrics } from './observability/metrics';
import type { DomainError } from './domain-errors';
import type { ApiDescription } from './openapi/describe';
import type { Projector } from './projection-runner/projector';
import type { ProjectionRunner } from './projection-runner/runner';
import type { RuntimeView } from './runtime/report';
import type { ScheduledMessage } from './scheduling/schedule';
import type { StreamTail } from './subscriptions/stream-tail';

/*
 * The composition root's types, in one file because they refer to each other: a context
 * module's reactors and scheduled handlers receive the platform's deps, and the deps list the
 * context modules. The runners import them from here and nothing here imports a runner but the
 * projection runner (which needs none of them).
 */

/** What every context receives from the composition root; passed explicitly, never global. */
export interface PlatformDeps {
  config: Config;
  logger: Logger;
  knex: Knex;
  store: EventStore;
  handle: CommandHandler;
  projections: ProjectionRunner;
  /** Process managers on the log; routes wait on them when their answer shows a follow-up. */
  reactors: ReactorLanes;
  cache: Cache;
  clock: () => Date;
  /** Tools for agent turns, filled from every context's `agentTools`. */
  agentTools: ToolRegistry;
  /** Live followers of single streams (SSE replay + tail), one store subscription per process. */
  streamTail: StreamTail;
  /** Every context the platform runs: the audit review merges their catalogs. */
  contexts: readonly ContextModule[];
  /** This instance's Prometheus registry (docs/operations.md#metrics). */
  metrics: PlatformMetrics;
  /** The processing runtime's lanes, leaders and dead letters (absent outside the composition root, e.g. `ops`). */
  runtime?: RuntimeView;
}

/**
 * A bounded context as the platform sees it: its projectors, its routers for
 * the two listeners (mounted under /api/v1) and an optional start hook (bootstrap data).
 */
export interface ContextModule {
  name: string;
  projectors?: Projector[];
  /** Its process managers: events of any context -> commands (src/platform/reactors/reactor.ts). */
  reactors?: AnyReactor[];
  /** What it does when a message it scheduled falls due (src/platform/scheduling/). */
  scheduledHandlers?: ScheduledHandler[];
  publicRouter?(deps: PlatformDeps): Router;
  /** Routes of the public listener outside /api/v1 and its gateway (`/.well-known/…`): public by nature. */
  rootRouter?(deps: PlatformDeps): Router;
  internalRouter?(deps: PlatformDeps): Router;
  /** Tools this context offers to agent turns (graph templates, approved exposures…). */
  agentTools?(deps: PlatformDeps): ToolProvider;
  /** Metrics it derives from the events appended through this instance (docs/recipes.md#add-a-metric). */
  meters?: EventMeter[];
  /** Its aggregates, reviewer keys and event wording for the audit review (src/platform/audit/catalog.ts). */
  audit?: AuditCatalog;
  /** Replaces gateway stages (the identity context fills them). */
  gateway?(deps: PlatformDeps): Partial<GatewayStages>;
  /** Sample data it adds to a tenant's when the graph's sample portfolio is loaded (POST /graph/seed, development only). */
  seedSamples?(deps: PlatformDeps, context: CommandContext): Promise<void>;
  /** Runs after projections have caught up, before the platform reports healthy. */
  start?(deps: PlatformDeps): Promise<void>;
  stop?(): Promise<void>;
  /** Its routes in the API contract: `src/contexts/<ctx>/openapi.ts`. */
  openapi?: ApiDescription;
}

/** The reactor runner as the deps offer it (reactors/runner.ts `ReactorRunner`). */
export interface ReactorLanes {
  readonly names: string[];
  readonly isLeader: boolean;
  start(): Promise<void>;
  stop(): Promise<void>;
  waitFor(position: Position, timeoutMs: number, eventTypes: readonly string[]): Promise<boolean>;
  retryDeadLetters(name: string): Promise<{ resolved: number; remaining: number }>;
}

/**
 * A command a reaction asks for, as data: `react(event, facts)` returns a list of these and the
 * runtime sends them, in order, through the command handler (docs/reactors.md). Specified
 * without I/O: a given/when/then test compares the commands, never their effects.
 */
export interface ReactionCommand {
  /**
   * Names the command within its reaction: its idempotency key is `reaction:<event id>:<step>`
   * (`reactionContext`), so a replay derives the same event ids and appends nothing twice.
   */
  step: string;
  /** Who the command acts for (a reviewer whose decision it carries out); the event's actor by default. */
  actorId?: string;
  /** One decision (`handle`), or several on different streams appended in one atomic write (`handle.together`). */
  writes?: Decision<any, any, any>[];
  /** Conflicts with other processes tolerated by `handle.together` (hot streams take more). */
  retries?: number;
  /**
   * A command that is a whole operation of its context rather than one decision (an assessment
   * reads the graph as it is when it runs; a superseded secret is deleted after its event):
   * `name` and `input` are what a test compares, `send` what the runtime calls.
   */
  operation?: { name: string; input: unknown; send(deps: PlatformDeps, context: CommandContext): Promise<unknown> };
  /** Refusals that are the reaction's expected outcome (a decision made meanwhile), not a failure to retry. */
  expected?: DomainError['kind'][];
  /**
   * A refusal no retry of the same facts can mend (a rule forbids it, a validation fails): the
   * command that records it instead. Without it, such a refusal fails the reaction, which is
   * then retried and dead-lettered like any other failure.
   */
  whenRefused?(reason: string): ReactionCommand | null;
}

/** What a reactor may read to decide: the log and the read models, never a write. */
export type FactReader = Pick<PlatformDeps, 'store' | 'knex' | 'config' | 'clock'>;

/**
 * A process manager on the log (Emmett's workflows, Wolverine's sagas): a named,
 * fenced, checkpointed subscription, run like a projection lane on the leader, whose pure
 * `react(event, facts)` maps one event and the facts it declares to commands, as data
 * (`ReactionCommand`, reactors/reaction.ts). The runtime loads the facts, then sends the
 * commands through the command handler. A route never writes a second aggregate after its own
 * command: what must follow elsewhere is a reactor, living with the context it writes to.
 *
 * Replays are safe because every command a reaction sends runs under `reactionContext`: the
 * triggering event as causation, its correlation, and an idempotency key derived from the
 * event's id and the command's step, so after a crash between a command and the checkpoint the
 * replayed command derives the same event ids and appends nothing twice.
 */
export interface Reactor<Facts = undefined, BatchFacts = undefined> {
  /** Checkpoint name, `<context>.<reaction>` (e.g. `connectors.secret-cleanup`). */
  name: string;
  /** Event types it reacts to; the runner skips every other event without calling it. */
  handles: readonly string[];
  /** Optional: reads what `react` decides from (the streams and read models it needs). */
  facts?(event: RecordedEvent, read: FactReader): Promise<Facts>;
  /**
   * Pure: the event and its facts → the commands to send, in order (none: nothing follows).
   * Without `facts` it takes `undefined`, so a call passing the deps (as `react` once took)
   * does not compile: it would send nothing, the runtime being what sends the commands.
   */
  react(event: RecordedEvent, facts: Facts): ReactionCommand[];
  /**
   * Optional: reacts to several events at once (a batch the lane read), for a reactor whose
   * commands find their work done in their streams' state when replayed, whatever batch they
   * come in. Each command runs in the context of the event it names as its cause (the first of
   * a group, for one write for the group). After a failure the lane goes back to `react`, one
   * event at a time, to find the event that fails.
   */
  batchFacts?(events: RecordedEvent[], read: FactReader): Promise<BatchFacts>;
  reactBatch?(events: RecordedEvent[], facts: BatchFacts): { cause: RecordedEvent; command: ReactionCommand }[];
  /**
   * Optional: a reactor nobody waits for (no route's `waitFor` names its types, or one that
   * does accepts the pace) waits this many ms after each batch that was not full, where a lane
   * reads again at once after reacting: its batches hold what happened meanwhile (an event and
   * its sequel arrive together), and it reads and moves its checkpoint once per pace, not once
   * per few events.
   */
  paceMs?(config: Config): number;
  /**
   * Optional: checkpoints of reactors this one replaces (renamed, or split between contexts).
   * Seen for the first time, it starts where the first of them that exists stood, instead of
   * at the head of the log, so a deployment neither replays history nor skips what the old
   * lane had not reached.
   */
  replaces?: readonly string[];
}

/**
 * Reactors of any facts, where they are collected (a context's list, the runner's lanes): only
 * the runtime, which pairs each reactor with the facts it loaded itself, calls `react` on one.
 * Assignable from every `Reactor<F, B>` because `react` is a method (its parameters bivariant).
 */
export type AnyReactor = Reactor<unknown, unknown>;

/** What a context does when one of its scheduled messages falls due. */
export interface ScheduledHandler {
  name: string;
  fire(message: ScheduledMessage, deps: PlatformDeps): Promise<void>;
}
