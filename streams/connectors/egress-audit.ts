import { z } from 'zod';
import { type Aggregate, eventReader, type EventsOf } from '../../src/platform/command-handling/aggregate';

/**
 * Refused destinations (audit action `connector.egress_denied`): a stream per tenant that
 * only ever grows by one event per refusal, so nothing half-made of the connector is recorded
 * but the attempt is. Only the host and the addresses are kept, never a credential.
 */
export const EgressAuditEventSchemas = {
  ConnectorEgressDenied: z.object({
    connectorKey: z.string(),
    host: z.string(),
    addresses: z.array(z.string()),
    reason: z.string(),
    at: z.string(),
  }),
};
export type EgressAuditEvent = EventsOf<typeof EgressAuditEventSchemas>;

export const egressAuditAggregate: Aggregate<{ status: 'open' }, EgressAuditEvent> = {
  stream: (tenantId, day) => `connectors.egress-audit-${tenantId}-${day}`,
  eventTypes: Object.keys(EgressAuditEventSchemas) as EgressAuditEvent['type'][],
  initialState: { status: 'open' },
  evolve: (state) => state,
  read: eventReader('egress audit', EgressAuditEventSchemas),
};
