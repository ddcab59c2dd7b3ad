import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import { Conflict } from '../../src/platform/domain-errors';
import type { ConnectorsDeps } from './connectors-deps';
import { connectorAggregate, type ConnectorEvent, type ConnectorState } from '../../streams/connectors/connector';
import { connectorIdOf, connectorKeyReservation, loadConnector, requireLive } from './connector-refs';

/** DELETE /connectors/{key}: refused while any exposure is approved; frees the key and the secret. */
export interface DeleteConnector {
  type: 'DeleteConnector';
}

export function decideDeleteConnector(_command: DeleteConnector, state: ConnectorState, now: Date): ConnectorEvent[] {
  const live = requireLive(state);
  const approved = Object.entries(live.exposures)
    .filter(([, e]) => e.status === 'approved')
    .map(([ekey]) => ekey);
  if (approved.length > 0)
    throw new Conflict(`connector has approved exposures (${approved.join(', ')}); retire them first`);
  return [{ type: 'ConnectorDeleted', data: { connectorKey: live.connectorKey, at: now.toISOString() } }];
}

const decider: Decider<DeleteConnector, ConnectorState, ConnectorEvent> = {
  ...connectorAggregate,
  decide: decideDeleteConnector,
};

export async function deleteConnector(deps: ConnectorsDeps, key: string, context: CommandContext) {
  const id = await connectorIdOf(deps, context.tenantId, key);
  const stream = connectorAggregate.stream(context.tenantId, id);
  const before = await loadConnector(deps, context.tenantId, id);
  await deps.handle(decider, stream, { type: 'DeleteConnector' }, context, {
    release: [connectorKeyReservation(context.tenantId, key)],
  });
  // The secret goes only once the record says deleted; its name holds the connector id, so
  // a new connector under the same key never sees it.
  if (before.secretName) await deps.secrets.delete(before.secretName);
}
