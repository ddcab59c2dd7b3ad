import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { AuditSigner, verifyStreamChain } from '../../src/platform/eventstore/audit-signature';
import {
  comparePositions,
  type EventStore,
  IdempotencyConflictError,
  type NewEvent,
  type RecordedEvent,
  WrongExpectedRevisionError,
} from '../../src/platform/eventstore/types';

/**
 * One behaviour, every adapter: the Postgres adapter always runs this, EventStoreDB whenever
 * EVENTSTORE_URL is set. Stream names are random so a shared live server is fine.
 */
export function eventStoreConformance(
  name: string,
  setup: () => Promise<{ store: EventStore; signer: AuditSigner; cleanup(): Promise<void> }>,
): void {
  describe(`event store conformance: ${name}`, function () {
    let store: EventStore;
    let signer: AuditSigner;
    let cleanup: () => Promise<void>;
    const tenantId = randomUUID();

    before(async () => {
      ({ store, signer, cleanup } = await setup());
    });
    after(async () => cleanup?.());

    const stream = (category = 'conformance.thing') => `${category}-${tenantId}-${randomUUID()}`;
    const event = (type = 'ThingHappened', data: Record<string, unknown> = { n: 1 }, id?: string): NewEvent => ({
      id,
      type,
      data,
      metadata: { tenantId, actorId: 'tester', correlationId: randomUUID(), causationId: randomUUID() },
    });

    async function collect(
      iterable: AsyncIterable<RecordedEvent>,
      count: number,
      timeoutMs = 5000,
    ): Promise<RecordedEvent[]> {
      const out: RecordedEvent[] = [];
      const deadline = setTimeout(() => undefined, timeoutMs);
      try {
        const timeout = new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error(`only ${out.length}/${count} events within ${timeoutMs} ms`)), timeoutMs),
        );
        await Promise.race([
          (async () => {
            for await (const e of iterable) {
              out.push(e);
              if (out.length >= count) break;
            }
          })(),
          timeout,
        ]);
      } finally {
        clearTimeout(deadline);
      }
      return out;
    }

    describe('expected revisions', () => {
      it('no_stream creates a stream at revision 0 and refuses a second time', async () => {
        const s = stream();
        const first = await store.append(s, [event()], { expectedRevision: 'no_stream' });
        expect(first.nextRevision).to.equal(0n);
        const error = await store.append(s, [event()], { expectedRevision: 'no_stream' }).catch((e) => e);
        expect(error).to.be.instanceOf(WrongExpectedRevisionError);
        expect(error.actual).to.equal(0n);
      });

      it('a write without events is a check: the others land while its stream is where expected, and nothing lands once it moved', async () => {
        const [read, absent, written] = [stream(), stream(), stream()];
        await store.append(read, [event('Input')], { expectedRevision: 'no_stream' });
        const landed = await store.appendMany([
          { stream: read, events: [], expectedRevision: 0n },
          { stream: absent, events: [], expectedRevision: 'no_stream' },
          { stream: written, events: [event('Decided')], expectedRevision: 'no_stream' },
        ]);
        expect(landed[0].nextRevision).to.equal(0n);
        expect(landed[2].nextRevision).to.equal(0n);
        expect((await store.readStream(read)).map((e) => e.type)).to.deep.equal(['Input']);
        expect(await store.readStream(absent)).to.deep.equal([]);

        await store.append(read, [event('Moved')], { expectedRevision: 0n });
        const refused = await store
          .appendMany([
            { stream: read, events: [], expectedRevision: 0n },
            { stream: written, events: [event('Decided again')], expectedRevision: 0n },
          ])
          .catch((e: unknown) => e);
        expect(refused).to.be.instanceOf(WrongExpectedRevisionError);
        expect((refused as WrongExpectedRevisionError).stream).to.equal(read);
        expect((await store.readStream(written)).map((e) => e.type)).to.deep.equal(['Decided']);
      });

      it('an exact revision must match the stream head', async () => {
        const s = stream();
        await store.append(s, [event(), event()], { expectedRevision: 'no_stream' });
        const ok = await store.append(s, [event()], { expectedRevision: 1n });
        expect(ok.nextRevision).to.equal(2n);
        const error = await store.append(s, [event()], { expectedRevision: 1n }).catch((e) => e);
        expect(error).to.be.instanceOf(WrongExpectedRevisionError);
        expect(error.actual).to.equal(2n);
        expect(error.expected).to.equal(1n);
      });

      it('stream_exists refuses a missing stream and accepts an existing one', async () => {
        const s = stream();
        const error = await store.append(s, [event()], { expectedRevision: 'stream_exists' }).catch((e) => e);
        expect(error).to.be.instanceOf(WrongExpectedRevisionError);
        expect(error.actual).to.equal('no_stream');
        await store.append(s, [event()]);
        const ok = await store.append(s, [event()], { expectedRevision: 'stream_exists' });
        expect(ok.nextRevision).to.equal(1n);
      });

      it('any appends whatever the head', async () => {
        const s = stream();
        expect((await store.append(s, [event()], { expectedRevision: 'any' })).nextRevision).to.equal(0n);
        expect((await store.append(s, [event()], { expectedRevision: 'any' })).nextRevision).to.equal(1n);
      });

      it('a failed expectation stores nothing', async () => {
        const s = stream();
        await store.append(s, [event()]);
        await store.append(s, [event(), event()], { expectedRevision: 5n }).catch(() => undefined);
        expect(await store.readStream(s)).to.have.length(1);
      });
    });

    describe('idempotent appends', () => {
      it('a retried batch with the same ids stores nothing twice and answers the original result', async () => {
        const s = stream();
        const batch = [event('A', {}, randomUUID()), event('B', {}, randomUUID())];
        const first = await store.append(s, batch, { expectedRevision: 'no_stream' });
        const retry = await store.append(s, batch, { expectedRevision: 'no_stream' });
        expect(retry.nextRevision).to.equal(first.nextRevision);
        expect(comparePositions(retry.position, first.position)).to.equal(0);
        expect((await store.readStream(s)).map((e) => e.type)).to.deep.equal(['A', 'B']);
      });

      it('a batch that repeats only some stored ids is refused whole', async () => {
        const s = stream();
        const stored = event('A', {}, randomUUID());
        await store.append(s, [stored]);
        const error = await store.append(s, [stored, event('B', {}, randomUUID())]).catch((e) => e);
        expect(error).to.be.instanceOf(IdempotencyConflictError);
        expect((await store.readStream(s)).map((e) => e.type)).to.deep.equal(['A']);
      });
    });

    describe('reading a stream', () => {
      it('reads forwards and backwards with a start and a limit', async () => {
        const s = stream();
        await store.append(
          s,
          [0, 1, 2, 3, 4].map((n) => event('N', { n })),
        );
        const forwards = await store.readStream(s, { from: 1n, limit: 2 });
        expect(forwards.map((e) => e.data)).to.deep.equal([{ n: 1 }, { n: 2 }]);
        const backwards = await store.readStream(s, { direction: 'backwards', limit: 2 });
        expect(backwards.map((e) => e.revision)).to.deep.equal([4n, 3n]);
        const backFrom = await store.readStream(s, { direction: 'backwards', from: 2n });
        expect(backFrom.map((e) => e.revision)).to.deep.equal([2n, 1n, 0n]);
      });

      it('reads several whole streams at once, in the order asked, a missing one as empty (where the store offers it)', async function () {
        if (!store.readStreams) return this.skip();
        const [a, b, missing] = [stream(), stream(), stream()];
        await store.append(a, [event('A1'), event('A2')]);
        await store.append(b, [event('B1')]);
        const read = await store.readStreams([b, missing, a]);
        expect(read.map((events) => events.map((e) => e.type))).to.deep.equal([['B1'], [], ['A1', 'A2']]);
        expect(read[2]).to.deep.equal(await store.readStream(a));
      });

      it('answers an empty list for a stream that does not exist', async () => {
        expect(await store.readStream(stream())).to.deep.equal([]);
      });

      it('returns every field of a recorded event, with signed metadata', async () => {
        const s = stream();
        const id = randomUUID();
        const written = event('Shaped', { nested: { list: [1, 'two', null], flag: true } }, id);
        const result = await store.append(s, [written]);
        const [read] = await store.readStream(s);
        expect(read.id).to.equal(id);
        expect(read.stream).to.equal(s);
        expect(read.revision).to.equal(0n);
        expect(comparePositions(read.position, result.position)).to.equal(0);
        expect(read.type).to.equal('Shaped');
        expect(read.data).to.deep.equal(written.data);
        expect(read.metadata).to.include(written.metadata);
        expect(read.metadata.signature).to.match(/^[0-9a-f]{64}$/);
        expect(read.recordedAt).to.be.instanceOf(Date);
      });

      it('chains signatures across appends so the stream verifies', async () => {
        const s = stream();
        await store.append(s, [event(), event()]);
        await store.append(s, [event()]);
        const events = await store.readStream(s);
        expect(verifyStreamChain(signer, events)).to.deep.equal([]);
        // A signature from another key does not verify.
        expect(verifyStreamChain(new AuditSigner('another-key'.padEnd(40, '!')), events)).to.have.length(3);
      });
    });

    describe('the global log', () => {
      it('readAll answers events strictly after a position, in position order, with a limit', async () => {
        const from = await store.headPosition();
        const s1 = stream();
        const s2 = stream();
        await store.append(s1, [event('One')]);
        await store.append(s2, [event('Two'), event('Three')]);
        const all = (await store.readAll({ from, limit: 100 })).filter((e) => e.stream === s1 || e.stream === s2);
        expect(all.map((e) => e.type)).to.deep.equal(['One', 'Two', 'Three']);
        for (let i = 1; i < all.length; i++)
          expect(comparePositions(all[i - 1].position, all[i].position)).to.equal(-1);
        const afterFirst = (await store.readAll({ from: all[0].position, limit: 100 })).filter(
          (e) => e.stream === s1 || e.stream === s2,
        );
        expect(afterFirst.map((e) => e.type)).to.deep.equal(['Two', 'Three']);
        expect(await store.readAll({ from, limit: 1 })).to.have.length(1);
      });

      it('a multi-event append is atomic: concurrent batches never interleave', async () => {
        const s = stream();
        await Promise.all(
          [0, 1, 2, 3, 4, 5].map((writer) =>
            store
              .append(
                s,
                [0, 1, 2].map((i) => event('Part', { writer, i })),
              )
              .catch(() => undefined),
          ),
        );
        const events = await store.readStream(s);
        expect(events).to.have.length(18);
        for (let i = 0; i < events.length; i += 3) {
          const writers = events.slice(i, i + 3).map((e) => (e.data as { writer: number }).writer);
          expect(new Set(writers).size, `batch at ${i}`).to.equal(1);
          expect(events.slice(i, i + 3).map((e) => (e.data as { i: number }).i)).to.deep.equal([0, 1, 2]);
        }
        expect(verifyStreamChain(signer, events)).to.deep.equal([]);
      });

      it('readAll with a filter answers only matching events, counted against the limit', async () => {
        const from = await store.headPosition();
        const marker = `Filtered${randomUUID().slice(0, 8)}`;
        const s = stream('conformance.filtered');
        await store.append(s, [
          event('Other'),
          event(marker, { n: 1 }),
          event('Other'),
          event(marker, { n: 2 }),
          event(marker, { n: 3 }),
        ]);
        await store.append(stream('conformance.elsewhere'), [event(marker, { n: 4 })]);
        const byType = await store.readAll({ from, limit: 2, filter: { eventTypes: [marker] } });
        expect(byType.map((e) => e.data)).to.deep.equal([{ n: 1 }, { n: 2 }]);
        const byPrefix = await store.readAll({
          from,
          limit: 100,
          filter: { streamPrefixes: ['conformance.filtered-'], eventTypes: [marker] },
        });
        expect(byPrefix.map((e) => e.data)).to.deep.equal([{ n: 1 }, { n: 2 }, { n: 3 }]);
        const likeWildcards = await store.readAll({
          from,
          limit: 100,
          filter: { streamPrefixes: ['conformance_filtered%'] },
        });
        expect(likeWildcards).to.deep.equal([]);
      });

      it('headPosition moves to the newest append', async () => {
        const result = await store.append(stream(), [event()]);
        expect(comparePositions(await store.headPosition(), result.position)).to.be.at.least(0);
      });
    });

    describe('subscribing to all', () => {
      it('catches up, then delivers live appends, in order and once', async () => {
        const from = await store.headPosition();
        const s = stream('conformance.subscribed');
        await store.append(s, [event('Before', { n: 0 })]);
        const subscription = store.subscribeToAll({ from, filter: { streamPrefixes: ['conformance.subscribed-'] } });
        const received = collect(subscription, 3);
        await store.append(s, [event('Live', { n: 1 })]);
        await store.append(s, [event('Live', { n: 2 })]);
        const events = await received;
        await subscription.stop();
        expect(events.map((e) => e.data)).to.deep.equal([{ n: 0 }, { n: 1 }, { n: 2 }]);
      });

      it('filters by event type', async () => {
        const from = await store.headPosition();
        const marker = `Wanted${randomUUID().slice(0, 8)}`;
        const s = stream();
        await store.append(s, [event('Unwanted'), event(marker, { n: 1 }), event('Unwanted'), event(marker, { n: 2 })]);
        const subscription = store.subscribeToAll({ from, filter: { eventTypes: [marker] } });
        const events = await collect(subscription, 2);
        await subscription.stop();
        expect(events.map((e) => e.type)).to.deep.equal([marker, marker]);
        expect(events.map((e) => e.data)).to.deep.equal([{ n: 1 }, { n: 2 }]);
      });
    });
  });
}
