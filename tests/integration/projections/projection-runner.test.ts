import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import pino from 'pino';
import { Writable } from 'node:stream';
import { Client } from 'pg';
import { createCommandHandler } from '../../../src/platform/command-handling/command-handler';
import type { EventStore } from '../../../src/platform/eventstore/types';
import type { Database } from '../../../src/platform/infra/database';
import { readCheckpoint } from '../../../src/platform/projection-runner/checkpoints';
import { degradedProjectors, openDeadLetters } from '../../../src/platform/projection-runner/dead-letters';
import { createAdvisoryLeaderLock } from '../../../src/platform/projection-runner/leader-lock';
import { ProjectionRunner } from '../../../src/platform/projection-runner/runner';
import type { Projector } from '../../../src/platform/projection-runner/projector';
import { createTestEventStore, storeWhoseFirstSubscriptionDies } from '../../support/event-store';
import { noteDecider, notesProjector, noteStream } from '../../support/toy-context';

function captureLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines };
}

describe('projection runner', () => {
  let db: Database;
  let store: EventStore;
  let cleanup: () => Promise<void>;
  const tenantId = 'tenant-a';
  const ctx = { tenantId, actorId: 'tester' };

  beforeEach(async () => {
    ({ db, store, cleanup } = await createTestEventStore());
  });
  afterEach(() => cleanup());

  function runner(projectors: Projector[], logger = pino({ level: 'silent' }), batchSize = 1000) {
    return new ProjectionRunner({
      knex: db.knex,
      store,
      projectors,
      logger,
      leaderLock: createAdvisoryLeaderLock(db.url),
      batchSize,
      idleMs: 50,
    });
  }

  /** The notes projector, recording how many events each batch it applied held. */
  function batchCountingNotes(consistency?: Projector['consistency']): { projector: Projector; batches: number[] } {
    const batches: number[] = [];
    const base = notesProjector();
    const projector: Projector = {
      ...base,
      ...(consistency ? { consistency } : {}),
      async applyBatch(trx, events) {
        batches.push(events.length);
        for (const event of events) await base.apply(trx, event);
      },
    };
    return { projector, batches };
  }

  async function createNotes(count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const id = randomUUID();
      ids.push(id);
      await store.append(noteStream(tenantId, id), [
        {
          type: 'NoteCreated',
          data: { noteId: id, title: `note ${i}` },
          metadata: { ...ctx, correlationId: id, causationId: id },
        },
      ]);
    }
    return ids;
  }

  it('creates the tables of a new projector and catches up on existing events', async () => {
    await createNotes(5);
    const r = runner([notesProjector()]);
    await r.start();
    expect(await r.waitFor(await store.headPosition(), 5000)).to.equal(true);
    expect(await db.knex('toy_notes').count<{ count: string }[]>('* as count')).to.deep.equal([{ count: '5' }]);
    // caughtUp flips on the lane's next (empty) read after the last batch.
    const deadline = Date.now() + 2000;
    while (!r.caughtUp && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(r.caughtUp).to.equal(true);
    await r.stop();
  });

  it('a failure inside apply leaves read model and checkpoint consistent, logs it, and resumes after restart', async () => {
    const ids = await createNotes(3);
    let poisoned = true;
    const failing = notesProjector(
      1,
      (e) => poisoned && e.type === 'NoteCreated' && (e.data as { noteId: string }).noteId === ids[2],
    );
    const { logger, lines } = captureLogger();
    const first = runner([failing], logger, 2);
    await first.start();
    await new Promise((r) => setTimeout(r, 400));
    // The batch holding the poisoned event rolled back whole: only the first batch (2 notes) is in.
    const rows = await db.knex('toy_notes').select('id').orderBy('id');
    expect(rows.map((r) => r.id).sort()).to.deep.equal([ids[0], ids[1]].sort());
    const checkpoint = await readCheckpoint(db.knex, 'toy_notes');
    expect(checkpoint?.status).to.equal('failed');
    expect(checkpoint?.lastError).to.match(/failure injected/);
    expect(Number(checkpoint?.eventsApplied)).to.equal(2);
    expect(
      lines.some((l) => l.projector === 'toy_notes' && String(l.msg).includes('projection batch failed')),
    ).to.equal(true);
    await first.stop();

    poisoned = false;
    const second = runner([failing]);
    await second.start();
    expect(await second.waitFor(await store.headPosition(), 5000)).to.equal(true);
    expect(await db.knex('toy_notes').count<{ count: string }[]>('* as count')).to.deep.equal([{ count: '3' }]);
    const healed = await readCheckpoint(db.knex, 'toy_notes');
    expect(healed?.status).to.equal('running');
    expect(Number(healed?.eventsApplied)).to.equal(3);
    await second.stop();
  });

  it('rebuilds a projector from zero when its version changes', async () => {
    await createNotes(4);
    const v1 = runner([notesProjector(1)]);
    await v1.start();
    await v1.waitFor(await store.headPosition(), 5000);
    await db.knex('toy_notes').update({ title: 'corrupted by hand' });
    await v1.stop();

    const v2 = runner([notesProjector(2)]);
    await v2.start();
    expect(await v2.waitFor(await store.headPosition(), 5000)).to.equal(true);
    const titles = (await db.knex('toy_notes').select('title')).map((r) => r.title);
    expect(titles).to.have.length(4);
    expect(titles).not.to.include('corrupted by hand');
    expect((await readCheckpoint(db.knex, 'toy_notes'))?.version).to.equal(2);
    await v2.stop();
  });

  it('with two instances only one projects; the other waits on checkpoints and takes over when the leader stops', async () => {
    const a = runner([notesProjector()]);
    const b = runner([notesProjector()]);
    await a.start();
    await b.start();
    expect([a.isLeader, b.isLeader]).to.deep.equal([true, false]);

    const handle = createCommandHandler({ store, projections: b, logger: pino({ level: 'silent' }) });
    const id = randomUUID();
    await handle(
      noteDecider,
      noteStream(tenantId, id),
      { type: 'CreateNote', noteId: id, title: 'seen through the follower' },
      ctx,
    );
    expect(await db.knex('toy_notes').where({ id }).first()).to.include({ title: 'seen through the follower' });

    await a.stop();
    const deadline = Date.now() + 5000;
    while (!b.isLeader && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(b.isLeader).to.equal(true);
    const later = randomUUID();
    await handle(
      noteDecider,
      noteStream(tenantId, later),
      { type: 'CreateNote', noteId: later, title: 'after failover' },
      ctx,
    );
    expect(await db.knex('toy_notes').where({ id: later }).first()).to.include({ title: 'after failover' });
    await b.stop();
  });

  it('a follower does not wait for the leader to save a skip over events a projector ignores', async () => {
    const unrelated: Projector = {
      ...notesProjector(),
      name: 'toy_unrelated',
      tables: ['toy_unrelated'],
      eventTypes: ['SomethingElse'],
      createTables: async (knex) => knex.schema.createTable('toy_unrelated', (t) => t.text('id')),
    };
    const leader = runner([notesProjector(), unrelated]);
    const follower = runner([notesProjector(), unrelated]);
    await leader.start();
    await follower.start();
    expect(follower.isLeader).to.equal(false);
    const [id] = await createNotes(1);
    // The leader saves toy_unrelated's skip at most once a second; the follower must not need it.
    expect(await follower.waitFor(await store.headPosition(), 600)).to.equal(true);
    expect(await db.knex('toy_notes').where({ id }).first()).to.include({ id });
    await follower.stop();
    await leader.stop();
  });

  it('a rebuild fills shadow tables while readers keep the live ones, swaps them in one transaction, and the live leader carries on', async () => {
    await createNotes(300);
    const leader = runner([notesProjector()]);
    await leader.start();
    expect(await leader.waitFor(await store.headPosition(), 10_000)).to.equal(true);
    await db.knex('toy_notes').update({ title: 'corrupted by hand' });

    let reading = true;
    const seen: number[] = [];
    const reader = (async () => {
      while (reading) {
        const [{ count }] = await db.knex('toy_notes').count<{ count: string }[]>('* as count');
        seen.push(Number(count));
      }
    })();
    const other = runner([notesProjector()], pino({ level: 'silent' }), 50);
    const progress: number[] = [];
    const writing = createNotes(20);
    const result = await other.rebuild('toy_notes', (p) => progress.push(p.applied));
    await writing;
    reading = false;
    await reader;
    expect(seen.length).to.be.greaterThan(0);
    expect(Math.min(...seen), 'a reader saw a missing or emptied table').to.be.at.least(300);
    expect(result.applied).to.be.at.least(300);
    expect(progress.length).to.be.greaterThan(1);

    const later = await createNotes(1);
    expect(await leader.waitFor(await store.headPosition(), 10_000)).to.equal(true);
    const rows = await db.knex('toy_notes').select('id', 'title');
    expect(rows).to.have.length(321);
    expect(rows.map((r) => r.title)).not.to.include('corrupted by hand');
    expect(rows.map((r) => r.id)).to.include(later[0]);
    expect(Number((await readCheckpoint(db.knex, 'toy_notes'))?.eventsApplied)).to.equal(321);
    await leader.stop();
    await other.stop();
  });

  it('waitFor answers false when projections cannot reach the position in time', async () => {
    const r = runner([notesProjector(1, () => true)]);
    await r.start();
    const [id] = await createNotes(1);
    const head = await store.headPosition();
    expect(await r.waitFor(head, 200)).to.equal(false);
    expect(id).to.be.a('string');
    await r.stop();
  });

  it("fenced: killing the leader's lock session stops its lanes; every event is applied exactly once and checkpoints only move forwards", async () => {
    const a = runner([notesProjector()]);
    const b = runner([notesProjector()]);
    await a.start();
    await b.start();
    expect([a.isLeader, b.isLeader]).to.deep.equal([true, false]);
    const seen: bigint[] = [];
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const row = await readCheckpoint(db.knex, 'toy_notes');
        if (row) seen.push(row.position.commit * 1_000_000_000n + row.position.prepare);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const writing = createNotes(60);
    await new Promise((r) => setTimeout(r, 150));
    // The leader's lock lives in one backend: terminate it, as a lost connection or a restart would.
    await db.knex.raw(
      `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objid = 72114001 AND granted`,
    );
    const ids = await writing;
    const more = await createNotes(20);
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const count = Number((await db.knex('toy_notes').count<{ count: string }[]>('* as count'))[0].count);
      if (count >= 80 && (a.isLeader || b.isLeader)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    watching = false;
    await watcher;
    const rows = await db.knex('toy_notes').select('id');
    expect(rows).to.have.length(80);
    expect(new Set(rows.map((r) => r.id))).to.deep.equal(new Set([...ids, ...more]));
    for (let i = 1; i < seen.length; i++) expect(seen[i] >= seen[i - 1], 'checkpoint moved backwards').to.equal(true);
    const checkpoint = await readCheckpoint(db.knex, 'toy_notes');
    expect(Number(checkpoint?.eventsApplied)).to.equal(80);
    expect([a.isLeader, b.isLeader].filter(Boolean), 'exactly one leader after the fence').to.have.length(1);
    await a.stop();
    await b.stop();
  });

  it('a poison event goes to the dead-letter table after its retries; the projector goes on and retry applies it after a fix', async () => {
    const ids = await createNotes(3);
    let poisoned = true;
    const failing = notesProjector(1, (e) => poisoned && (e.data as { noteId?: string }).noteId === ids[1]);
    const r = new ProjectionRunner({
      knex: db.knex,
      store,
      projectors: [failing],
      logger: pino({ level: 'silent' }),
      leaderLock: createAdvisoryLeaderLock(db.url),
      idleMs: 50,
      retryBaseMs: 5,
      deadLetterAfter: 3,
    });
    await r.start();
    expect(await r.waitFor(await store.headPosition(), 5000)).to.equal(true);
    const later = await createNotes(1);
    expect(await r.waitFor(await store.headPosition(), 5000)).to.equal(true);
    const present = (await db.knex('toy_notes').select('id')).map((row) => row.id).sort();
    expect(present).to.deep.equal([ids[0], ids[2], later[0]].sort());
    const letters = await openDeadLetters(db.knex, 'toy_notes');
    expect(letters.map((l) => [l.eventId.length, l.type, l.attempts])).to.deep.equal([[36, 'NoteCreated', 3]]);
    expect(letters[0].error).to.match(/failure injected/);
    expect(await degradedProjectors(db.knex)).to.deep.equal(['toy_notes']);

    poisoned = false;
    expect(await r.retryDeadLetters('toy_notes')).to.deep.equal({ resolved: 1, remaining: 0 });
    expect(await db.knex('toy_notes').where({ id: ids[1] }).first()).to.include({ id: ids[1] });
    expect(await degradedProjectors(db.knex)).to.deep.equal([]);
    await r.stop();
  });

  it('a command waits only for the projectors that handle what it appended', async () => {
    const stuck: Projector = {
      ...notesProjector(1, () => true),
      name: 'toy_stuck',
      tables: ['toy_stuck'],
      eventTypes: ['Unrelated'],
      createTables: async (knex) => knex.schema.createTable('toy_stuck', (t) => t.text('id')),
      apply: async () => {
        throw new Error('always');
      },
    };
    const r = runner([notesProjector(), stuck]);
    await r.start();
    await store.append(`other-${randomUUID()}`, [
      { type: 'Unrelated', data: {}, metadata: { ...ctx, correlationId: 'c', causationId: 'c' } },
    ]);
    const [id] = await createNotes(1);
    const head = await store.headPosition();
    expect(await r.waitFor(head, 300)).to.equal(false);
    expect(await r.waitFor(head, 2000, ['NoteCreated'])).to.equal(true);
    expect(await db.knex('toy_notes').where({ id }).first()).to.include({ id });
    await r.stop();
  });

  it('given a projector that takes a type as eventual, when a command appended only that type, then it does not wait for the projector; a command that also appended another of its types does', async () => {
    const stuck: Projector = {
      ...notesProjector(1, () => true),
      name: 'toy_stuck',
      tables: ['toy_stuck'],
      eventTypes: ['Shown', 'Colored'],
      eventualFor: ['Shown'],
      createTables: async (knex) => knex.schema.createTable('toy_stuck', (t) => t.text('id')),
      apply: async () => {
        throw new Error('always');
      },
    };
    const r = runner([stuck]);
    await r.start();
    const { position } = await store.append(`other-${randomUUID()}`, [
      { type: 'Shown', data: {}, metadata: { ...ctx, correlationId: 'c', causationId: 'c' } },
    ]);
    expect(await r.waitFor(position, 2000, ['Shown'])).to.equal(true);
    expect(await r.waitFor(position, 300, ['Shown', 'Colored'])).to.equal(false);
    await r.stop();
  });

  it('given a projector that takes a type as eventual, a burst of that type gathers into few transactions, and a command that appended another of its types still gets it applied', async () => {
    const { projector, batches } = batchCountingNotes();
    const r = new ProjectionRunner({
      knex: db.knex,
      store,
      projectors: [{ ...projector, eventualFor: ['NoteCreated'] }],
      logger: pino({ level: 'silent' }),
      leaderLock: createAdvisoryLeaderLock(db.url),
      idleMs: 10_000,
    });
    await r.start();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const ids = await createNotes(60);
    const { position } = await store.append(noteStream(tenantId, ids[0]), [
      { type: 'NoteRenamed', data: { title: 'renamed' }, metadata: { ...ctx, correlationId: 'c', causationId: 'c' } },
    ]);
    expect(await r.waitFor(position, 5000, ['NoteRenamed'])).to.equal(true);
    expect(await db.knex('toy_notes').where({ id: ids[0] }).first()).to.include({ title: 'renamed' });
    expect(batches.reduce((a, b) => a + b, 0)).to.equal(61);
    // One batch per pace (150 ms) while the appends run (~150 ms here), then the rename's:
    // without pacing, 7 batches here (each woken lane took what had landed meanwhile).
    expect(batches.length, `batches ${batches.join(', ')}`).to.be.at.most(4);
    await r.stop();
  });

  it('a lane takes the events of one append as one batch, not the first alone and then the rest', async () => {
    const { projector: counting, batches } = batchCountingNotes();
    const r = new ProjectionRunner({
      knex: db.knex,
      store,
      projectors: [counting],
      logger: pino({ level: 'silent' }),
      leaderLock: createAdvisoryLeaderLock(db.url),
      idleMs: 10_000,
    });
    await r.start();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const ids = Array.from({ length: 40 }, () => randomUUID());
    const stream = noteStream(tenantId, randomUUID());
    const { position } = await store.append(
      stream,
      ids.map((id, i) => ({
        type: 'NoteCreated',
        data: { noteId: id, title: `note ${i}` },
        metadata: { ...ctx, correlationId: id, causationId: id },
      })),
    );
    expect(await r.waitFor(position, 5000)).to.equal(true);
    expect(batches, `batches ${batches.join(', ')}`).to.deep.equal([40]);
    await r.stop();
  });

  it('an eventual projector gathers a burst of appends into few transactions, and a reader catching up does not wait for the pace', async () => {
    const { projector: eventual, batches } = batchCountingNotes('eventual');
    // A long idle sleep: only new events (paced) or a reader wake the lane.
    const r = new ProjectionRunner({
      knex: db.knex,
      store,
      projectors: [eventual],
      logger: pino({ level: 'silent' }),
      leaderLock: createAdvisoryLeaderLock(db.url),
      idleMs: 10_000,
    });
    await r.start();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await createNotes(6);
    expect(await r.catchUp('toy_notes', 5000)).to.equal(true);
    expect(await db.knex('toy_notes').count<{ count: string }[]>('* as count')).to.deep.equal([{ count: '6' }]);
    expect(batches.reduce((a, b) => a + b, 0)).to.equal(6);
    expect(batches.length, `batches ${batches.join(', ')}`).to.be.at.most(2);

    // A reader arriving right after one append sees it.
    await createNotes(1);
    expect(await r.catchUp('toy_notes', 5000)).to.equal(true);
    expect(await db.knex('toy_notes').count<{ count: string }[]>('* as count')).to.deep.equal([{ count: '7' }]);
    await r.stop();
  });

  /** A transaction on its own connection that holds a transaction id until `release`: it hides every later commit from readers. */
  async function holdOlderTransaction(): Promise<{ release(): Promise<void> }> {
    const client = new Client({ connectionString: db.url });
    await client.connect();
    await client.query('BEGIN');
    await client.query('SELECT pg_current_xact_id()');
    return {
      async release() {
        await client.query('COMMIT');
        await client.end();
      },
    };
  }

  it('read-your-writes anywhere: while an older transaction is open, a commit it hides is not reached, on the leader nor on a follower', async () => {
    const leader = runner([notesProjector()]);
    const follower = runner([notesProjector()]);
    await leader.start();
    await follower.start();
    expect([leader.isLeader, follower.isLeader]).to.deep.equal([true, false]);
    const held = await holdOlderTransaction();
    try {
      const [id] = await createNotes(1);
      const [written] = await store.readStream(noteStream(tenantId, id));
      expect(await follower.waitFor(written.position, 400)).to.equal(false);
      expect(await leader.waitFor(written.position, 400)).to.equal(false);
    } finally {
      await held.release();
    }
    const head = await store.headPosition();
    expect(await follower.waitFor(head, 5000)).to.equal(true);
    expect(await db.knex('toy_notes').count<{ count: string }[]>('* as count')).to.deep.equal([{ count: '1' }]);
    await follower.stop();
    await leader.stop();
  });

  it('lanes come back after the wake-up subscription ends: they poll the store meanwhile and it is taken again', async () => {
    const { store: flaky, subscriptions } = storeWhoseFirstSubscriptionDies(store, 300);
    const r = new ProjectionRunner({
      knex: db.knex,
      store: flaky,
      projectors: [notesProjector()],
      logger: pino({ level: 'silent' }),
      leaderLock: createAdvisoryLeaderLock(db.url),
      idleMs: 50,
    });
    await r.start();
    await createNotes(1);
    await new Promise((resolve) => setTimeout(resolve, 600));
    const [later] = await createNotes(1);
    expect(await r.waitFor(await store.headPosition(), 5000)).to.equal(true);
    expect(await db.knex('toy_notes').where({ id: later }).first()).to.include({ id: later });
    expect(subscriptions()).to.be.greaterThan(1);
    await r.stop();
  });

  it("during a rolling deploy an older build that leads leaves a newer projector's tables alone (no reset flip-flop)", async () => {
    await createNotes(2);
    const v2 = runner([notesProjector(2)]);
    await v2.start();
    expect(await v2.waitFor(await store.headPosition(), 5000)).to.equal(true);
    await v2.stop();
    const v1 = runner([notesProjector(1)]);
    await v1.start();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await readCheckpoint(db.knex, 'toy_notes'))?.version).to.equal(2);
    expect(await db.knex('toy_notes').count<{ count: string }[]>('* as count')).to.deep.equal([{ count: '2' }]);
    await v1.stop();
  });

  it("reports each lane's lag in events and seconds, from its live position on the leader and its checkpoint elsewhere", async () => {
    const stalled = {
      ...notesProjector(),
      name: 'toy_stalled',
      tables: ['toy_stalled'],
      createTables: async (knex: import('knex').Knex) => knex.schema.createTable('toy_stalled', (t) => t.text('id')),
      apply: async () => {
        throw new Error('stalled on purpose');
      },
    };
    const leader = new ProjectionRunner({
      knex: db.knex,
      store,
      projectors: [notesProjector(), stalled],
      logger: pino({ level: 'silent' }),
      leaderLock: createAdvisoryLeaderLock(db.url),
      idleMs: 50,
      deadLetterAfter: 1000,
      retryBaseMs: 50,
    });
    const follower = runner([notesProjector(), stalled]);
    await leader.start();
    await follower.start();
    await createNotes(3);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    for (const report of [await leader.lanesReport(), await follower.lanesReport()]) {
      const byName = new Map(report.map((lane) => [lane.name, lane]));
      expect(byName.get('toy_notes')).to.include({ kind: 'projection', lag_events: 0, lag_seconds: 0 });
      expect(byName.get('toy_stalled')).to.include({ kind: 'projection', lag_events: 3 });
      expect(byName.get('toy_stalled')!.lag_seconds).to.be.greaterThan(0.5);
    }
    expect((await leader.lanesReport())[0].subscribed).to.equal(true);
    await follower.stop();
    await leader.stop();
  });
});
