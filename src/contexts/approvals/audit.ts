import { APPROVALS_TABLE } from '../../../projections/approvals/approval-queue';
import { approvalAggregate } from '../../../streams/approvals/approval';
import { type AuditCatalog } from '../../platform/audit/catalog';

/** Human-in-the-loop approvals, by id (`--approval <id>`). */
export const approvalsAuditCatalog: AuditCatalog = {
  aggregates: [
    {
      kind: 'approval',
      aggregate: approvalAggregate,
      describe(event) {
        const d = event.data as {
          reason?: string;
          level?: number;
          decision?: string;
          comments?: string | null;
          checkpointType?: string;
        };
        switch (event.type) {
          case 'ApprovalRequested':
            return `approval requested (${d.checkpointType})`;
          case 'ApprovalEscalated':
            return `escalated to level ${d.level}: ${d.reason}`;
          case 'ApprovalDecided':
            return `decided: ${d.decision}${d.comments ? ` ("${d.comments}")` : ''}`;
          case 'ApprovalDecisionRefused':
            return `decision refused (four eyes): tried ${d.decision}`;
          default:
            return undefined;
        }
      },
    },
  ],
  finders: [
    {
      flag: 'approval',
      value: '<id>',
      async find(lookup, tenantId, value) {
        const row = await lookup
          .knex(APPROVALS_TABLE)
          .select('checkpoint_type')
          .where({ tenant_id: tenantId, approval_id: value })
          .first();
        return row ? [{ kind: 'approval', id: value, title: `approval ${value}` }] : [];
      },
    },
  ],
};
