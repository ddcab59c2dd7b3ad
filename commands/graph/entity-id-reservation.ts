import type { ReservationKey } from '../../src/platform/command-handling/reservation';

/**
 * One entity_id per label and tenant, decided when the vertex is written: its reservation
 * stream is appended in the same atomic write as the vertex, so of two concurrent creates
 * exactly one succeeds (409 for the other), and a delete frees the id again.
 */
export function entityIdReservation(tenantId: string, label: string, entityId: string): ReservationKey {
  return {
    context: 'graph',
    tenantId,
    kind: `entity-id-${label.toLowerCase()}`,
    value: entityId,
    label: `${label} entity_id '${entityId}'`,
  };
}
