import { z } from 'zod';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import type { ConnectorsDeps } from './connectors-deps';
import { checkDestination, engineOf, parseConfig } from './destination';
import { connectorAggregate, type ConnectorEvent, type ConnectorState } from '../../streams/connectors/connector';
import { connectorIdOf, loadConnector, requireLive } from './connector-refs';
import { boundedRecord } from '../../src/platform/http/bounded';

/** PATCH /connectors/{key}: details, and config (merged, re-validated, re-checked, re-probed). */
export const ChangeConnectorInput = z
  .object({
    display_name: z.string().trim().min(1).max(200).optional(),
    description: z.string().max(4000).optional(),
    data_classification: z.string().max(200).optional(),
    config: boundedRecord(z.unknown()).optional(),
  })
  .strict();

export interface ChangeConnector {
  type: 'ChangeConnector';
  details: { displayName?: string; description?: string; dataClassification?: string };
  config?: Record<string, unknown>;
}

export function decideChangeConnector(command: ChangeConnector, state: ConnectorState, now: Date): ConnectorEvent[] {
  requireLive(state);
  const at = now.toISOString();
  const events: ConnectorEvent[] = [];
  if (Object.values(command.details).some((v) => v !== undefined))
    events.push({ type: 'ConnectorDetailsChanged', data: { ...command.details, at } });
  if (command.config) events.push({ type: 'ConnectorConfigChanged', data: { config: command.config, at } });
  return events;
}

const decider: Decider<ChangeConnector, ConnectorState, ConnectorEvent> = {
  ...connectorAggregate,
  decide: decideChangeConnector,
};

/** Returns whether the connector must be re-probed (its config changed and it has a credential). */
export async function changeConnector(
  deps: ConnectorsDeps,
  key: string,
  input: z.infer<typeof ChangeConnectorInput>,
  context: CommandContext,
): Promise<{ id: string; reprobe: boolean }> {
  const id = await connectorIdOf(deps, context.tenantId, key);
  const current = await loadConnector(deps, context.tenantId, id);
  let config: Record<string, unknown> | undefined;
  if (input.config) {
    const engine = engineOf(deps, current.connectorType);
    config = parseConfig(engine, { ...current.config, ...input.config });
    await checkDestination(deps, engine, config, key, context);
  }
  const command: ChangeConnector = {
    type: 'ChangeConnector',
    details: {
      displayName: input.display_name,
      description: input.description,
      dataClassification: input.data_classification,
    },
    config,
  };
  const { state } = await deps.handle(decider, connectorAggregate.stream(context.tenantId, id), command, context);
  return { id, reprobe: Boolean(config) && state.status === 'probing' };
}
