import type { AuditCatalog } from '../../platform/audit/catalog';
import { auditExportAggregate } from '../../../streams/audit/audit-export';

/** Its own export records are part of the trail a reviewer can read back (`--entity` is graph's). */
export const auditCatalog: AuditCatalog = { aggregates: [{ kind: 'audit-export', aggregate: auditExportAggregate }] };
