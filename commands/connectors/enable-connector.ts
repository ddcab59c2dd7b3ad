import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import { Conflict } from '../../src/platform/domain-errors';
import type { ConnectorsDeps } from './connectors-deps';
import { connectorAggregate, type ConnectorEvent, type ConnectorState } from '../../streams/connectors/connector';
import { connectorIdOf, requireLive } from './connector-refs';

/** POST /connectors/{key}/enable: only from disabled, and always through a fresh probe. */
export interface EnableConnector {
  type: 'EnableConnector';
}

export function decideEnableConnector(_command: EnableConnector, state: ConnectorState, now: Date): ConnectorEvent[] {
  const live = requireLive(state);
  if (live.status !== 'disabled') throw new Conflict(`connector is ${live.status}, not disabled`);
  if (!live.secretName) throw new Conflict('connector has no credential to probe; set one first');
  return [{ type: 'ConnectorEnabled', data: { at: now.toISOString() } }];
}

const decider: Decider<EnableConnector, ConnectorState, ConnectorEvent> = {
  ...connectorAggregate,
  decide: decideEnableConnector,
};

export async function enableConnector(deps: ConnectorsDeps, key: string, context: CommandContext) {
  const id = await connectorIdOf(deps, context.tenantId, key);
  await deps.handle(decider, connectorAggregate.stream(context.tenantId, id), { type: 'EnableConnector' }, context);
  return id;
}
