import { complianceDashboardProjector } from '../../../projections/compliance/dashboard';
import { DEFAULT_PACKS } from './packs';
import type { DomainPack } from './packs/pack';
import type { ContextModule } from '../../platform/context-module';
import { complianceApi } from './openapi';
import { complianceAuditCatalog } from './audit';
import { createComplianceApi } from './http';
import { complianceAgentTools } from './agent-tools';

/** The compliance context with a given set of domain packs (tests install failing ones). */
export function createComplianceContext(packs: DomainPack<any>[] = DEFAULT_PACKS): ContextModule {
  return {
    name: 'compliance',
    audit: complianceAuditCatalog,
    projectors: [complianceDashboardProjector(packs)],
    publicRouter: (deps) => createComplianceApi(deps, packs),
    openapi: complianceApi,
    agentTools: (deps) => complianceAgentTools(deps, packs),
  };
}

export const complianceContext = createComplianceContext();
