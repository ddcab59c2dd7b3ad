import type { PlatformDeps } from '../../src/platform/context-module';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';

/** Who writes to the graph, and what the graph commands need from the platform. */
export interface GraphActor {
  tenantId: string;
  userId: string;
  /** A reaction's (or a request's) correlation, carried to every event the command appends. */
  correlationId?: string;
  /** The event that caused the command (a reaction's trigger). */
  causationId?: string;
  /** Derives the command's event ids: a reaction's key, so its replay appends nothing twice. */
  idempotencyKey?: string;
}

export type GraphCommandDeps = Pick<PlatformDeps, 'handle' | 'knex'>;

export const commandContext = (actor: GraphActor): CommandContext => ({
  tenantId: actor.tenantId,
  actorId: actor.userId,
  ...(actor.correlationId === undefined ? {} : { correlationId: actor.correlationId }),
  ...(actor.causationId === undefined ? {} : { causationId: actor.causationId }),
  ...(actor.idempotencyKey === undefined ? {} : { idempotencyKey: actor.idempotencyKey }),
});

/** The graph actor of a command context (a reaction's: its causation, correlation and key travel with it). */
export const graphActor = (context: CommandContext): GraphActor => ({
  tenantId: context.tenantId,
  userId: context.actorId,
  ...(context.correlationId === undefined ? {} : { correlationId: context.correlationId }),
  ...(context.causationId === undefined ? {} : { causationId: context.causationId }),
  ...(context.idempotencyKey === undefined ? {} : { idempotencyKey: context.idempotencyKey }),
});
