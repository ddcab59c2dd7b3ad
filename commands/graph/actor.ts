import type { PlatformDeps } from '../../src/platform/context-module';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';

/** Who writes to the graph, and what the graph commands need from the platform. */
export interface GraphActor {
  tenantId: string;
  userId: string;
}

export type GraphCommandDeps = Pick<PlatformDeps, 'handle' | 'knex'>;

export const commandContext = (actor: GraphActor): CommandContext => ({
  tenantId: actor.tenantId,
  actorId: actor.userId,
});
