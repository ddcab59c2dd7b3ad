import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import pino from 'pino';
import sinon from 'sinon';
import { createCommandHandler } from '../../../src/platform/command-handling/command-handler';
import { claim } from '../../../src/platform/command-handling/reservation';
import { Conflict, NotFound } from '../../../src/platform/domain-errors';
import { EventStore, WrongExpectedRevisionError } from '../../../src/platform/eventstore/types';
import { newId } from '../../../src/platform/command-handling/idempotency';
import { withScope } from '../../../src/platform/http/request-scope';
import { createTestEventStore } from '../../support/event-store';
import { noteDecider, noteStream } from '../../support/toy-context';

describe('generic command handler', () => {
  let store: EventStore;
  let cleanup: () => Promise<void>;
  const logger = pino({ level: 'silent' });
  const projections = { waitFor: sinon.stub().resolves(true) };
  const ctx = { tenantId: 'tenant-x', actorId: 'user-1' };

  before(async () => {
    ({ store, cleanup } = await createTestEventStore());
  });
  after(() => cleanup());

  it('appends the decided events with tenant, actor, correlation and audit metadata, then waits for projections', async () => {
    const waitFor = sinon.stub().resolves(true);
    const handle = createCommandHandler({ store, projections: { waitFor }, logger });
    const id = randomUUID();
    const result = await handle(noteDecider, noteStream('tenant-x', id), { type: 'CreateNote', noteId: id, title: 'W-1 permit' }, { ...ctx, correlationId: 'corr-1', metadata: { action: 'note.create' } });
    expect(result.state).to.deep.equal({ status: 'active', title: 'W-1 permit' });
    const [event] = await store.readStream(noteStream('tenant-x', id));
    expect(event.metadata).to.include({ tenantId: 'tenant-x', actorId: 'user-1', correlationId: 'corr-1', causationId: 'corr-1', action: 'note.create' });
    expect(waitFor.calledOnceWith(result.position)).to.equal(true);
  });

  it('the first command on a stream named after an id the request drew reads nothing; later ones read, and a stream that exists after all is read on retry', async () => {
    const reads = sinon.spy(store, 'readStream');
    try {
      const handle = createCommandHandler({ store, projections, logger });
      await withScope({}, async () => {
        const id = newId('tenant-x', 'toy.note');
        const stream = noteStream('tenant-x', id);
        await handle(noteDecider, stream, { type: 'CreateNote', noteId: id, title: 'fresh' }, ctx);
        expect(reads.callCount, 'a fresh stream is not read').to.equal(0);
        const renamed = await handle(noteDecider, stream, { type: 'RenameNote', title: 'renamed' }, ctx);
        expect(reads.callCount, 'the second command on it reads').to.equal(1);
        expect(renamed.state).to.deep.equal({ status: 'active', title: 'renamed' });
      });
      await withScope({}, async () => {
        // Written outside the handler before its first command: the no-stream append is
        // refused and the retry reads the truth.
        const id = newId('tenant-x', 'toy.note');
        const stream = noteStream('tenant-x', id);
        await store.append(stream, [{ type: 'NoteCreated', data: { noteId: id, title: 'elsewhere' }, metadata: { ...ctx, correlationId: 'c', causationId: 'c' } }]);
        const renamed = await handle(noteDecider, stream, { type: 'RenameNote', title: 'after retry' }, ctx);
        expect(renamed.state).to.deep.equal({ status: 'active', title: 'after retry' });
        expect((await store.readStream(stream)).map((e) => e.type)).to.deep.equal(['NoteCreated', 'NoteRenamed']);
      });
    } finally {
      reads.restore();
    }
  });

  it('a decision that throws appends nothing', async () => {
    const handle = createCommandHandler({ store, projections, logger });
    const id = randomUUID();
    const error = await handle(noteDecider, noteStream('tenant-x', id), { type: 'RenameNote', title: 'x' }, ctx).catch((e) => e);
    expect(error).to.be.instanceOf(NotFound);
    expect(await store.readStream(noteStream('tenant-x', id))).to.deep.equal([]);
  });

  it('concurrent commands on one stream are all decided on fresh state (retry on conflict)', async () => {
    const handle = createCommandHandler({ store, projections, logger, retries: 10 });
    const id = randomUUID();
    const stream = noteStream('tenant-x', id);
    await handle(noteDecider, stream, { type: 'CreateNote', noteId: id, title: 'v0' }, ctx);
    await Promise.all([1, 2, 3, 4, 5].map((n) => handle(noteDecider, stream, { type: 'RenameNote', title: `v${n}` }, ctx)));
    const events = await store.readStream(stream);
    expect(events.map((e) => e.type)).to.deep.equal(['NoteCreated', 'NoteRenamed', 'NoteRenamed', 'NoteRenamed', 'NoteRenamed', 'NoteRenamed']);
  });

  it('gives up with a Conflict after the bounded number of retries', async () => {
    const append = sinon.stub().rejects(new WrongExpectedRevisionError('s', 'no_stream', 0n));
    const flaky: EventStore = { ...store, append, readStream: store.readStream };
    const handle = createCommandHandler({ store: flaky, projections, logger, retries: 2 });
    const id = randomUUID();
    const error = await handle(noteDecider, noteStream('tenant-x', id), { type: 'CreateNote', noteId: id, title: 't' }, ctx).catch((e) => e);
    expect(error).to.be.instanceOf(Conflict);
    expect(append.callCount).to.equal(3);
  });

  it('a reservation is won by exactly one of 20 concurrent claimants', async () => {
    const handle = createCommandHandler({ store, projections, logger, retries: 25 });
    const key = { context: 'identity', tenantId: 'tenant-x', kind: 'email', value: `race-${randomUUID()}@example.com`, label: 'e-mail address' };
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => claim(handle, key, `owner-${i}`, ctx)));
    expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(1);
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(rejected).to.have.length(19);
    for (const r of rejected) expect(r.reason).to.be.instanceOf(Conflict);
  });
});
