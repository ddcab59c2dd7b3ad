import { AuditSigner } from '../../src/platform/eventstore/audit-signature';
import { createPostgresEventStore } from '../../src/platform/eventstore/postgres/postgres-event-store';
import type { EventStore } from '../../src/platform/eventstore/types';
import type { Database } from '../../src/platform/infra/database';
import { connectTestDatabase } from './database';
import { TEST_SIGNING_KEY } from './secrets';

export { TEST_SIGNING_KEY };

/** A Postgres event store over a fresh database of its own. */
export async function createTestEventStore(
  options: { groupCommit?: { maxGroups: number; maxWrites?: number } } = {},
): Promise<{ db: Database; store: EventStore; signer: AuditSigner; cleanup(): Promise<void> }> {
  const db = await connectTestDatabase();
  const signer = new AuditSigner(TEST_SIGNING_KEY);
  const store = createPostgresEventStore({ pool: db.pool, signer, pollIntervalMs: 100, ...options });
  return {
    db,
    store,
    signer,
    async cleanup() {
      await store.close();
      await db.close();
    },
  };
}

/**
 * `store`, except that its first `subscribeToAll` ends after `afterMs` the way a lost connection
 * ends it (an error); later subscriptions work. `subscriptions()` counts how many were taken.
 */
export function storeWhoseFirstSubscriptionDies(
  store: EventStore,
  afterMs: number,
): { store: EventStore; subscriptions(): number } {
  let taken = 0;
  const flaky: EventStore = Object.create(store);
  flaky.subscribeToAll = (options) => {
    const live = store.subscribeToAll(options);
    if (taken++ > 0) return live;
    return {
      stop: () => live.stop(),
      hurry: () => live.hurry?.(),
      async *[Symbol.asyncIterator]() {
        setTimeout(() => void live.stop(), afterMs);
        yield* live;
        throw new Error('Connection terminated unexpectedly');
      },
    };
  };
  return { store: flaky, subscriptions: () => taken };
}
