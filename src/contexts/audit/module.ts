import { auditEventIndexProjector } from '../../../projections/audit/event-index';
import { AUDIT_FORMATS } from './export';
import { buildAuditRegistry } from '../../platform/audit/registry';
import type { ContextModule } from '../../platform/context-module';
import { auditApi } from './openapi';
import { createAuditApi } from './http';
import { auditCatalog } from './audit';

/** The audit context: the event index projection, the admin routes and its catalog entry. */
export const auditContext: ContextModule = {
  name: 'audit',
  projectors: [auditEventIndexProjector],
  audit: auditCatalog,
  openapi: auditApi,
  publicRouter: (deps) => createAuditApi(deps, buildAuditRegistry(deps.contexts)),
};

export { AUDIT_FORMATS };
