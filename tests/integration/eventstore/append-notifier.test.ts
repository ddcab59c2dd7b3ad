import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Client } from 'pg';
import sinon from 'sinon';
import { APPEND_CHANNEL } from '../../../src/platform/eventstore/postgres/schema';
import type { EventStore } from '../../../src/platform/eventstore/types';
import { createTestEventStore } from '../../support/event-store';
import { eventually } from '../../support/eventually';

/** A process alone on its database sends no NOTIFY; one that another session listens to does. */
describe('append notifications', () => {
  const append = (store: EventStore) =>
    store.append(`toy.note-${randomUUID()}`, [{ type: 'NoteCreated', data: { title: 'n' }, metadata: { tenantId: 't', actorId: 'a', correlationId: 'c', causationId: 'c' } }]);

  it('given no other listener, then appends send no NOTIFY; given a session that listens, then appends reach it within the check interval', async function () {
    this.timeout(30_000);
    const { db, store, cleanup } = await createTestEventStore();
    const notifies: string[] = [];
    const query = Client.prototype.query;
    sinon.stub(Client.prototype, 'query').callsFake(function (this: Client, ...args: unknown[]) {
      if (typeof args[0] === 'string' && args[0].startsWith('NOTIFY')) notifies.push(args[0]);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as never);
    const other = new Client({ connectionString: db.url });
    try {
      // This process's own readers are woken in process: they need no NOTIFY.
      for (let i = 0; i < 5; i++) {
        await append(store);
        await new Promise((r) => setTimeout(r, 30));
      }
      expect(notifies, 'alone on its database').to.deep.equal([]);

      await other.connect();
      const heard: string[] = [];
      other.on('notification', (message) => heard.push(message.channel));
      await other.query(`LISTEN ${APPEND_CHANNEL}`);
      await eventually(async () => {
        await append(store);
        await new Promise((r) => setTimeout(r, 100));
        return heard.length > 0;
      }, 10_000);
      expect(heard[0]).to.equal(APPEND_CHANNEL);
    } finally {
      sinon.restore();
      await other.end().catch(() => undefined);
      await cleanup();
    }
  });
});
