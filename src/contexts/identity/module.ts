import { onetimeTokensProjector } from '../../../projections/identity/onetime-tokens';
import { tenantsProjector } from '../../../projections/identity/tenants';
import { userDirectoryProjector } from '../../../projections/identity/user-directory';
import type { ContextModule } from '../../platform/context-module';
import { bootstrapIdentity } from './bootstrap';
import { identityGateway } from './gateway';
import { identityDeps } from '../../../commands/identity/identity-deps';
import { identityApi } from './openapi';
import { identityAuditCatalog } from './audit';
import { publicRouter, internalRouter } from './http';

export const identityContext: ContextModule = {
  name: 'identity',
  audit: identityAuditCatalog,
  projectors: [tenantsProjector, userDirectoryProjector, onetimeTokensProjector],
  publicRouter,
  internalRouter,
  gateway: (deps) => identityGateway(identityDeps(deps)),
  start: (deps) => bootstrapIdentity(identityDeps(deps)),
  openapi: identityApi,
};
