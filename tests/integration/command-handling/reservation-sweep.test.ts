import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { sweepOrphanedReservations } from '../../../src/platform/command-handling/reservation-sweep';
import type { EventStore } from '../../../src/platform/eventstore/types';
import { createTestEventStore } from '../../support/event-store';

const metadata = { tenantId: 't', actorId: 'a', correlationId: 'c', causationId: 'c' };

describe('orphaned reservation sweep (stores without multi-stream transactions)', () => {
  let store: EventStore;
  let cleanup: () => Promise<void>;
  before(async () => ({ store, cleanup } = await createTestEventStore()));
  after(() => cleanup());

  it('releases a claim whose owner stream was never written, once the grace period passed, and keeps the others', async () => {
    const orphan = `sweep.reservation-${randomUUID()}`;
    const held = `sweep.reservation-${randomUUID()}`;
    const owner = `sweep.owner-${randomUUID()}`;
    await store.append(orphan, [
      { type: 'ReservationClaimed', data: { owner: `sweep.owner-${randomUUID()}` }, metadata },
    ]);
    await store.append(owner, [{ type: 'Created', data: {}, metadata }]);
    await store.append(held, [{ type: 'ReservationClaimed', data: { owner }, metadata }]);

    const early = await sweepOrphanedReservations(store, { now: new Date(), actorId: 'system' });
    expect(early.released).to.equal(0);

    const released: string[] = [];
    const later = await sweepOrphanedReservations(store, {
      now: new Date(Date.now() + 3_600_000),
      actorId: 'system',
      onReleased: (s) => released.push(s),
    });
    expect(released).to.deep.equal([orphan]);
    expect(later.released).to.equal(1);
    expect((await store.readStream(orphan)).map((e) => e.type)).to.deep.equal([
      'ReservationClaimed',
      'ReservationReleased',
    ]);
    expect((await store.readStream(held)).map((e) => e.type)).to.deep.equal(['ReservationClaimed']);
  });
});
