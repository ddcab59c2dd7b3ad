import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import pino from 'pino';
import sinon from 'sinon';
import type { Aggregate } from '../../../src/platform/command-handling/aggregate';
import { appendAtomically, loadAggregate, StreamStates } from '../../../src/platform/command-handling/multi-stream-command';
import { RateLimited } from '../../../src/platform/domain-errors';
import { AuditSigner } from '../../../src/platform/eventstore/audit-signature';
import { createPostgresEventStore } from '../../../src/platform/eventstore/postgres/postgres-event-store';
import type { EventStore } from '../../../src/platform/eventstore/types';
import type { Database } from '../../../src/platform/infra/database';
import { createTestEventStore, TEST_SIGNING_KEY } from '../../support/event-store';

/** A budget: `Spent` events add up; spending past the cap is refused. */
type Spent = { type: 'Spent'; data: { amount: number } };
const budget: Aggregate<number, Spent> = {
  stream: (tenantId, id) => `toy.budget-${tenantId}-${id}`,
  eventTypes: ['Spent'],
  initialState: 0,
  evolve: (total, event) => total + event.data.amount,
  read: (event) => event as Spent,
};
const CAP = 10;

describe('multi-stream decisions from remembered states', () => {
  let db: Database;
  let store: EventStore;
  let cleanup: () => Promise<void>;
  const ctx = { tenantId: 'tenant-x', actorId: 'user-1' };

  before(async () => {
    ({ db, store, cleanup } = await createTestEventStore());
  });
  after(() => cleanup());
  afterEach(() => sinon.restore());

  const deps = () => ({ store, projections: { waitFor: sinon.stub().resolves(true) } as never, logger: pino({ level: 'silent' }), config: { commandRetries: 0 } as never, clock: () => new Date() });
  const spend = (states: StreamStates<number>, stream: string, amount: number) =>
    appendAtomically(
      deps(),
      ctx,
      async (_now, scope) => {
        const loaded = await loadAggregate(store, budget, stream, states, scope);
        if (loaded.state + amount > CAP) throw new RateLimited(`over the cap: ${loaded.state} spent`);
        return { writes: [{ stream, revision: loaded.revision, events: [{ type: 'Spent', data: { amount } }], after: loaded.state + amount }], outcome: loaded.state + amount };
      },
      { states: states as StreamStates<unknown>, retries: 0 },
    );
  /** Another process: a store of its own on the same database, whose appends this one never hears of. */
  const elsewhere = async (stream: string, amount: number) => {
    const other = createPostgresEventStore({ pool: db.pool, signer: new AuditSigner(TEST_SIGNING_KEY) });
    try {
      const head = (await other.readStream(stream)).length - 1;
      await other.append(stream, [{ type: 'Spent', data: { amount }, metadata: { ...ctx, correlationId: 'c', causationId: 'c' } }], { expectedRevision: head < 0 ? 'no_stream' : BigInt(head) });
    } finally {
      await other.close();
    }
  };

  it('given a state cached at the head this process knows, when decided again, then the stream is not read', async () => {
    const states = new StreamStates<number>();
    const stream = budget.stream('tenant-x', randomUUID());
    await spend(states, stream, 2);
    const reads = sinon.spy(store, 'readStream');
    const { outcome } = await spend(states, stream, 3);
    expect(outcome).to.equal(5);
    expect(reads.callCount).to.equal(0);
  });

  it('given another process spent meanwhile, when decided from memory, then the append is refused and the decision is made again from a read, without spending a retry', async () => {
    const states = new StreamStates<number>();
    const stream = budget.stream('tenant-x', randomUUID());
    await spend(states, stream, 4);
    await elsewhere(stream, 5);
    // From memory 4 + 2 fits; read, 9 + 2 does not.
    const refused = await spend(states, stream, 2).then(() => null, (error: unknown) => error);
    expect(refused).to.be.instanceOf(RateLimited);
    expect((await store.readStream(stream)).map((e) => (e.data as { amount: number }).amount)).to.deep.equal([4, 5]);
  });

  it('given a refusal decided from memory, when the stream says otherwise, then it is decided again from a read', async () => {
    const states = new StreamStates<number>();
    const stream = budget.stream('tenant-x', randomUUID());
    await spend(states, stream, 9);
    // Another process gives 6 back.
    await elsewhere(stream, -6);
    const { outcome } = await spend(states, stream, 4);
    expect(outcome, 'read: 3 spent, 4 more fit').to.equal(7);
  });
});
