import { scheduleTurnDeadlineReactor, turnDeadlineHandler } from '../../../commands/agents/turn-deadline';
import type { ContextModule } from '../../platform/context-module';
import { agentsApi } from './openapi';
import { agentsProjector } from '../../../projections/agents/agents-read-model';
import { budgetSettlementReactor } from '../../../commands/agents/budget-settlement';
import { agentsAuditCatalog } from './audit';
import { type AgentsOptions, createAgentsApi } from './http';

export function createAgentsContext(options: AgentsOptions = {}): ContextModule {
  return {
    name: 'agents',
    audit: agentsAuditCatalog,
    projectors: [agentsProjector],
    reactors: [budgetSettlementReactor, scheduleTurnDeadlineReactor],
    scheduledHandlers: [turnDeadlineHandler],
    publicRouter: (deps) => createAgentsApi(deps, options),
    openapi: agentsApi,
  };
}

export const agentsContext = createAgentsContext();
