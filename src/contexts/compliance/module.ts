import { complianceCellsProjector } from '../../../projections/compliance/cells';
import { complianceDashboardProjector } from '../../../projections/compliance/dashboard';
import { DEFAULT_PACKS } from '../../../commands/compliance/packs';
import type { DomainPack } from '../../../commands/compliance/packs/pack';
import { reassessAfterFilingReactor } from '../../../commands/compliance/reassess-after-filing';
import { dailyAssessmentHandler, scheduleDailyAssessment } from '../../../commands/compliance/daily-assessment';
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
    projectors: [complianceCellsProjector(), complianceDashboardProjector(packs)],
    publicRouter: (deps) => createComplianceApi(deps, packs),
    reactors: [reassessAfterFilingReactor(packs)],
    scheduledHandlers: [dailyAssessmentHandler(packs)],
    // Every instance schedules the next daily assessment; the message id makes it one.
    start: (deps) => scheduleDailyAssessment(deps),
    openapi: complianceApi,
    agentTools: (deps) => complianceAgentTools(deps, packs),
  };
}

export const complianceContext = createComplianceContext();
