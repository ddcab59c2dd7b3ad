import { Router } from 'express';
import { seedEventTypes } from '../../../commands/monitoring/seed-event-types';
import { duplicationRulesProjector } from '../../../projections/monitoring/duplication-rules';
import { eventTypesProjector } from '../../../projections/monitoring/event-types';
import { operationalEventsProjector } from '../../../projections/monitoring/operational-events';
import type { ContextModule } from '../../platform/context-module';
import { monitoringApi } from './openapi';
import { monitoringAuditCatalog } from './audit';
import { eventTypeRoutes, eventRoutes, duplicationRuleRoutes } from './http';
import { monitoringAgentTools } from './agent-tools';

export const monitoringContext: ContextModule = {
  name: 'monitoring',
  audit: monitoringAuditCatalog,
  projectors: [eventTypesProjector, operationalEventsProjector, duplicationRulesProjector],
  publicRouter: (deps) => Router().use(eventTypeRoutes(deps), eventRoutes(deps)),
  internalRouter: duplicationRuleRoutes,
  openapi: monitoringApi,
  agentTools: monitoringAgentTools,
  seedSamples: async (deps, context) => {
    await seedEventTypes(deps, context);
  },
};
