import { approvalQueueProjector } from '../../../projections/approvals/approval-queue';
import type { ContextModule } from '../../platform/context-module';
import { approvalsApi } from './openapi';
import { approvalsAuditCatalog } from './audit';
import { routes } from './http';

export const approvalsContext: ContextModule = {
  name: 'approvals',
  audit: approvalsAuditCatalog,
  projectors: [approvalQueueProjector],
  publicRouter: (deps) => routes(deps, 'public'),
  internalRouter: (deps) => routes(deps, 'internal'),
  openapi: approvalsApi,
};
