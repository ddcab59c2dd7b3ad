import { installOilgasVertical } from '../../../commands/graph/install-vertical';
import { recordFilingPackageReactor } from '../../../commands/graph/record-filing-package';
import { propertyGraphProjector } from '../../../projections/graph/property-graph';
import { graphSchemaProjector } from '../../../projections/graph/graph-schema';
import { graphAgentTools } from './agent-tools';
import type { ContextModule } from '../../platform/context-module';
import { graphApi } from './openapi';
import { graphAuditCatalog } from './audit';
import { createGraphApi } from './http';

export const graphContext: ContextModule = {
  name: 'graph',
  audit: graphAuditCatalog,
  projectors: [propertyGraphProjector, graphSchemaProjector],
  reactors: [recordFilingPackageReactor],
  publicRouter: createGraphApi,
  agentTools: graphAgentTools,
  // The oil-and-gas vertical is installed once (idempotent on every later start).
  start: (deps) => installOilgasVertical(deps),
  openapi: graphApi,
};
