import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Client } from 'pg';
import { comparePositions, type EventStore, type RecordedEvent } from '../../../src/platform/eventstore/types';
import type { Database } from '../../../src/platform/infra/database';
import { AuditSigner, verifyStreamChain } from '../../../src/platform/eventstore/audit-signature';
import { createPostgresEventStore } from '../../../src/platform/eventstore/postgres/postgres-event-store';
import { IdempotencyConflictError, WrongExpectedRevisionError } from '../../../src/platform/eventstore/types';
import { createTestEventStore, TEST_SIGNING_KEY } from '../../support/event-store';

function createTestEventStoreOn(db: Database): Promise<EventStore> {
  return Promise.resolve(
    createPostgresEventStore({ pool: db.pool, signer: new AuditSigner(TEST_SIGNING_KEY), pollIntervalMs: 100 }),
  );
}

const metadata = { tenantId: 't', actorId: 'a', correlationId: 'c', causationId: 'c' };

async function take(subscription: AsyncIterable<RecordedEvent>, count: number, sink: RecordedEvent[]): Promise<void> {
  for await (const event of subscription) {
    sink.push(event);
    if (sink.length >= count) return;
  }
}

describe('postgres event store', () => {
  let db: Database;
  let store: EventStore;
  let cleanup: () => Promise<void>;

  before(async () => {
    ({ db, store, cleanup } = await createTestEventStore());
  });
  after(() => cleanup());

  it('a subscriber delivers an event that commits after a higher position, in order, exactly once', async () => {
    const from = await store.headPosition();
    const subscription = store.subscribeToAll({ from, filter: { streamPrefixes: ['gap.'] } });
    const received: RecordedEvent[] = [];
    const done = take(subscription, 2, received);

    // Transaction A takes the lower position and stays open...
    const slow = new Client({ connectionString: db.url });
    await slow.connect();
    await slow.query('BEGIN');
    const low = await slow.query(
      `INSERT INTO events (stream_id, revision, event_id, type, data, metadata)
       VALUES ($1, 0, $2, 'Slow', '{}', $3) RETURNING position`,
      [`gap.slow-${randomUUID()}`, randomUUID(), JSON.stringify({ ...metadata, signature: '' })],
    );
    // ...while B takes a higher one and commits first.
    const fast = await store.append(`gap.fast-${randomUUID()}`, [{ type: 'Fast', data: {}, metadata }]);
    expect(fast.position.prepare > BigInt(low.rows[0].position)).to.equal(true);

    await new Promise((r) => setTimeout(r, 300));
    expect(received, 'nothing may pass an in-flight lower position').to.have.length(0);

    await slow.query('COMMIT');
    await slow.end();
    await done;
    await new Promise((r) => setTimeout(r, 200));
    await subscription.stop();
    expect(received.map((e) => e.type)).to.deep.equal(['Slow', 'Fast']);
    expect(comparePositions(received[0].position, received[1].position)).to.equal(-1);
  });

  it('a commit hidden behind an older transaction that appends nothing is delivered when that one ends; a quiet log is not re-read', async () => {
    // Count the subscription's reads of the log: the store's queries carrying the horizon.
    let reads = 0;
    const counting = {
      query: (...args: unknown[]) => {
        const text = typeof args[0] === 'string' ? args[0] : ((args[0] as { text?: string }).text ?? '');
        if (text.includes('LEFT JOIN LATERAL')) reads++;
        return (db.pool.query as (...a: unknown[]) => unknown)(...args);
      },
      connect: () => db.pool.connect(),
    } as unknown as typeof db.pool;
    const watcher = createPostgresEventStore({
      pool: counting,
      signer: new AuditSigner(TEST_SIGNING_KEY),
      pollIntervalMs: 500,
    });
    const subscription = watcher.subscribeToAll({
      from: await store.headPosition(),
      filter: { streamPrefixes: ['hidden.'] },
    });
    const received: RecordedEvent[] = [];
    const done = take(subscription, 1, received);

    // An older transaction holds an id (as a projector's checkpoint update does) and stays open...
    const older = new Client({ connectionString: db.url });
    await older.connect();
    await older.query('BEGIN');
    await older.query('SELECT pg_current_xact_id()');
    // ...while an append commits behind it and notifies.
    await store.append(`hidden.${randomUUID()}`, [{ type: 'Hidden', data: {}, metadata }]);
    await new Promise((r) => setTimeout(r, 300));
    expect(received, 'nothing may pass an in-flight older transaction').to.have.length(0);

    // It ends without a notification: the subscription knew something waited and re-read.
    await older.query('COMMIT');
    await older.end();
    await done;
    expect(received.map((e) => e.type)).to.deep.equal(['Hidden']);

    // Nothing hidden and nothing new: it waits for a notification (or the 500 ms poll), where it
    // used to re-read at 1, 4, 16, 64 and 256 ms.
    await new Promise((r) => setTimeout(r, 50));
    const before = reads;
    await new Promise((r) => setTimeout(r, 450));
    await subscription.stop();
    await watcher.close();
    expect(reads - before).to.be.at.most(1);
  });

  it('eight concurrent writers: every event delivered once, in strictly increasing order', async () => {
    const from = await store.headPosition();
    const prefix = `concurrent.${randomUUID()}-`;
    const subscription = store.subscribeToAll({ from, filter: { streamPrefixes: [prefix] } });
    const received: RecordedEvent[] = [];
    const done = take(subscription, 400, received);
    await Promise.all(
      Array.from({ length: 8 }, async (_, writer) => {
        for (let i = 0; i < 50; i++)
          await store.append(`${prefix}${writer % 3}`, [{ type: 'Tick', data: { writer, i }, metadata }]);
      }),
    );
    await done;
    await subscription.stop();
    expect(new Set(received.map((e) => e.id)).size).to.equal(400);
    for (let i = 1; i < received.length; i++)
      expect(comparePositions(received[i - 1].position, received[i].position)).to.equal(-1);
  });

  it('the database itself refuses UPDATE, DELETE and TRUNCATE on events', async () => {
    await store.append(`immutable-${randomUUID()}`, [{ type: 'Kept', data: {}, metadata }]);
    for (const sql of ["UPDATE events SET type = 'Changed'", 'DELETE FROM events', 'TRUNCATE events']) {
      const error = await db.pool.query(sql).catch((e) => e);
      expect(error, sql).to.be.instanceOf(Error);
      expect(error.message).to.match(/append-only/);
    }
  });

  it('parses positions and revisions as bigint', async () => {
    const result = await store.append(`bigint-${randomUUID()}`, [{ type: 'X', data: {}, metadata }]);
    expect(typeof result.position.commit).to.equal('bigint');
    expect(typeof result.position.prepare).to.equal('bigint');
    expect(typeof result.nextRevision).to.equal('bigint');
  });

  it('a multi-stream append is all or nothing: one stale expected revision writes no stream', async () => {
    const owner = `multi.owner-${randomUUID()}`;
    const reservation = `multi.reservation-${randomUUID()}`;
    await store.append(reservation, [{ type: 'ReservationClaimed', data: { owner: 'someone-else' }, metadata }]);
    const error = await store
      .appendMany([
        { stream: owner, events: [{ type: 'Created', data: {}, metadata }], expectedRevision: 'no_stream' },
        {
          stream: reservation,
          events: [{ type: 'ReservationClaimed', data: { owner }, metadata }],
          expectedRevision: 'no_stream',
        },
      ])
      .catch((e) => e);
    expect(error).to.be.instanceOf(WrongExpectedRevisionError);
    expect(await store.readStream(owner)).to.have.length(0);
    expect(await store.readStream(reservation)).to.have.length(1);
  });

  it('given writes at exact revisions, when appended together, then one statement writes every stream, chained and signed; a retry answers the same positions and writes nothing; ids reused elsewhere are refused', async () => {
    const [existing, fresh] = [`exact.a-${randomUUID()}`, `exact.b-${randomUUID()}`];
    await store.append(existing, [{ type: 'A0', data: {}, metadata }]);
    const writes = () => [
      {
        stream: existing,
        events: [
          { id: ids[0], type: 'A1', data: { n: 1 }, metadata },
          { id: ids[1], type: 'A2', data: { n: 2 }, metadata },
        ],
        expectedRevision: 0n,
      },
      {
        stream: fresh,
        events: [{ id: ids[2], type: 'B0', data: { n: 3 }, metadata }],
        expectedRevision: 'no_stream' as const,
      },
    ];
    const ids = Array.from({ length: 5 }, () => randomUUID());
    const sent: string[] = [];
    const query = Client.prototype.query as (...args: unknown[]) => unknown;
    Client.prototype.query = function (this: Client, ...args: unknown[]) {
      const first = args[0] as string | { text?: string };
      sent.push(typeof first === 'string' ? first : (first?.text ?? ''));
      return query.apply(this, args);
    } as typeof Client.prototype.query;
    let results;
    try {
      results = await store.appendMany(writes());
    } finally {
      Client.prototype.query = query as typeof Client.prototype.query;
    }
    expect(
      sent.filter((text) => text.includes('append_to_stream')),
      'append statements',
    ).to.have.length(1);
    expect(results.map((r) => r.nextRevision)).to.deep.equal([2n, 0n]);
    expect(comparePositions(results[0].position, results[1].position)).to.be.below(0);
    const signer = new AuditSigner(TEST_SIGNING_KEY);
    for (const stream of [existing, fresh])
      expect(verifyStreamChain(signer, await store.readStream(stream))).to.deep.equal([]);
    expect((await store.readStream(existing)).map((e) => e.data)).to.deep.equal([{}, { n: 1 }, { n: 2 }]);

    // A retry of a write to new streams (the revision a retry at a number expects has moved on:
    // it is refused, and the command handler finds its events by id).
    const retried = () => [
      {
        stream: `exact.e-${ids[0]}`,
        events: [{ id: ids[3], type: 'E', data: {}, metadata }],
        expectedRevision: 'no_stream' as const,
      },
      {
        stream: `exact.f-${ids[0]}`,
        events: [{ id: ids[4], type: 'F', data: {}, metadata }],
        expectedRevision: 'no_stream' as const,
      },
    ];
    const first = await store.appendMany(retried());
    const again = await store.appendMany(retried());
    expect(again.map((r, i) => [r.nextRevision, comparePositions(r.position, first[i].position)])).to.deep.equal([
      [0n, 0],
      [0n, 0],
    ]);
    expect(await store.readStream(`exact.e-${ids[0]}`)).to.have.length(1);

    const reused = await store
      .appendMany([
        {
          stream: `exact.c-${randomUUID()}`,
          events: [{ id: ids[0], type: 'C', data: {}, metadata }],
          expectedRevision: 'no_stream',
        },
        {
          stream: `exact.d-${randomUUID()}`,
          events: [{ id: randomUUID(), type: 'D', data: {}, metadata }],
          expectedRevision: 'no_stream',
        },
      ])
      .catch((e: unknown) => e);
    expect(reused).to.be.instanceOf(IdempotencyConflictError);
  });

  it('twenty concurrent multi-stream claims of one reservation: exactly one wins, no orphan owner', async () => {
    const reservation = `multi.reservation-${randomUUID()}`;
    const owners = Array.from({ length: 20 }, () => `multi.owner-${randomUUID()}`);
    const outcomes = await Promise.allSettled(
      owners.map((owner) =>
        store.appendMany([
          { stream: owner, events: [{ type: 'Created', data: {}, metadata }], expectedRevision: 'no_stream' },
          {
            stream: reservation,
            events: [{ type: 'ReservationClaimed', data: { owner }, metadata }],
            expectedRevision: 'no_stream',
          },
        ]),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).to.have.length(1);
    const written = await Promise.all(owners.map((o) => store.readStream(o)));
    expect(written.filter((events) => events.length > 0)).to.have.length(1);
  });

  it('an append signs from a stale cached head only once: the refused call answers with the true head', async () => {
    const stream = `stale-${randomUUID()}`;
    await store.append(stream, [{ type: 'A', data: {}, metadata }]);
    // Another process appends behind this one's back (its own store, same database).
    const other = await createTestEventStoreOn(db);
    await other.append(stream, [{ type: 'B', data: {}, metadata }]);
    const result = await store.append(stream, [{ type: 'C', data: {}, metadata }]);
    expect(result.nextRevision).to.equal(2n);
    const events = await store.readStream(stream);
    expect(events.map((e) => e.type)).to.deep.equal(['A', 'B', 'C']);
    expect(verifyStreamChain(new AuditSigner(TEST_SIGNING_KEY), events)).to.deep.equal([]);
    await other.close();
  });
});
