import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import sinon from 'sinon';
import {
  DeadlineExceededError,
  UnavailableError,
  WrongExpectedVersionError,
  type EventStoreDBClient,
} from '@eventstore/db-client';
import { AuditSigner, verifyStreamChain } from '../../../src/platform/eventstore/audit-signature';
import { createFakeClient, type FakeEvent, iterable } from '../../support/fake-esdb-client';
import { createEsdbEventStore } from '../../../src/platform/eventstore/esdb/esdb-event-store';
import {
  EventStoreUnavailableError,
  IdempotencyConflictError,
  START,
  WrongExpectedRevisionError,
  type NewEvent,
} from '../../../src/platform/eventstore/types';

const signer = new AuditSigner('unit-test-key-'.padEnd(40, 'x'));
const metadata = { tenantId: 'tenant-1', actorId: 'user-1', correlationId: 'corr-1', causationId: 'cause-1' };
const event = (type: string, data: Record<string, unknown> = {}, id?: string): NewEvent => ({
  ...(id ? { id } : {}),
  type,
  data,
  metadata,
});

function setup() {
  const fake = createFakeClient();
  const store = createEsdbEventStore({ client: fake.client as unknown as EventStoreDBClient, signer });
  return { ...fake, store };
}

describe('EventStoreDB event store adapter', () => {
  describe('append: expected revisions', () => {
    it("sends NO_STREAM for 'no_stream' and starts the stream at revision 0", async () => {
      const { store, client } = setup();
      const result = await store.append('orders-1', [event('OrderPlaced')], { expectedRevision: 'no_stream' });
      expect(client.appendToStream.firstCall.args[2]).to.deep.equal({ expectedRevision: 'no_stream' });
      expect(result.nextRevision).to.equal(0n);
    });

    it('sends an explicit revision unchanged and answers the next one', async () => {
      const { store, client } = setup();
      await store.append('orders-1', [event('OrderPlaced'), event('OrderPaid')]);
      const result = await store.append('orders-1', [event('OrderShipped')], { expectedRevision: 1n });
      expect(client.appendToStream.secondCall.args[2]).to.deep.equal({ expectedRevision: 1n });
      expect(result.nextRevision).to.equal(2n);
    });

    it("sends the revision it read for 'stream_exists', and refuses a missing stream without appending", async () => {
      const { store, client } = setup();
      const missing = await store
        .append('orders-1', [event('OrderPaid')], { expectedRevision: 'stream_exists' })
        .catch((e) => e);
      expect(missing)
        .to.be.instanceOf(WrongExpectedRevisionError)
        .and.include({ expected: 'stream_exists', actual: 'no_stream' });
      expect(client.appendToStream.called).to.equal(false);

      await store.append('orders-1', [event('OrderPlaced')]);
      await store.append('orders-1', [event('OrderPaid')], { expectedRevision: 'stream_exists' });
      expect(client.appendToStream.secondCall.args[2]).to.deep.equal({ expectedRevision: 0n });
    });

    it("sends the revision it read for 'any' (NO_STREAM when new) so the chain is signed against the real tail", async () => {
      const { store, client } = setup();
      await store.append('orders-1', [event('OrderPlaced')], { expectedRevision: 'any' });
      await store.append('orders-1', [event('OrderPaid')], { expectedRevision: 'any' });
      expect(client.appendToStream.firstCall.args[2]).to.deep.equal({ expectedRevision: 'no_stream' });
      expect(client.appendToStream.secondCall.args[2]).to.deep.equal({ expectedRevision: 0n });
    });

    it('refuses a stale explicit revision or no_stream on an existing stream, naming the actual revision', async () => {
      const { store, client } = setup();
      await store.append('orders-1', [event('OrderPlaced'), event('OrderPaid')]);
      const stale = await store.append('orders-1', [event('OrderShipped')], { expectedRevision: 0n }).catch((e) => e);
      expect(stale)
        .to.be.instanceOf(WrongExpectedRevisionError)
        .and.include({ stream: 'orders-1', expected: 0n, actual: 1n });
      const exists = await store
        .append('orders-1', [event('OrderPlaced')], { expectedRevision: 'no_stream' })
        .catch((e) => e);
      expect(exists).to.be.instanceOf(WrongExpectedRevisionError).and.include({ expected: 'no_stream', actual: 1n });
      expect(client.appendToStream.callCount).to.equal(1);
    });
  });

  describe('append: concurrent writers', () => {
    /** Another writer lands between the adapter's tail read and its append. */
    function interleaveWriter(fake: ReturnType<typeof setup>, stream: string, onCall: number) {
      const other = createEsdbEventStore({ client: fake.client as unknown as EventStoreDBClient, signer });
      fake.client.appendToStream.onCall(onCall).callsFake(async (...args: Parameters<typeof fake.appendImpl>) => {
        await other.append(stream, [event('OrderNoted', { by: 'other' })]);
        return fake.appendImpl(...args);
      });
    }

    it('maps the server WrongExpectedVersionError to WrongExpectedRevisionError with the actual revision', async () => {
      const fake = setup();
      await fake.store.append('orders-1', [event('OrderPlaced'), event('OrderPaid')]);
      interleaveWriter(fake, 'orders-1', 1);
      const error = await fake.store
        .append('orders-1', [event('OrderShipped')], { expectedRevision: 1n })
        .catch((e) => e);
      expect(error)
        .to.be.instanceOf(WrongExpectedRevisionError)
        .and.include({ stream: 'orders-1', expected: 1n, actual: 2n });
    });

    it("'any' re-reads, re-signs and retries after a conflict, keeping the chain intact", async () => {
      const fake = setup();
      await fake.store.append('orders-1', [event('OrderPlaced')]);
      interleaveWriter(fake, 'orders-1', 1);
      const result = await fake.store.append('orders-1', [event('OrderShipped')]);
      const stored = await fake.store.readStream('orders-1');
      expect(stored.map((e) => e.type)).to.deep.equal(['OrderPlaced', 'OrderNoted', 'OrderShipped']);
      expect(result.nextRevision).to.equal(2n);
      expect(fake.client.appendToStream.lastCall.args[2]).to.deep.equal({ expectedRevision: 1n });
      expect(verifyStreamChain(signer, stored)).to.deep.equal([]);
    });

    it("'any' gives up after ten conflicting attempts", async () => {
      const { store, client } = setup();
      client.appendToStream.rejects(
        new WrongExpectedVersionError(undefined, { streamName: 'orders-1', expected: 'no_stream', current: 4n }),
      );
      const error = await store.append('orders-1', [event('OrderPlaced')]).catch((e) => e);
      expect(error).to.be.instanceOf(WrongExpectedRevisionError).and.include({ expected: 'any', actual: 4n });
      expect(client.appendToStream.callCount).to.equal(10);
    });
  });

  describe('append: signatures and idempotency', () => {
    it('chains each signature to the previous stored event of the stream, across appends and restarts', async () => {
      const fake = setup();
      await fake.store.append('orders-1', [event('OrderPlaced', { n: 1 }), event('OrderPaid', { n: 2 })]);
      const restarted = createEsdbEventStore({ client: fake.client as unknown as EventStoreDBClient, signer });
      await restarted.append('orders-1', [event('OrderShipped', { n: 3 })]);
      const stored = await fake.store.readStream('orders-1');
      expect(verifyStreamChain(signer, stored)).to.deep.equal([]);
      expect(stored[2].metadata.signature).to.equal(signer.sign(stored[2], stored[1].metadata.signature));

      fake.log[1].data = { n: 99 };
      const tampered = verifyStreamChain(signer, await fake.store.readStream('orders-1'));
      expect(tampered.map((t) => [t.revision, t.reason])).to.deep.equal([['1', 'signature_mismatch']]);
    });

    it('a retried batch answers the original result without appending again, even after later appends', async () => {
      const { store, client } = setup();
      const batch = [event('OrderPlaced', {}, randomUUID()), event('OrderPaid', {}, randomUUID())];
      const first = await store.append('orders-1', batch, { expectedRevision: 'no_stream' });
      expect(await store.append('orders-1', batch, { expectedRevision: 'no_stream' })).to.deep.equal(first);
      await store.append('orders-1', [event('OrderShipped')]);
      expect(await store.append('orders-1', batch)).to.deep.equal(first);
      expect(client.appendToStream.callCount).to.equal(2);
      expect(await store.readStream('orders-1')).to.have.length(3);
    });

    it('a batch whose ids are only partly stored is an IdempotencyConflictError', async () => {
      const { store, client } = setup();
      const placed = event('OrderPlaced', {}, randomUUID());
      await store.append('orders-1', [placed]);
      const error = await store.append('orders-1', [placed, event('OrderPaid', {}, randomUUID())]).catch((e) => e);
      expect(error)
        .to.be.instanceOf(IdempotencyConflictError)
        .and.deep.include({ eventIds: [placed.id] });
      expect(client.appendToStream.callCount).to.equal(1);
    });
  });

  describe('positions and reads', () => {
    it("answers a batch's position as the last event's own position, not the transaction's start", async () => {
      const { store, log, client } = setup();
      const result = await store.append('orders-1', [event('OrderPlaced', { total: 5 }), event('OrderPaid')]);
      const answered = await client.appendToStream.firstCall.returnValue;
      expect(answered.position.prepare).to.not.equal(answered.position.commit);
      expect(result).to.deep.equal({ nextRevision: 1n, position: log[1].position });
      expect(result.position.commit > BigInt(Number.MAX_SAFE_INTEGER)).to.equal(true);

      const [placed, paid] = await store.readStream('orders-1');
      expect(placed).to.deep.include({ stream: 'orders-1', revision: 0n, type: 'OrderPlaced', data: { total: 5 } });
      expect(paid.position).to.deep.equal(result.position);
      expect(paid.id).to.equal(log[1].id);
      expect(paid.recordedAt).to.be.instanceOf(Date);
      expect(paid.metadata).to.include(metadata).and.to.have.property('signature').that.is.a('string');
    });

    it('keeps distinct bigint commit and prepare positions of stored events in stream and $all reads', async () => {
      const { store, write } = setup();
      const stored = write('orders-1', 'OrderPlaced', {}, metadata);
      stored.position = { commit: stored.position.commit + 50n, prepare: stored.position.commit };
      const [fromStream] = await store.readStream('orders-1');
      const [fromAll] = await store.readAll();
      expect(fromStream.position).to.deep.equal(stored.position).and.to.deep.equal(fromAll.position);
      expect(typeof fromAll.position.prepare).to.equal('bigint');
    });

    it('reads the position back when the server omits it from the append result', async () => {
      const { store, client, log, appendImpl } = setup();
      client.appendToStream.callsFake(async (...args: Parameters<typeof appendImpl>) => ({
        ...(await appendImpl(...args)),
        position: undefined,
      }));
      const result = await store.append('orders-1', [event('OrderPlaced')]);
      expect(result.position).to.deep.equal(log[0].position);
    });

    it('given a multi-stream write with a check, when the checked stream moved, then it is refused before anything is appended; in place, the others land', async () => {
      const { store, client } = setup();
      await store.append('orders-input', [event('Input')], { expectedRevision: 'no_stream' });
      const landed = await store.appendMany([
        { stream: 'orders-input', events: [], expectedRevision: 0n },
        { stream: 'orders-decided', events: [event('Decided')], expectedRevision: 'no_stream' },
      ]);
      expect(landed.map((r) => r.nextRevision)).to.deep.equal([0n, 0n]);
      await store.append('orders-input', [event('Moved')], { expectedRevision: 0n });
      const appends = client.appendToStream.callCount;
      const refused = await store
        .appendMany([
          { stream: 'orders-decided', events: [event('Again')], expectedRevision: 0n },
          { stream: 'orders-input', events: [], expectedRevision: 0n },
        ])
        .catch((e: unknown) => e);
      expect(refused).to.be.instanceOf(WrongExpectedRevisionError).with.property('actual', 1n);
      expect(client.appendToStream.callCount, 'nothing appended').to.equal(appends);
    });

    it('reads a missing stream as empty', async () => {
      const { store } = setup();
      expect(await store.readStream('orders-missing')).to.deep.equal([]);
    });

    it('reads forwards inclusively from a revision and backwards from the end or a revision', async () => {
      const { store, client } = setup();
      await store.append('orders-1', [event('A'), event('B'), event('C')]);
      const revisions = async (options: Parameters<typeof store.readStream>[1]) =>
        (await store.readStream('orders-1', options)).map((e) => e.revision);
      expect(await revisions({ from: 1n })).to.deep.equal([1n, 2n]);
      expect(await revisions({ direction: 'backwards' })).to.deep.equal([2n, 1n, 0n]);
      expect(client.readStream.lastCall.args[1]).to.deep.include({ direction: 'backwards', fromRevision: 'end' });
      expect(await revisions({ direction: 'backwards', from: 1n, limit: 1 })).to.deep.equal([1n]);
    });

    it('readAll skips system events and is exclusive of `from` even when the server returns that event', async () => {
      const { store, client, write } = setup();
      write('$stats-127.0.0.1:2113', '$statsCollected');
      const first = write('orders-1', 'OrderPlaced', {}, metadata);
      write('$ce-orders', '$>', {}, undefined);
      const second = write('orders-2', 'OrderPlaced', {}, metadata);
      const third = write('orders-1', 'OrderPaid', {}, metadata);

      expect((await store.readAll()).map((e) => e.id)).to.deep.equal([first.id, second.id, third.id]);
      expect((await store.readAll({ from: first.position })).map((e) => e.id)).to.deep.equal([second.id, third.id]);
      expect(client.readAll.lastCall.args[0]).to.deep.include({ fromPosition: first.position });
      expect((await store.readAll({ from: START, limit: 1 })).map((e) => e.id)).to.deep.equal([first.id]);
    });

    it('readAll pages past runs of system events to fill its limit', async () => {
      const { store, write } = setup();
      for (let i = 0; i < 6; i++) write('$stats-node', '$statsCollected');
      const wanted = [write('orders-1', 'OrderPlaced', {}, metadata), write('orders-1', 'OrderPaid', {}, metadata)];
      expect((await store.readAll({ limit: 2 })).map((e) => e.id)).to.deep.equal(wanted.map((e) => e.id));
    });

    it('headPosition is the newest non-system event, or START for an empty store', async () => {
      const { store, write } = setup();
      expect(await store.headPosition()).to.deep.equal(START);
      write('orders-1', 'OrderPlaced', {}, metadata);
      const newest = write('orders-2', 'OrderPlaced', {}, metadata);
      for (let i = 0; i < 25; i++) write('$stats-node', '$statsCollected');
      expect(await store.headPosition()).to.deep.equal(newest.position);
    });
  });

  describe('unavailability', () => {
    it('maps Unavailable and DeadlineExceeded errors to EventStoreUnavailableError', async () => {
      const { store, client } = setup();
      client.appendToStream.rejects(new UnavailableError(undefined, 'connection refused'));
      expect(await store.append('orders-1', [event('OrderPlaced')]).catch((e) => e)).to.be.instanceOf(
        EventStoreUnavailableError,
      );
      client.readStream.returns(iterable([], new DeadlineExceededError(undefined, 'deadline')));
      expect(await store.readStream('orders-1').catch((e) => e)).to.be.instanceOf(EventStoreUnavailableError);
      client.readAll.returns(iterable([], new UnavailableError()));
      expect(await store.headPosition().catch((e) => e)).to.be.instanceOf(EventStoreUnavailableError);
    });
  });

  describe('subscribeToAll', () => {
    function liveSubscription(client: ReturnType<typeof setup>['client']) {
      const stream = Object.assign(new PassThrough({ objectMode: true }), { unsubscribe: sinon.stub().resolves() });
      client.subscribeToAll.returns(stream);
      return { stream, push: (e: FakeEvent) => stream.write({ event: e, commitPosition: e.position.commit }) };
    }

    it('filters on the server and again exactly, skips system events and the event at `from`, and ends on stop()', async () => {
      const { store, client, write } = setup();
      const live = liveSubscription(client);
      const at = write('orders-1', 'OrderPlaced', {}, metadata);
      const subscription = store.subscribeToAll({ from: at.position, filter: { eventTypes: ['OrderPlaced'] } });
      expect(client.subscribeToAll.firstCall.args[0]).to.deep.include({ fromPosition: at.position });
      expect(client.subscribeToAll.firstCall.args[0].filter)
        .to.include({ filterOn: 'eventType' })
        .and.deep.include({ prefixes: ['OrderPlaced'] });

      const wanted = write('orders-2', 'OrderPlaced', {}, metadata);
      for (const e of [
        at,
        write('$stats-node', '$statsCollected'),
        write('orders-1', 'OrderPlacedAgain', {}, metadata),
        wanted,
      ])
        live.push(e);
      const iterator = subscription[Symbol.asyncIterator]();
      expect((await iterator.next()).value).to.include({ id: wanted.id, revision: 0n });

      const waiting = iterator.next();
      await subscription.stop();
      expect(await waiting).to.deep.equal({ done: true, value: undefined });
      expect(live.stream.unsubscribe.calledOnce).to.equal(true);
    });

    it('uses a stream-name filter for prefixes and excludes system events without a filter', async () => {
      const { store, client } = setup();
      liveSubscription(client);
      await store.subscribeToAll({ filter: { streamPrefixes: ['orders-'] } }).stop();
      expect(client.subscribeToAll.firstCall.args[0]).to.deep.include({ fromPosition: 'start' });
      expect(client.subscribeToAll.firstCall.args[0].filter).to.deep.include({
        filterOn: 'streamName',
        prefixes: ['orders-'],
      });
      liveSubscription(client);
      await store.subscribeToAll().stop();
      expect(client.subscribeToAll.secondCall.args[0].filter).to.include({ filterOn: 'eventType', regex: '^[^$].*' });
    });
  });

  it('close disposes the client', async () => {
    const { store, client } = setup();
    await store.close();
    expect(client.dispose.calledOnce).to.equal(true);
  });
});
