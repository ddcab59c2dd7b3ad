import type { EventStore, Position, RecordedEvent } from '../eventstore/types';
import { START } from '../eventstore/types';

/**
 * Frees reservations whose owner was never written. On PostgreSQL a reservation and its
 * owner are one transaction, so there are none; on EventStoreDB the claim lands first and a
 * crash before the owner's append leaves it held. A claim older than `graceMs` whose owner
 * stream is still empty is released (by the system account), so the value can be taken again.
 */
export async function sweepOrphanedReservations(
  store: EventStore,
  options: { now: Date; graceMs?: number; actorId: string; onReleased?: (stream: string, owner: string) => void },
): Promise<{ checked: number; released: number }> {
  const graceMs = options.graceMs ?? 10 * 60_000;
  const latestClaims = new Map<string, RecordedEvent>();
  let from: Position = START;
  for (;;) {
    const batch = await store.readAll({
      from,
      limit: 1000,
      filter: { eventTypes: ['ReservationClaimed', 'ReservationReleased'] },
    });
    if (batch.length === 0) break;
    for (const event of batch) {
      if (event.type === 'ReservationClaimed') latestClaims.set(event.stream, event);
      else latestClaims.delete(event.stream);
    }
    from = batch[batch.length - 1].position;
  }
  let released = 0;
  for (const [stream, claim] of latestClaims) {
    if (options.now.getTime() - claim.recordedAt.getTime() < graceMs) continue;
    const owner = (claim.data as { owner: string }).owner;
    const [ownerEvent] = await store.readStream(owner, { limit: 1 });
    if (ownerEvent) continue;
    const metadata = {
      tenantId: claim.metadata.tenantId,
      actorId: options.actorId,
      correlationId: claim.metadata.correlationId,
      causationId: claim.id,
      reason: 'orphaned reservation: owner never written',
    };
    await store.append(stream, [{ type: 'ReservationReleased', data: { owner }, metadata }], {
      expectedRevision: claim.revision,
    });
    released++;
    options.onReleased?.(stream, owner);
  }
  return { checked: latestClaims.size, released };
}
