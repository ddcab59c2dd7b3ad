import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import pino from 'pino';
import {
  appendMessage,
  appendMessageCommand,
  decideAppendMessage,
} from '../../../commands/conversations/append-message';
import { createConversation } from '../../../commands/conversations/create-conversation';
import { createCommandHandler } from '../../../src/platform/command-handling/command-handler';
import { createSnapshotStore, SNAPSHOTS_TABLE } from '../../../src/platform/command-handling/snapshots';
import type { EventStore, ReadStreamOptions } from '../../../src/platform/eventstore/types';
import type { Database } from '../../../src/platform/infra/database';
import { conversationAggregate, type ConversationState } from '../../../streams/conversations/conversation';
import { createTestEventStore } from '../../support/event-store';

describe('stream snapshots of long aggregates', () => {
  let db: Database;
  let store: EventStore;
  let cleanup: () => Promise<void>;
  before(async () => ({ db, store, cleanup } = await createTestEventStore()));
  after(() => cleanup());

  it('a conversation of 250 messages is decided from its snapshot, and the snapshot equals a full fold', async () => {
    const reads: Array<ReadStreamOptions | undefined> = [];
    const watched: EventStore = { ...store, readStream: (s, o) => (reads.push(o), store.readStream(s, o)) };
    const loaded = { snapshots: 0 };
    const counted = createSnapshotStore(db.knex);
    const snapshots = { load: (stream: string) => (loaded.snapshots++, counted.load(stream)), save: counted.save };
    const handle = createCommandHandler({
      store: watched,
      projections: { waitFor: async () => true },
      logger: pino({ level: 'silent' }),
      snapshots,
    });
    const deps = { handle, knex: db.knex };
    const tenantId = randomUUID();
    const conversationId = randomUUID();
    await createConversation(deps, tenantId, {
      type: 'CreateConversation',
      conversationId,
      userId: 'u1',
      agentId: 'a',
      title: null,
      conversationType: null,
      projectId: null,
      metadata: null,
    });
    for (let i = 0; i < 250; i++)
      await appendMessage(
        deps,
        { tenantId, conversationId, callerId: 'u1' },
        { role: 'user', content: `message ${i}` },
      );

    const stream = conversationAggregate.stream(tenantId, conversationId);
    const stored = await snapshots.load(stream);
    expect(stored?.revision).to.equal(199n);
    // Stored state + the events after it = the fold of the whole stream.
    const all = await store.readStream(stream);
    const full = all
      .map(conversationAggregate.read)
      .reduce(conversationAggregate.evolve, conversationAggregate.initialState);
    const fromSnapshot = all
      .filter((e) => e.revision > stored!.revision)
      .map(conversationAggregate.read)
      .reduce(
        conversationAggregate.evolve,
        conversationAggregate.snapshot!.fromJSON(stored!.state) as ConversationState,
      );
    expect(JSON.parse(JSON.stringify(fromSnapshot))).to.deep.equal(JSON.parse(JSON.stringify(full)));
    // This process remembers the state it decided: after the first read no decision reads the
    // stream or the snapshot (the one snapshot load so far is this test's own, above).
    expect(reads).to.have.length(1);
    expect(loaded.snapshots).to.equal(1);

    // A restarted process reads one snapshot interval backwards and the snapshot, never the
    // whole stream.
    const restarted = createCommandHandler({
      store: watched,
      projections: { waitFor: async () => true },
      logger: pino({ level: 'silent' }),
      snapshots,
    });
    const appended = await appendMessage(
      { handle: restarted },
      { tenantId, conversationId, callerId: 'u1' },
      { role: 'user', content: 'after a restart' },
    );
    expect(appended.sequence_number).to.equal(251);
    expect(reads.slice(1)).to.deep.equal([{ direction: 'backwards', limit: 100 }]);
    expect(loaded.snapshots).to.equal(2);
  });

  describe('a keyed retry on a stream decided from its snapshot, by a handler that remembers nothing of it', () => {
    const decider = { ...conversationAggregate, decide: decideAppendMessage };
    const quiet = { projections: { waitFor: async () => true }, logger: pino({ level: 'silent' }) };

    /** A conversation whose snapshot (at revision 199) covers a keyed message appended at revision 51. */
    async function conversationWithKeyedMessage(snapshots: ReturnType<typeof createSnapshotStore>) {
      const handle = createCommandHandler({ store, snapshots, ...quiet });
      const tenantId = randomUUID();
      const conversationId = randomUUID();
      const stream = conversationAggregate.stream(tenantId, conversationId);
      await createConversation({ handle, knex: db.knex }, tenantId, {
        type: 'CreateConversation',
        conversationId,
        userId: 'u1',
        agentId: 'a',
        title: null,
        conversationType: null,
        projectId: null,
        metadata: null,
      });
      for (let i = 0; i < 50; i++)
        await appendMessage(
          { handle },
          { tenantId, conversationId, callerId: 'u1' },
          { role: 'user', content: `message ${i}` },
        );
      const context = { tenantId, actorId: 'u1', idempotencyKey: `key-${randomUUID()}` };
      // Each attempt of a request draws its own message id: only the key makes it the same request.
      const keyed = () => appendMessageCommand('u1', { role: 'user', content: 'sent once' });
      const first = await handle(decider, stream, keyed(), context);
      for (let i = 0; i < 150; i++)
        await appendMessage(
          { handle },
          { tenantId, conversationId, callerId: 'u1' },
          { role: 'user', content: `later ${i}` },
        );
      expect((await snapshots.load(stream))?.revision).to.equal(199n);
      return { tenantId, conversationId, stream, context, keyed, first };
    }

    for (const lookUp of ['by event id', 'without an event-id lookup (reads the whole stream)'] as const) {
      it(`answers from the first request and appends nothing (${lookUp}); the state it remembers is the stream's`, async () => {
        const snapshots = createSnapshotStore(db.knex);
        const { tenantId, conversationId, stream, context, keyed, first } =
          await conversationWithKeyedMessage(snapshots);
        const { findEvent, ...withoutLookUp } = store;
        void findEvent;
        const restarted = createCommandHandler({
          store: lookUp === 'by event id' ? store : withoutLookUp,
          snapshots,
          ...quiet,
        });
        const retried = await restarted(decider, stream, keyed(), context);
        expect(retried.replayed).to.equal(true);
        expect(retried.events).to.deep.equal([]);
        expect(retried.position).to.deep.equal(first.position);
        const all = await store.readStream(stream);
        expect(all.filter((e) => (e.data as { content?: string }).content === 'sent once')).to.have.length(1);
        expect(all).to.have.length(202);
        // The next message from the same handler is numbered after every stored one.
        const next = await appendMessage(
          { handle: restarted },
          { tenantId, conversationId, callerId: 'u1' },
          { role: 'user', content: 'next' },
        );
        expect(next.sequence_number).to.equal(202);
      });
    }
  });

  it('a snapshot of another shape version is ignored: the stream is folded from revision 0', async () => {
    const snapshots = createSnapshotStore(db.knex);
    const handle = createCommandHandler({
      store,
      projections: { waitFor: async () => true },
      logger: pino({ level: 'silent' }),
      snapshots,
    });
    const deps = { handle, knex: db.knex };
    const tenantId = randomUUID();
    const conversationId = randomUUID();
    await createConversation(deps, tenantId, {
      type: 'CreateConversation',
      conversationId,
      userId: 'u1',
      agentId: 'a',
      title: null,
      conversationType: null,
      projectId: null,
      metadata: null,
    });
    // A stale snapshot written by an older release (version 0) that claims a wrong counter.
    await db.knex(SNAPSHOTS_TABLE).insert({
      stream_id: conversationAggregate.stream(tenantId, conversationId),
      revision: 0,
      version: 0,
      state: JSON.stringify({ status: 'open', messageCount: 999 }),
    });
    // A restarted process (nothing remembered) meets the stale snapshot.
    const restarted = createCommandHandler({
      store,
      projections: { waitFor: async () => true },
      logger: pino({ level: 'silent' }),
      snapshots,
    });
    const appended = await appendMessage(
      { handle: restarted },
      { tenantId, conversationId, callerId: 'u1' },
      { role: 'user', content: 'first' },
    );
    expect(appended.sequence_number).to.equal(1);
  });
});
