import { connectorsProjector } from '../../../projections/connectors/connectors-read-model';
import { secretCleanupReactor } from '../../../commands/connectors/secret-cleanup';
import type { ContextModule } from '../../platform/context-module';
import { connectorsDeps } from '../../../commands/connectors/connectors-deps';
import { exposureToolProvider } from './exposure-tools';
import { connectorsApi } from './openapi';
import { connectorsAuditCatalog } from './audit';
import { createConnectorsApi, createConnectorsInternalApi } from './http';

export const connectorsContext: ContextModule = {
  name: 'connectors',
  audit: connectorsAuditCatalog,
  projectors: [connectorsProjector],
  reactors: [secretCleanupReactor],
  publicRouter: (deps) => createConnectorsApi(deps),
  internalRouter: (deps) => createConnectorsInternalApi(deps),
  agentTools: (deps) => exposureToolProvider(connectorsDeps(deps)),
  openapi: connectorsApi,
};
