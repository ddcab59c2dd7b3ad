import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import pino from 'pino';
import { createCommandHandler } from '../../../src/platform/command-handling/command-handler';
import { type EventStore, type NewEvent, WrongExpectedRevisionError } from '../../../src/platform/eventstore/types';
import type { Database } from '../../../src/platform/infra/database';
import { readCheckpoint } from '../../../src/platform/projection-runner/checkpoints';
import { degradedProjectors, openDeadLetters } from '../../../src/platform/projection-runner/dead-letters';
import { InlineProjectionFailed } from '../../../src/platform/projection-runner/inline-projections';
import { createAdvisoryLeaderLock } from '../../../src/platform/projection-runner/leader-lock';
import type { Projector } from '../../../src/platform/projection-runner/projector';
import { ProjectionRunner } from '../../../src/platform/projection-runner/runner';
import { createTestEventStore, TEST_SIGNING_KEY } from '../../support/event-store';
import { AuditSigner } from '../../../src/platform/eventstore/audit-signature';
import { createPostgresEventStore } from '../../../src/platform/eventstore/postgres/postgres-event-store';
import { noteDecider, notesProjector, noteStream } from '../../support/toy-context';

/**
 * Inline projectors: written in the append's own transaction, so a read right
 * after the append sees them, a failed apply appends nothing, and a rebuild from the log
 * gives the same rows.
 */
