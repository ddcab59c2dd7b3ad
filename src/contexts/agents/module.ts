import { scheduleTurnDeadlineReactor, turnDeadlineHandler } from '../../../commands/agents/turn-deadline';
import type { ContextModule } from '../../platform/context-module';
import { agentsApi } from './openapi';
import { agentsProjector } from '../../../projections/agents/agents-read-model';
import { budgetSettlementReactor } from '../../../commands/agents/budget-settlement';
import { agentsAuditCatalog } from './audit';
import { type AgentsOptions, createAgentsApi } from './http';
import { agentMeters } from './metrics';
import { tenantBudgetUse } from '../../../queries/agents/budget-use';

export function createAgentsContext(options: AgentsOptions = {}): ContextModule {
  return {
    name: 'agents',
    audit: agentsAuditCatalog,
    projectors: [agentsProjector],
    reactors: [budgetSettlementReactor, scheduleTurnDeadlineReactor],
    scheduledHandlers: [turnDeadlineHandler],
    publicRouter: (deps) => createAgentsApi(deps, options),
    openapi: agentsApi,
    meters: agentMeters,
    start: async (deps) =>
      deps.metrics.observeBudgets(() => tenantBudgetUse(deps.knex, deps.clock().toISOString().slice(0, 10))),
  };
}

export const agentsContext = createAgentsContext();
