import { createHash } from 'node:crypto';
import {
  reservationDecider,
  type ReservationKey,
  reservationStream,
} from '../../src/platform/command-handling/reservation';
import { fold } from '../../src/platform/command-handling/decider';
import { createSnapshotStore } from '../../src/platform/command-handling/snapshots';
import { Conflict, NotFound, ValidationFailed } from '../../src/platform/domain-errors';
import type { ConnectorsDeps } from './connectors-deps';
import { connectorAggregate, type ConnectorState, type LiveConnector } from '../../streams/connectors/connector';

/** Shared by the connector commands: key → stream, the key reservation, the typed refusals. */

export const connectorKeyReservation = (tenantId: string, key: string): ReservationKey => ({
  context: 'connectors',
  tenantId,
  kind: 'connector-key',
  value: key,
  label: 'connector key',
});

/** The reservation stream is the write side's record of which connector holds a key. */
export async function connectorIdOf(
  deps: Pick<ConnectorsDeps, 'store'>,
  tenantId: string,
  key: string,
): Promise<string> {
  const stream = reservationStream('connectors', tenantId, 'connector-key', key);
  const decider = reservationDecider('connector key');
  const events = await deps.store.readStream(stream);
  const state = fold(
    decider,
    events.map((e) => ({ type: e.type, data: e.data }) as never),
  );
  if (state.status !== 'held') throw new NotFound('Connector not found');
  return state.owner.slice(connectorAggregate.stream(tenantId, '').length);
}

/**
 * The decision state, for the I/O around a command (probe, preview, an exposure run); never for
 * uniqueness. Folded from the latest snapshot the command handler took (every 50 events) and
 * the events after it: a connector's stream grows with every schema discovery and probe,
 * its state does not.
 */
export async function loadConnector(
  deps: Pick<ConnectorsDeps, 'store' | 'knex'>,
  tenantId: string,
  id: string,
): Promise<LiveConnector> {
  const stream = connectorAggregate.stream(tenantId, id);
  const policy = connectorAggregate.snapshot!;
  const snapshot = await createSnapshotStore(deps.knex).load(stream);
  const usable = snapshot && snapshot.version === policy.version ? snapshot : null;
  const events = await deps.store.readStream(stream, usable ? { from: usable.revision + 1n } : {});
  const state = events
    .map(connectorAggregate.read)
    .reduce(connectorAggregate.evolve, usable ? policy.fromJSON(usable.state) : connectorAggregate.initialState);
  return requireLive(state);
}

export function requireLive(state: ConnectorState): LiveConnector {
  if (!('connectorId' in state)) throw new NotFound('Connector not found');
  return state;
}

export const sqlHash = (sql: string) => createHash('sha256').update(sql, 'utf8').digest('hex');

/**
 * Connector refusals (docs/connectors.md): 422 `{detail: {error, …}}`. Field-level detail names
 * fields (and for config their messages), never a submitted value.
 */
export function connectorRefusal(error: string, detail: Record<string, unknown>): ValidationFailed {
  const message = typeof detail.reason === 'string' ? detail.reason : error;
  return new ValidationFailed([{ loc: ['body'], msg: message, type: error }], { detail: { error, ...detail } });
}

export function exposureOf(state: LiveConnector, ekey: string) {
  const exposure = state.exposures[ekey];
  if (!exposure) throw new NotFound('Exposure not found');
  return exposure;
}

export function refuseTransition(what: string, status: string): never {
  throw new Conflict(`cannot ${what} an exposure in status ${status}`);
}