describe('inline projections', () => {
  let db: Database;
  let store: EventStore;
  let cleanup: () => Promise<void>;
  let runners: ProjectionRunner[];
  const tenantId = 'tenant-a';
  const meta = () => ({ tenantId, actorId: 'tester', correlationId: randomUUID(), causationId: randomUUID() });
  const created = (id: string, title = 'first'): NewEvent => ({
    id: randomUUID(),
    type: 'NoteCreated',
    data: { noteId: id, title },
    metadata: meta(),
  });
  const renamed = (title: string): NewEvent => ({
    id: randomUUID(),
    type: 'NoteRenamed',
    data: { title },
    metadata: meta(),
  });

  beforeEach(async () => {
    ({ db, store, cleanup } = await createTestEventStore());
    runners = [];
  });
  afterEach(async () => {
    for (const r of runners) await r.stop();
    await cleanup();
  });

  const inlineNotes = (version = 1, fail?: (event: { type: string; data: unknown }) => boolean): Projector => ({
    ...notesProjector(version, fail),
    consistency: 'inline',
  });

  async function start(projectors: Projector[]): Promise<ProjectionRunner> {
    // A lane that never moves: anything read-your-writes would time out, inline must not wait.
    const r = new ProjectionRunner({
      knex: db.knex,
      store,
      projectors,
      logger: pino({ level: 'silent' }),
      leaderLock: createAdvisoryLeaderLock(db.url),
      idleMs: 50,
    });
    runners.push(r);
    await r.start();
    return r;
  }

  const notes = () => db.knex('toy_notes').select('id', 'title', 'status', 'renames').orderBy('id');

  it('writes the read model in the append transaction: the row is there when append returns', async () => {
    await start([inlineNotes()]);
    const id = randomUUID();
    await store.append(noteStream(tenantId, id), [created(id)]);
    expect(await notes()).to.deep.equal([{ id, title: 'first', status: 'active', renames: 0 }]);
    await store.append(noteStream(tenantId, id), [renamed('second'), renamed('third')], { expectedRevision: 0n });
    expect(await notes()).to.deep.equal([{ id, title: 'third', status: 'active', renames: 2 }]);
  });

  it('a command waits for no inline projector', async () => {
    const r = await start([inlineNotes()]);
    const handle = createCommandHandler({
      store,
      projections: r,
      logger: pino({ level: 'silent' }),
      projectionWaitMs: 5000,
    });
    const id = randomUUID();
    const began = Date.now();
    await handle(
      noteDecider,
      noteStream(tenantId, id),
      { type: 'CreateNote', noteId: id, title: 'quick' },
      { tenantId, actorId: 'tester' },
    );
    expect(Date.now() - began).to.be.below(1000);
    expect(await notes()).to.have.length(1);
    expect(await r.waitFor(await store.headPosition(), 0)).to.equal(true);
  });

  it('an apply that throws fails the append: nothing is stored, the error names the projector', async () => {
    await start([inlineNotes(1, (e) => (e.data as { title?: string }).title === 'poison')]);
    const id = randomUUID();
    const error = await store.append(noteStream(tenantId, id), [created(id, 'poison')]).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(InlineProjectionFailed);
    expect((error as InlineProjectionFailed).projector).to.equal('toy_notes');
    expect(await store.readStream(noteStream(tenantId, id))).to.deep.equal([]);
    expect(await notes()).to.deep.equal([]);
    // The stream is untouched, so the next append starts it afresh.
    await store.append(noteStream(tenantId, id), [created(id, 'fine')], { expectedRevision: 'no_stream' });
    expect((await notes()).map((n) => n.title)).to.deep.equal(['fine']);
  });

  it('rows an earlier projector wrote in the append are rolled back with it when a later one fails', async () => {
    const failing: Projector = {
      name: 'toy_failing',
      version: 1,
      tables: [],
      consistency: 'inline',
      eventTypes: ['NoteCreated'],
      createTables: async () => undefined,
      async apply(_trx, event) {
        if ((event.data as { title?: string }).title === 'poison') throw new Error('refused');
      },
    };
    await start([inlineNotes(), failing]);
    const id = randomUUID();
    const error = await store.append(noteStream(tenantId, id), [created(id, 'poison')]).catch((e: unknown) => e);
    expect((error as InlineProjectionFailed).projector).to.equal('toy_failing');
    expect(await notes(), 'the notes row written before the failure').to.deep.equal([]);
    expect(await store.readStream(noteStream(tenantId, id))).to.deep.equal([]);
    // The connection went back to the pool clean: the next append on it commits normally.
    await store.append(noteStream(tenantId, id), [created(id, 'fine')], { expectedRevision: 'no_stream' });
    expect((await notes()).map((n) => n.title)).to.deep.equal(['fine']);
  });

  it("given a multi-stream write whose later stream is refused, when the earlier stream's events would break a projector, then the refusal is the answer and the projectors see the write only once it is whole", async () => {
    const seen: string[][] = [];
    const watching: Projector = {
      name: 'toy_watching',
      version: 1,
      tables: [],
      consistency: 'inline',
      eventTypes: ['NoteCreated'],
      createTables: async () => undefined,
      async apply() {
        throw new Error('apply is not called when applyBatch exists');
      },
      async applyBatch(_trx, events) {
        seen.push(events.map((e) => e.stream));
        if (events.some((e) => (e.data as { title?: string }).title === 'duplicate')) throw new Error('unique index');
      },
    };
    await start([watching]);
    const [a, b] = [randomUUID(), randomUUID()];
    // Stream names sort "toy.note-…-a" before "toy.zz-…": the note is appended first.
    const claimed = `toy.zz-${randomUUID()}`;
    await store.append(claimed, [{ ...renamed('held'), type: 'Held' }]);
    const error = await store
      .appendMany([
        { stream: noteStream(tenantId, a), expectedRevision: 'no_stream', events: [created(a, 'duplicate')] },
        { stream: claimed, expectedRevision: 'no_stream', events: [{ ...renamed('claim'), type: 'Held' }] },
      ])
      .catch((e: unknown) => e);
    expect(error).to.be.instanceOf(WrongExpectedRevisionError);
    expect(seen, 'nothing applied before the refusal').to.deep.equal([]);
    await store.appendMany([
      { stream: noteStream(tenantId, a), expectedRevision: 'no_stream', events: [created(a)] },
      { stream: noteStream(tenantId, b), expectedRevision: 'no_stream', events: [created(b)] },
    ]);
    expect(seen, 'one batch with both streams, in log order').to.deep.equal([
      [noteStream(tenantId, a), noteStream(tenantId, b)].sort(),
    ]);
  });

  it('re-appending stored event ids is a no-op and applies nothing twice', async () => {
    await start([inlineNotes()]);
    const id = randomUUID();
    await store.append(noteStream(tenantId, id), [created(id)]);
    const rename = renamed('again');
    await store.append(noteStream(tenantId, id), [rename], { expectedRevision: 0n });
    await store.append(noteStream(tenantId, id), [rename]);
    expect(await notes()).to.deep.equal([{ id, title: 'again', status: 'active', renames: 1 }]);
  });

  it('a refused expected revision applies nothing, and an atomic multi-stream append rolls back whole', async () => {
    await start([inlineNotes()]);
    const [a, b] = [randomUUID(), randomUUID()];
    await store.append(noteStream(tenantId, a), [created(a)]);
    const refused = await store
      .append(noteStream(tenantId, a), [renamed('late')], { expectedRevision: 5n })
      .catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(WrongExpectedRevisionError);
    const many = await store
      .appendMany([
        { stream: noteStream(tenantId, b), events: [created(b)], expectedRevision: 'no_stream' },
        { stream: noteStream(tenantId, a), events: [renamed('late')], expectedRevision: 7n },
      ])
      .catch((e: unknown) => e);
    expect(many).to.be.instanceOf(WrongExpectedRevisionError);
    expect(await notes()).to.deep.equal([{ id: a, title: 'first', status: 'active', renames: 0 }]);
  });

  it('concurrent appends under "any" each apply once, in the order the log keeps', async () => {
    await start([inlineNotes()]);
    const id = randomUUID();
    await store.append(noteStream(tenantId, id), [created(id)]);
    await Promise.all(Array.from({ length: 12 }, (_, i) => store.append(noteStream(tenantId, id), [renamed(`t${i}`)])));
    const [row] = await notes();
    expect(row.renames).to.equal(12);
    // The global log holds the stream in revision order, so a rebuild folds it the same way.
    const logged = await store.readAll({ filter: { streamPrefixes: [noteStream(tenantId, id)] } });
    expect(logged.map((e) => Number(e.revision))).to.deep.equal(Array.from({ length: 13 }, (_, i) => i));
    expect(row.title).to.equal((logged[12].data as { title: string }).title);
  });

  it('on a store without a shared transaction (EventStoreDB) an inline projector runs as a read-your-writes lane', async () => {
    const { useInlineProjections: _, ...plain } = store;
    const r = new ProjectionRunner({
      knex: db.knex,
      store: plain as EventStore,
      projectors: [inlineNotes()],
      logger: pino({ level: 'silent' }),
      leaderLock: createAdvisoryLeaderLock(db.url),
      idleMs: 50,
    });
    runners.push(r);
    await r.start();
    const id = randomUUID();
    const { position } = await plain.append(noteStream(tenantId, id), [created(id)]);
    expect(await r.waitFor(position, 5000, ['NoteCreated'])).to.equal(true);
    expect(await notes()).to.deep.equal([{ id, title: 'first', status: 'active', renames: 0 }]);
  });

  it('a rebuild parks an event the projector cannot apply in the dead letters and goes on', async () => {
    const [good, bad] = [randomUUID(), randomUUID()];
    await store.append(noteStream(tenantId, bad), [created(bad, 'poison')]);
    await store.append(noteStream(tenantId, good), [created(good, 'fine')]);
    await start([inlineNotes(1, (e) => (e.data as { title?: string }).title === 'poison')]);
    expect((await notes()).map((n) => n.id)).to.deep.equal([good]);
    const letters = await openDeadLetters(db.knex, 'toy_notes');
    expect(letters.map((l) => l.eventId)).to.have.length(1);
    expect(await degradedProjectors(db.knex)).to.deep.equal(['toy_notes']);
  });

  it('rebuilds from the log: on first sight over existing events, on a version bump, and on demand', async () => {
    // Written before the projector existed: the first start must fold them in.
    const ids = [randomUUID(), randomUUID()];
    for (const id of ids) await store.append(noteStream(tenantId, id), [created(id, 'old')]);
    const first = await start([inlineNotes()]);
    expect((await notes()).map((n) => n.title)).to.deep.equal(['old', 'old']);
    await store.append(noteStream(tenantId, ids[0]), [renamed('new')], { expectedRevision: 0n });
    const expected = await notes();
    await first.stop();

    const bumped = await start([inlineNotes(2)]);
    expect(await notes()).to.deep.equal(expected);
    expect((await readCheckpoint(db.knex, 'toy_notes'))?.version).to.equal(2);

    // On demand, while appends keep arriving: every one lands once, in the swapped-in tables.
    const writes = Promise.all(
      Array.from({ length: 20 }, (_, i) => store.append(noteStream(tenantId, ids[1]), [renamed(`w${i}`)])),
    );
    await bumped.rebuild('toy_notes');
    await writes;
    const after = await notes();
    expect(after.find((n) => n.id === ids[1])?.renames).to.equal(20);
    await bumped.rebuild('toy_notes');
    expect(await notes()).to.deep.equal(after);
  });

  describe('group commit of concurrent appends', () => {
    beforeEach(async () => {
      await cleanup();
      // One group at a time, so concurrent appends must share it.
      ({ db, store, cleanup } = await createTestEventStore({ groupCommit: { maxGroups: 1 } }));
    });

    const transactionsOf = async (streams: string[]) =>
      Number(
        (
          await db
            .knex('events')
            .whereIn('stream_id', streams)
            .countDistinct<{ count: string }[]>('transaction_id as count')
        )[0].count,
      );

    it('forty concurrent appends land with their rows, in fewer transactions than appends', async () => {
      await start([inlineNotes()]);
      const ids = Array.from({ length: 40 }, () => randomUUID());
      const results = await Promise.all(
        ids.map((id) =>
          store.append(noteStream(tenantId, id), [created(id, `note ${id}`)], { expectedRevision: 'no_stream' }),
        ),
      );
      expect(results.every((r) => r.nextRevision === 0n)).to.equal(true);
      expect((await notes()).map((n) => n.id)).to.deep.equal([...ids].sort());
      expect(await transactionsOf(ids.map((id) => noteStream(tenantId, id)))).to.be.below(40);
    });

    it('in one group, a failing projector, a stale revision and a reused id each fail alone; the others land', async () => {
      await start([inlineNotes(1, (e) => (e.data as { title?: string }).title === 'poison')]);
      const existing = randomUUID();
      await store.append(noteStream(tenantId, existing), [created(existing)]);
      const reused = created(randomUUID());
      const reusedStream = noteStream(tenantId, randomUUID());
      await store.append(reusedStream, [reused]);
      const good = Array.from({ length: 6 }, () => randomUUID());
      const poison = randomUUID();
      const outcomes = await Promise.allSettled([
        ...good.map((id) => store.append(noteStream(tenantId, id), [created(id)], { expectedRevision: 'no_stream' })),
        store.append(noteStream(tenantId, poison), [created(poison, 'poison')]),
        store.append(noteStream(tenantId, existing), [renamed('stale')], { expectedRevision: 5n }),
        store.append(noteStream(tenantId, randomUUID()), [reused]),
      ]);
      expect(outcomes.slice(0, 6).map((o) => o.status)).to.deep.equal(Array(6).fill('fulfilled'));
      const [poisoned, stale, again] = outcomes.slice(6) as PromiseRejectedResult[];
      expect(poisoned.reason).to.be.instanceOf(InlineProjectionFailed);
      expect(stale.reason).to.be.instanceOf(WrongExpectedRevisionError);
      expect(again.status).to.equal('rejected');
      expect(await store.readStream(noteStream(tenantId, poison))).to.deep.equal([]);
      const ids = (await notes()).map((n) => n.id);
      for (const id of good) expect(ids).to.include(id);
      expect(ids).to.not.include(poison);
      expect((await notes()).find((n) => n.id === existing)).to.include({ title: 'first', renames: 0 });
    });

    it('appends to one stream under "any" in one group each land once, in revision order', async () => {
      await start([inlineNotes()]);
      const id = randomUUID();
      const stream = noteStream(tenantId, id);
      await store.append(stream, [created(id)]);
      await Promise.all(Array.from({ length: 10 }, (_, i) => store.append(stream, [renamed(`r${i}`)])));
      const events = await store.readStream(stream);
      expect(events.map((e) => e.revision)).to.deep.equal(Array.from({ length: 11 }, (_, i) => BigInt(i)));
      const all = await store.readAll({ filter: { streamPrefixes: [stream] } });
      expect(all.map((e) => e.revision)).to.deep.equal(events.map((e) => e.revision));
      expect((await notes()).find((n) => n.id === id)).to.include({ renames: 10 });
    });
  });

  it("a follower that starts before the leader created an inline projector's tables appends without it, and attaches it once they exist", async () => {
    // Another instance: its own store, and a lock it never gets.
    const followerStore = createPostgresEventStore({
      pool: db.pool,
      signer: new AuditSigner(TEST_SIGNING_KEY),
      pollIntervalMs: 100,
    });
    const never = { tryAcquire: async () => false, isHeld: () => false, release: async () => undefined };
    const follower = new ProjectionRunner({
      knex: db.knex,
      store: followerStore,
      projectors: [inlineNotes()],
      logger: pino({ level: 'silent' }),
      leaderLock: never,
      idleMs: 50,
    });
    runners.push(follower);
    await follower.start();
    const early = randomUUID();
    await followerStore.append(noteStream(tenantId, early), [created(early)]);
    await start([inlineNotes()]);
    expect((await notes()).map((r) => r.id)).to.include(early);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const later = randomUUID();
    await followerStore.append(noteStream(tenantId, later), [created(later)]);
    expect((await notes()).map((r) => r.id)).to.include(later);
    await follower.stop();
    await followerStore.close();
  });

  describe('an instance running another version of an inline projector (rolling deploy)', () => {
    let others: EventStore[];
    beforeEach(() => (others = []));
    afterEach(async () => {
      for (const r of runners) await r.stop();
      runners = [];
      for (const s of others) await s.close();
    });

    /** Another instance on the same database: its own store, and a leader lock it never gets. */
    async function otherInstance(projectors: Projector[]) {
      const otherStore = createPostgresEventStore({
        pool: db.pool,
        signer: new AuditSigner(TEST_SIGNING_KEY),
        pollIntervalMs: 100,
      });
      const never = { tryAcquire: async () => false, isHeld: () => false, release: async () => undefined };
      const runner = new ProjectionRunner({
        knex: db.knex,
        store: otherStore,
        projectors,
        logger: pino({ level: 'silent' }),
        leaderLock: never,
        idleMs: 50,
      });
      runners.push(runner);
      others.push(otherStore);
      await runner.start();
      return { store: otherStore, runner };
    }

    /** Polls until the read model equals `expected` or the time is up; answers the last rows. */
    async function settle(expected: unknown[], ms = 3000): Promise<unknown[]> {
      const until = Date.now() + ms;
      let rows = await notes();
      while (JSON.stringify(rows) !== JSON.stringify(expected) && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 50));
        rows = await notes();
      }
      return rows;
    }

    it('given a follower built with another version, when it appends, then the leader applies its events in log order and the read model equals its rebuild', async () => {
      const leader = await start([inlineNotes(1)]);
      const other = await otherInstance([inlineNotes(2)]);
      const a = randomUUID();
      const b = randomUUID();
      await other.store.append(noteStream(tenantId, a), [created(a, 'from the other')]);
      // The leader's own append of the same note lands while the gap is (likely) still open: it
      // must not be applied before the create it follows.
      await store.append(noteStream(tenantId, a), [renamed('renamed by the leader')], { expectedRevision: 0n });
      await other.store.append(noteStream(tenantId, a), [renamed('renamed by the other')], { expectedRevision: 1n });
      await store.append(noteStream(tenantId, b), [created(b, 'leader only')]);
      const expected = [
        { id: a, title: 'renamed by the other', status: 'active', renames: 2 },
        { id: b, title: 'leader only', status: 'active', renames: 0 },
      ].sort((x, y) => (x.id < y.id ? -1 : 1));
      expect(await settle(expected), 'the read model, without a rebuild').to.deep.equal(expected);
      expect(await db.knex('inline_projection_gaps').count<Array<{ count: string }>>('* as count')).to.deep.equal([
        { count: '0' },
      ]);
      expect(await openDeadLetters(db.knex, 'toy_notes')).to.deep.equal([]);
      await leader.rebuild('toy_notes');
      expect(await notes(), 'the rebuild from the log').to.deep.equal(expected);
    });

    it('given a gap being recorded, when an attached instance appends for the same projector, then it waits and records its event after it instead of applying it first', async () => {
      // A leader that drains only when asked: the test sees what the append itself did.
      const projector = inlineNotes(1);
      const leader = new ProjectionRunner({
        knex: db.knex,
        store,
        projectors: [projector],
        logger: pino({ level: 'silent' }),
        leaderLock: createAdvisoryLeaderLock(db.url),
        idleMs: 60_000,
      });
      runners.push(leader);
      await leader.start();
      // Another version's append in flight: it holds the projector's lock and its gap row.
      const recorder = await db.pool.connect();
      try {
        await recorder.query('BEGIN');
        await recorder.query("SELECT inline_projection_gaps_open('{}', '{}', '{toy_notes}')");
        const id = randomUUID();
        let appended = false;
        const append = store.append(noteStream(tenantId, id), [created(id)]).then((result) => {
          appended = true;
          return result;
        });
        await new Promise((r) => setTimeout(r, 300));
        expect(appended, 'the append waits for the recorder').to.equal(false);
        // The recorder writes only now: an append that wrote before taking the lock would sort first.
        await recorder.query("INSERT INTO inline_projection_gaps VALUES ('toy_notes', '1', 0)");
        const recorderTx = BigInt((await recorder.query('SELECT pg_current_xact_id()::text AS tx')).rows[0].tx);
        await recorder.query('COMMIT');
        const { position } = await append;
        expect(position.commit > recorderTx, 'the append sorts after the recorder').to.equal(true);
        expect(await notes(), 'not applied ahead of the gap').to.deep.equal([]);
        const gaps = await db.knex('inline_projection_gaps').where({ projector: 'toy_notes' });
        expect(gaps).to.have.length(2);
        while ((await leader.drainGaps(projector)) > 0);
        expect((await notes()).map((n) => n.id)).to.deep.equal([id]);
      } finally {
        recorder.release();
      }
    });

    it('given a gap being recorded for one projector, when an append feeds only another inline projector, then it neither waits for that lock nor records a gap', async () => {
      const other: Projector = {
        name: 'toy_other',
        version: 1,
        tables: ['toy_other'],
        eventTypes: ['OtherHappened'],
        consistency: 'inline',
        createTables: (knex) => knex.schema.createTable('toy_other', (t) => void t.text('id').primary()),
        apply: async (trx, event) => void (await trx('toy_other').insert({ id: (event.data as { id: string }).id })),
      };
      await start([inlineNotes(1), other]);
      const recorder = await db.pool.connect();
      try {
        await recorder.query('BEGIN');
        await recorder.query("SELECT inline_projection_gaps_open('{}', '{}', '{toy_notes}')");
        const id = randomUUID();
        // Awaited while the recorder holds toy_notes' lock: were every inline projector locked, this would hang.
        await store.append(`toy_other-${id}`, [
          { id: randomUUID(), type: 'OtherHappened', data: { id }, metadata: meta() },
        ]);
        expect(await db.knex('toy_other').pluck('id')).to.deep.equal([id]);
        expect(await db.knex('inline_projection_gaps')).to.deep.equal([]);
        await recorder.query('ROLLBACK');
      } finally {
        recorder.release();
      }
    });

    it('given an instance attached at the old version, when a new leader rebuilds at another, then its next append records a gap at once instead of writing the new tables with the old apply', async () => {
      const oldLeader = await start([inlineNotes(1)]);
      // The old build's apply must not run once the tables stand at version 2.
      const oldApply: Projector = {
        ...inlineNotes(1),
        apply: async () => {
          throw new Error('the old apply ran on the new tables');
        },
      };
      const old = await otherInstance([oldApply]);
      await oldLeader.stop();
      const newLeader = await start([inlineNotes(2)]);
      expect((await readCheckpoint(db.knex, 'toy_notes'))?.version).to.equal(2);
      const id = randomUUID();
      await old.store.append(noteStream(tenantId, id), [created(id, 'from the old build')]);
      const expected = [{ id, title: 'from the old build', status: 'active', renames: 0 }];
      expect(await settle(expected)).to.deep.equal(expected);
      await newLeader.rebuild('toy_notes');
      expect(await notes()).to.deep.equal(expected);
    });

    it('given no leader runs the stored version, when another version appends, then the gaps wait and the lane report names the projector with their lag', async () => {
      const leader = await start([inlineNotes(1)]);
      await leader.stop();
      const other = await otherInstance([inlineNotes(2)]);
      const id = randomUUID();
      await other.store.append(noteStream(tenantId, id), [created(id)]);
      await new Promise((r) => setTimeout(r, 200));
      expect(await notes()).to.deep.equal([]);
      const report = (await other.runner.lanesReport()).find((lane) => lane.name === 'toy_notes');
      expect(report).to.include({ kind: 'projection', lag_events: 1, subscribed: null });
      // A leader of the stored version drains them.
      await start([inlineNotes(1)]);
      const expected = [{ id, title: 'first', status: 'active', renames: 0 }];
      expect(await settle(expected)).to.deep.equal(expected);
      expect((await other.runner.lanesReport()).map((lane) => lane.name)).to.not.include('toy_notes');
    });

    it('given an event the projector cannot apply, when the leader drains it, then it goes to the dead letters and the rest is applied', async () => {
      await start([inlineNotes(1, (e) => (e.data as { title?: string }).title === 'poison')]);
      const other = await otherInstance([inlineNotes(2)]);
      const a = randomUUID();
      const b = randomUUID();
      await other.store.append(noteStream(tenantId, a), [created(a, 'poison')]);
      await other.store.append(noteStream(tenantId, b), [created(b, 'fine')]);
      const expected = [{ id: b, title: 'fine', status: 'active', renames: 0 }];
      expect(await settle(expected)).to.deep.equal(expected);
      expect((await openDeadLetters(db.knex, 'toy_notes')).map((l) => l.type)).to.deep.equal(['NoteCreated']);
    });
  });
});
