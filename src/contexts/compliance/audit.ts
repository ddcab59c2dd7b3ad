import { assessmentAggregate } from '../../../streams/compliance/assessment';
import { assessmentRunsAggregate } from '../../../streams/compliance/runs';
import { type AuditCatalog } from '../../platform/audit/catalog';

/** Compliance assessments, folded and worded in actor/correlation timelines (no entity flag yet). */
export const complianceAuditCatalog: AuditCatalog = {
  aggregates: [
    { kind: 'compliance-assessment', aggregate: assessmentAggregate },
    { kind: 'compliance-assessment-runs', aggregate: assessmentRunsAggregate },
  ],
};
