import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import type { ConnectorsDeps } from './connectors-deps';
import { connectorAggregate, type ConnectorEvent, type ConnectorState } from '../../streams/connectors/connector';
import { connectorIdOf, requireLive } from './connector-refs';

/** POST /connectors/{key}/disable: from any status; agents lose its tools at once. */
export interface DisableConnector {
  type: 'DisableConnector';
}

export function decideDisableConnector(_command: DisableConnector, state: ConnectorState, now: Date): ConnectorEvent[] {
  const live = requireLive(state);
  if (live.status === 'disabled') return [];
  return [{ type: 'ConnectorDisabled', data: { at: now.toISOString() } }];
}

const decider: Decider<DisableConnector, ConnectorState, ConnectorEvent> = {
  ...connectorAggregate,
  decide: decideDisableConnector,
};

export async function disableConnector(deps: ConnectorsDeps, key: string, context: CommandContext) {
  const id = await connectorIdOf(deps, context.tenantId, key);
  await deps.handle(decider, connectorAggregate.stream(context.tenantId, id), { type: 'DisableConnector' }, context);
  return id;
}
