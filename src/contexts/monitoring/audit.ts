import { duplicationRulesAggregate } from '../../../streams/monitoring/duplication-rules';
import { eventTypeAggregate } from '../../../streams/monitoring/event-type';
import { operationalEventAggregate } from '../../../streams/monitoring/operational-event';
import { type AuditCatalog } from '../../platform/audit/catalog';

/** Monitoring: event types, duplication rules and operational events (no entity flag yet). */
export const monitoringAuditCatalog: AuditCatalog = {
  aggregates: [
    { kind: 'operational-event-type', aggregate: eventTypeAggregate },
    { kind: 'duplication-rules', aggregate: duplicationRulesAggregate },
    { kind: 'operational-event', aggregate: operationalEventAggregate },
  ],
};
