import { checklistsProjector } from '../../../projections/checklists/checklists-read-model';
import { openReviewApprovalReactor } from '../../../commands/checklists/open-review-approval';
import { closeRejectedApprovalReactor, recordReviewReactor } from '../../../commands/checklists/review-reactors';
import type { ContextModule } from '../../platform/context-module';
import { checklistsApi } from './openapi';
import { createExtractionPool, type ExtractionPool } from '../../platform/infra/extraction';
import { checklistsAuditCatalog } from './audit';
import { type Extract, checklistRoutes, type AssessmentRuns } from './http';
import { checklistAgentTools } from './agent-tools';

export function createChecklistsContext(): ContextModule {
  let pool: ExtractionPool | null = null;
  const runs: AssessmentRuns = { controller: new AbortController(), running: new Set() };
  return {
    name: 'checklists',
    audit: checklistsAuditCatalog,
    projectors: [checklistsProjector],
    reactors: [openReviewApprovalReactor, recordReviewReactor, closeRejectedApprovalReactor],
    openapi: checklistsApi,
    publicRouter(deps) {
      // The module object outlives a platform (tests start several in one process): each
      // platform's routes get a fresh signal, aborted by that platform's stop.
      runs.controller = new AbortController();
      const extract: Extract = (bytes) => (pool ??= createExtractionPool(deps.config.extraction)).extract(bytes);
      return checklistRoutes(deps, extract, runs);
    },
    agentTools: (deps) => checklistAgentTools(deps, () => runs.controller.signal),
    async stop() {
      runs.controller.abort();
      await Promise.allSettled([...runs.running]);
      const closing = pool;
      pool = null;
      await closing?.close();
    },
  };
}

export const checklistsContext: ContextModule = createChecklistsContext();
