import type { EventStore } from '../../src/platform/eventstore/types';
import { type UserState, userEvolution, userStream } from '../../streams/identity/user';

/** A user's state folded from their stream, for steps that must look before deciding. */
export async function loadUser(store: EventStore, tenantId: string, userId: string): Promise<UserState> {
  const stored = await store.readStream(userStream(tenantId, userId));
  return stored.map(userEvolution.read).reduce(userEvolution.evolve, userEvolution.initialState);
}
