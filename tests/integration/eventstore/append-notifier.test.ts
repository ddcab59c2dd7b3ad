import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Client, Pool } from 'pg';
import sinon from 'sinon';
import { AuditSigner } from '../../../src/platform/eventstore/audit-signature';
import { createPostgresEventStore } from '../../../src/platform/eventstore/postgres/postgres-event-store';
import type { EventStore } from '../../../src/platform/eventstore/types';
import { createTestEventStore, TEST_SIGNING_KEY } from '../../support/event-store';
import { eventually } from '../../support/eventually';

/** A process alone on its database sends no NOTIFY; two processes on one database wake each other. */
describe('append notifications', () => {
  const append = (store: EventStore) =>
    store.append(`toy.note-${randomUUID()}`, [
      {
        type: 'NoteCreated',
        data: { title: 'n' },
        metadata: { tenantId: 't', actorId: 'a', correlationId: 'c', causationId: 'c' },
      },
    ]);
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it("given no other listener, then appends send no NOTIFY; given a second instance, then each one's appends wake the other's readers", async function () {
    this.timeout(30_000);
    const { db, store, cleanup } = await createTestEventStore();
    const notifies: string[] = [];
    const query = Client.prototype.query;
    sinon.stub(Client.prototype, 'query').callsFake(function (this: Client, ...args: unknown[]) {
      if (typeof args[0] === 'string' && args[0].startsWith('NOTIFY')) notifies.push(args[0]);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as never);
    // The second instance polls rarely: a wake-up within a second can only be the NOTIFY.
    const otherPool = new Pool({ connectionString: db.url, max: 4 });
    let other: EventStore | null = null;
    try {
      // This process's own readers are woken in process: they need no NOTIFY.
      for (let i = 0; i < 5; i++) {
        await append(store);
        await pause(30);
      }
      expect(notifies, 'alone on its database').to.deep.equal([]);

      other = createPostgresEventStore({
        pool: otherPool,
        signer: new AuditSigner(TEST_SIGNING_KEY),
        pollIntervalMs: 60_000,
      });
      const from = await other.headPosition();
      const live = other.subscribeToAll({ from });
      const iterator = live[Symbol.asyncIterator]();
      // Each instance checks once a second who else listens; both have listened and checked by then.
      await append(other);
      await eventually(async () => {
        await append(store);
        await pause(100);
        return notifies.length > 0;
      }, 10_000);
      const started = Date.now();
      const appended = await append(store);
      for (;;) {
        const { value } = await iterator.next();
        if (value.position.commit === appended.position.commit && value.position.prepare === appended.position.prepare)
          break;
      }
      expect(Date.now() - started, 'woken by the NOTIFY, not by its 60 s poll').to.be.below(5_000);
      await live.stop();
    } finally {
      sinon.restore();
      await other?.close();
      await otherPool.end().catch(() => undefined);
      await cleanup();
    }
  });
});
