import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import pino from 'pino';
import sinon from 'sinon';
import { createCommandHandler } from '../../../src/platform/command-handling/command-handler';
import { claim, reservationStream } from '../../../src/platform/command-handling/reservation';
import { Conflict, NotFound } from '../../../src/platform/domain-errors';
import { type EventStore, WrongExpectedRevisionError } from '../../../src/platform/eventstore/types';
import { newId } from '../../../src/platform/command-handling/idempotency';
import { withScope } from '../../../src/platform/http/request-scope';
import { AuditSigner } from '../../../src/platform/eventstore/audit-signature';
import { createPostgresEventStore } from '../../../src/platform/eventstore/postgres/postgres-event-store';
import type { Database } from '../../../src/platform/infra/database';
import { createTestEventStore, TEST_SIGNING_KEY } from '../../support/event-store';
import { noteDecider, noteStream } from '../../support/toy-context';

describe('generic command handler', () => {
  let db: Database;
  let store: EventStore;
  let cleanup: () => Promise<void>;
  const logger = pino({ level: 'silent' });
  const projections = { waitFor: sinon.stub().resolves(true) };
  const ctx = { tenantId: 'tenant-x', actorId: 'user-1' };

  before(async () => {
    ({ db, store, cleanup } = await createTestEventStore());
  });
  after(() => cleanup());

  /** An append by another process: a second store on the same database, whose writes this one never hears of. */
  async function appendElsewhere(stream: string, type: string, data: Record<string, unknown>): Promise<void> {
    const elsewhere = createPostgresEventStore({ pool: db.pool, signer: new AuditSigner(TEST_SIGNING_KEY) });
    try {
      await elsewhere.append(stream, [{ type, data, metadata: { ...ctx, correlationId: 'c', causationId: 'c' } }]);
    } finally {
      await elsewhere.close();
    }
  }

  it('appends the decided events with tenant, actor, correlation and audit metadata, then waits for projections', async () => {
    const waitFor = sinon.stub().resolves(true);
    const handle = createCommandHandler({ store, projections: { waitFor }, logger });
    const id = randomUUID();
    const result = await handle(
      noteDecider,
      noteStream('tenant-x', id),
      { type: 'CreateNote', noteId: id, title: 'W-1 permit' },
      { ...ctx, correlationId: 'corr-1', metadata: { action: 'note.create' } },
    );
    expect(result.state).to.deep.equal({ status: 'active', title: 'W-1 permit' });
    const [event] = await store.readStream(noteStream('tenant-x', id));
    expect(event.metadata).to.include({
      tenantId: 'tenant-x',
      actorId: 'user-1',
      correlationId: 'corr-1',
      causationId: 'corr-1',
      action: 'note.create',
    });
    expect(waitFor.calledOnceWith(result.position)).to.equal(true);
  });

  it('the first command on a stream named after an id the request drew reads nothing; a stream that exists after all is read on retry', async () => {
    const reads = sinon.spy(store, 'readStream');
    try {
      const handle = createCommandHandler({ store, projections, logger });
      await withScope({}, async () => {
        const id = newId('tenant-x', 'toy.note');
        await handle(noteDecider, noteStream('tenant-x', id), { type: 'CreateNote', noteId: id, title: 'fresh' }, ctx);
        expect(reads.callCount, 'a fresh stream is not read').to.equal(0);
      });
      await withScope({}, async () => {
        // Written outside the handler before its first command: the decision from the empty
        // state is refused and made again from a read.
        const id = newId('tenant-x', 'toy.note');
        const stream = noteStream('tenant-x', id);
        await store.append(stream, [
          {
            type: 'NoteCreated',
            data: { noteId: id, title: 'elsewhere' },
            metadata: { ...ctx, correlationId: 'c', causationId: 'c' },
          },
        ]);
        const renamed = await handle(noteDecider, stream, { type: 'RenameNote', title: 'after retry' }, ctx);
        expect(renamed.state).to.deep.equal({ status: 'active', title: 'after retry' });
        expect((await store.readStream(stream)).map((e) => e.type)).to.deep.equal(['NoteCreated', 'NoteRenamed']);
      });
    } finally {
      reads.restore();
    }
  });

  it('decides from the state it remembers for a stream it wrote; another writer, here or in another process, makes it read again', async () => {
    const handle = createCommandHandler({ store, projections, logger });
    const id = randomUUID();
    const stream = noteStream('tenant-x', id);
    await handle(noteDecider, stream, { type: 'CreateNote', noteId: id, title: 'v0' }, ctx);
    const reads = sinon.spy(store, 'readStream');
    try {
      await handle(noteDecider, stream, { type: 'RenameNote', title: 'v1' }, ctx);
      expect(reads.callCount, 'remembered: no read').to.equal(0);

      // Another writer of this process: the store's head moved past what the handler remembers.
      await store.append(stream, [
        { type: 'NoteRenamed', data: { title: 'v2' }, metadata: { ...ctx, correlationId: 'c', causationId: 'c' } },
      ]);
      const third = await handle(noteDecider, stream, { type: 'RenameNote', title: 'v3' }, ctx);
      expect(reads.callCount, 'a head moved here: read').to.equal(1);
      expect(third.state).to.deep.equal({ status: 'active', title: 'v3' });

      await appendElsewhere(stream, 'NoteArchived', {});
      // A decision that appends nothing has no revision to prove it: renaming to the title
      // remembered (active, 'v3') is nothing to do from memory, and a read shows it archived.
      const unchanged = await handle(noteDecider, stream, { type: 'RenameNote', title: 'v3' }, ctx).catch((e) => e);
      expect(unchanged).to.be.instanceOf(Conflict);
      const refused = await handle(noteDecider, stream, { type: 'RenameNote', title: 'v4' }, ctx).catch((e) => e);
      // Decided from memory (active), refused by the append's revision, decided again from a read (archived).
      expect(refused).to.be.instanceOf(Conflict);
      expect(refused.message).to.equal('an archived note cannot be renamed');
      expect((await store.readStream(stream)).map((e) => e.type)).to.deep.equal([
        'NoteCreated',
        'NoteRenamed',
        'NoteRenamed',
        'NoteRenamed',
        'NoteArchived',
      ]);
    } finally {
      reads.restore();
    }
  });

  it('a decision that throws appends nothing', async () => {
    const handle = createCommandHandler({ store, projections, logger });
    const id = randomUUID();
    const error = await handle(noteDecider, noteStream('tenant-x', id), { type: 'RenameNote', title: 'x' }, ctx).catch(
      (e) => e,
    );
    expect(error).to.be.instanceOf(NotFound);
    expect(await store.readStream(noteStream('tenant-x', id))).to.deep.equal([]);
  });

  it('concurrent commands on one stream are all decided on fresh state (retry on conflict)', async () => {
    const handle = createCommandHandler({ store, projections, logger, retries: 10 });
    const id = randomUUID();
    const stream = noteStream('tenant-x', id);
    await handle(noteDecider, stream, { type: 'CreateNote', noteId: id, title: 'v0' }, ctx);
    await Promise.all(
      [1, 2, 3, 4, 5].map((n) => handle(noteDecider, stream, { type: 'RenameNote', title: `v${n}` }, ctx)),
    );
    const events = await store.readStream(stream);
    expect(events.map((e) => e.type)).to.deep.equal([
      'NoteCreated',
      'NoteRenamed',
      'NoteRenamed',
      'NoteRenamed',
      'NoteRenamed',
      'NoteRenamed',
    ]);
  });

  it('gives up with a Conflict after the bounded number of retries', async () => {
    const append = sinon.stub().rejects(new WrongExpectedRevisionError('s', 'no_stream', 0n));
    const flaky: EventStore = { ...store, append, readStream: store.readStream };
    const handle = createCommandHandler({ store: flaky, projections, logger, retries: 2 });
    const id = randomUUID();
    const error = await handle(
      noteDecider,
      noteStream('tenant-x', id),
      { type: 'CreateNote', noteId: id, title: 't' },
      ctx,
    ).catch((e) => e);
    expect(error).to.be.instanceOf(Conflict);
    expect(append.callCount).to.equal(3);
  });

  it('a reservation is won by exactly one of 20 concurrent claimants', async () => {
    const handle = createCommandHandler({ store, projections, logger, retries: 25 });
    const key = {
      context: 'identity',
      tenantId: 'tenant-x',
      kind: 'email',
      value: `race-${randomUUID()}@example.com`,
      label: 'e-mail address',
    };
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => claim(handle, key, `owner-${i}`, ctx)),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(1);
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(rejected).to.have.length(19);
    for (const r of rejected) expect(r.reason).to.be.instanceOf(Conflict);
  });

  it('given a value never claimed, when a command reserves it, then the claim is appended without reading its stream; a released value is claimed after a read; a held one answers 409 and nothing is appended', async () => {
    const handle = createCommandHandler({ store, projections, logger });
    const key = {
      context: 'toy',
      tenantId: 'tenant-x',
      kind: 'title',
      value: `title-${randomUUID()}`,
      label: 'note title',
    };
    const target = reservationStream(key.context, key.tenantId, key.kind, key.value);
    const create = (noteId: string) =>
      handle(noteDecider, noteStream('tenant-x', noteId), { type: 'CreateNote', noteId, title: key.value }, ctx, {
        reserve: [key],
      });
    const reads = sinon.spy(store, 'readStream');
    try {
      const first = randomUUID();
      await create(first);
      expect(
        reads.getCalls().filter((c) => c.args[0] === target),
        'the new value is not read',
      ).to.have.length(0);
      expect((await store.readStream(target)).map((e) => e.data)).to.deep.equal([
        { owner: noteStream('tenant-x', first) },
      ]);

      const second = randomUUID();
      const refused = await create(second).catch((error: unknown) => error);
      expect(refused).to.be.instanceOf(Conflict).with.property('message').that.includes('note title is already taken');
      expect(await store.readStream(noteStream('tenant-x', second))).to.deep.equal([]);

      await handle(noteDecider, noteStream('tenant-x', first), { type: 'ArchiveNote' }, ctx, { release: [key] });
      await create(second);
      expect((await store.readStream(target)).map((e) => e.type)).to.deep.equal([
        'ReservationClaimed',
        'ReservationReleased',
        'ReservationClaimed',
      ]);
    } finally {
      reads.restore();
    }
  });

  it('given a remembered state another writer moved, when it decides again, then it reads only the events after the remembered revision', async () => {
    const handle = createCommandHandler({ store, projections, logger });
    const id = randomUUID();
    const stream = noteStream('tenant-x', id);
    await handle(noteDecider, stream, { type: 'CreateNote', noteId: id, title: 'v0' }, ctx);
    await handle(noteDecider, stream, { type: 'RenameNote', title: 'v1' }, ctx);
    await appendElsewhere(stream, 'NoteRenamed', { title: 'v2' });
    const reads = sinon.spy(store, 'readStream');
    try {
      const renamed = await handle(noteDecider, stream, { type: 'RenameNote', title: 'v3' }, ctx);
      expect(renamed.state).to.deep.equal({ status: 'active', title: 'v3' });
      expect(reads.callCount).to.equal(1);
      expect(reads.firstCall.args[1], 'from the revision after the remembered one').to.deep.equal({ from: 2n });
      expect((await store.readStream(stream)).map((e) => (e.data as { title: string }).title)).to.deep.equal([
        'v0',
        'v1',
        'v2',
        'v3',
      ]);
    } finally {
      reads.restore();
    }
  });

  it('given a keyed command applied before the state this process remembers, when it is retried, then the replay is found by its event id and nothing is read whole or appended', async () => {
    const handle = createCommandHandler({ store, projections, logger });
    const id = randomUUID();
    const stream = noteStream('tenant-x', id);
    await handle(noteDecider, stream, { type: 'CreateNote', noteId: id, title: 'v0' }, ctx);
    const keyed = { ...ctx, idempotencyKey: `retry-${id}` };
    await handle(noteDecider, stream, { type: 'RenameNote', title: 'v1' }, keyed);
    await handle(noteDecider, stream, { type: 'RenameNote', title: 'v2' }, ctx);
    const reads = sinon.spy(store, 'readStream');
    try {
      const retried = await handle(noteDecider, stream, { type: 'RenameNote', title: 'v1' }, keyed);
      expect(retried.replayed).to.equal(true);
      expect(reads.callCount).to.equal(1);
      expect(reads.firstCall.args[1], 'only the events after the remembered revision').to.deep.equal({ from: 3n });
      expect((await store.readStream(stream)).map((e) => (e.data as { title: string }).title)).to.deep.equal([
        'v0',
        'v1',
        'v2',
      ]);
    } finally {
      reads.restore();
    }
  });

  describe('commands handled together', () => {
    it('given two streams, when two commands are handled together, then both are appended in one write with one position', async () => {
      const handle = createCommandHandler({ store, projections, logger });
      const [a, b] = [randomUUID(), randomUUID()];
      const appendMany = sinon.spy(store, 'appendMany');
      try {
        const [first, second] = await handle.together(
          [
            {
              decider: noteDecider,
              stream: noteStream('tenant-x', a),
              command: { type: 'CreateNote', noteId: a, title: 'A' },
            },
            {
              decider: noteDecider,
              stream: noteStream('tenant-x', b),
              command: { type: 'CreateNote', noteId: b, title: 'B' },
            },
          ],
          ctx,
        );
        expect(appendMany.callCount).to.equal(1);
        expect(first.state).to.deep.equal({ status: 'active', title: 'A' });
        expect(second.state).to.deep.equal({ status: 'active', title: 'B' });
        expect(first.position).to.deep.equal(second.position);
        const [ea] = await store.readStream(noteStream('tenant-x', a));
        const [eb] = await store.readStream(noteStream('tenant-x', b));
        expect(ea.position.commit, 'one transaction').to.equal(eb.position.commit);
      } finally {
        appendMany.restore();
      }
    });

    it('given one command that refuses, when handled together, then nothing is appended to the other stream', async () => {
      const handle = createCommandHandler({ store, projections, logger });
      const [a, b] = [randomUUID(), randomUUID()];
      let refused: unknown;
      try {
        await handle.together(
          [
            {
              decider: noteDecider,
              stream: noteStream('tenant-x', a),
              command: { type: 'CreateNote', noteId: a, title: 'A' },
            },
            {
              decider: noteDecider,
              stream: noteStream('tenant-x', b),
              command: { type: 'RenameNote', title: 'no such note' },
            },
          ],
          ctx,
        );
      } catch (error) {
        refused = error;
      }
      expect(refused).to.be.instanceOf(NotFound);
      expect(await store.readStream(noteStream('tenant-x', a))).to.have.length(0);
    });

    it('given a remembered stream another writer moved, when handled together, then both are decided again from a read and appended', async () => {
      const handle = createCommandHandler({ store, projections, logger });
      const [a, b] = [randomUUID(), randomUUID()];
      const [sa, sb] = [noteStream('tenant-x', a), noteStream('tenant-x', b)];
      await handle(noteDecider, sa, { type: 'CreateNote', noteId: a, title: 'A' }, ctx);
      await handle(noteDecider, sb, { type: 'CreateNote', noteId: b, title: 'B' }, ctx);
      // Another process: the store's own head cache is bypassed, so only the append's expected revision can tell.
      await appendElsewhere(sb, 'NoteRenamed', { title: 'elsewhere' });
      const [ra, rb] = await handle.together(
        [
          { decider: noteDecider, stream: sa, command: { type: 'RenameNote', title: 'A2' } },
          { decider: noteDecider, stream: sb, command: { type: 'RenameNote', title: 'B2' } },
        ],
        ctx,
      );
      expect(ra.state).to.deep.equal({ status: 'active', title: 'A2' });
      expect(rb.state).to.deep.equal({ status: 'active', title: 'B2' });
      expect((await store.readStream(sa)).map((e) => e.type)).to.deep.equal(['NoteCreated', 'NoteRenamed']);
      expect((await store.readStream(sb)).map((e) => (e.data as { title?: string }).title ?? e.type)).to.deep.equal([
        'B',
        'elsewhere',
        'B2',
      ]);
    });

    it('given a hot stream marked exclusive, when 20 commands of this process race on it, then all land without a retry', async () => {
      const handle = createCommandHandler({ store, projections, logger, retries: 0 });
      const id = randomUUID();
      const stream = noteStream('tenant-x', id);
      await handle(noteDecider, stream, { type: 'CreateNote', noteId: id, title: 'v0' }, ctx);
      const renames = Array.from({ length: 20 }, (_, i) =>
        handle.together(
          [
            {
              decider: noteDecider,
              stream,
              command: { type: 'RenameNote' as const, title: `v${i + 1}` },
              exclusive: true,
            },
          ],
          ctx,
        ),
      );
      const settled = await Promise.allSettled(renames);
      expect(settled.filter((r) => r.status === 'rejected')).to.have.length(0);
      expect(await store.readStream(stream)).to.have.length(21);
    });

    it('refuses two commands on one stream', async () => {
      const handle = createCommandHandler({ store, projections, logger });
      const a = randomUUID();
      const command = {
        decider: noteDecider,
        stream: noteStream('tenant-x', a),
        command: { type: 'CreateNote' as const, noteId: a, title: 'A' },
      };
      let refused: unknown;
      await handle.together([command, command], ctx).catch((error) => (refused = error));
      expect(String(refused)).to.match(/different streams/);
    });
  });
});
