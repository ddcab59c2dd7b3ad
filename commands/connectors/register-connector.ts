import { z } from 'zod';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import { newId } from '../../src/platform/command-handling/idempotency';
import { Conflict } from '../../src/platform/domain-errors';
import type { ConnectorsDeps } from './connectors-deps';
import { checkDestination, engineOf, parseConfig } from './destination';
import {
  connectorAggregate,
  type ConnectorEvent,
  type ConnectorState,
  type EngineKey,
} from '../../streams/connectors/connector';
import { connectorKeyReservation } from './connector-refs';
import { boundedRecord } from '../../src/platform/http/bounded';

/** POST /connectors: validated config, checked destination, then the record and its key. */
export const RegisterConnectorInput = z
  .object({
    connector_key: z
      .string()
      .max(64)
      .regex(
        /^[a-z][a-z0-9_-]{0,63}$/,
        'a slug: lower-case letter, then letters, digits, _ or -, at most 64 characters',
      ),
    display_name: z.string().trim().min(1).max(200),
    description: z.string().max(4000).default(''),
    connector_type: z.string().max(64),
    config: boundedRecord(z.unknown()).default({}),
    data_classification: z.string().max(200).default(''),
  })
  .strict();

export interface RegisterConnector {
  type: 'RegisterConnector';
  connectorId: string;
  connectorKey: string;
  displayName: string;
  description: string;
  connectorType: EngineKey;
  config: Record<string, unknown>;
  dataClassification: string;
}

export function decideRegisterConnector(
  command: RegisterConnector,
  state: ConnectorState,
  now: Date,
): ConnectorEvent[] {
  if (state.status !== 'none') throw new Conflict('Connector already exists');
  const { type: _type, ...data } = command;
  return [{ type: 'ConnectorRegistered', data: { ...data, at: now.toISOString() } }];
}

const decider: Decider<RegisterConnector, ConnectorState, ConnectorEvent> = {
  ...connectorAggregate,
  decide: decideRegisterConnector,
};

export async function registerConnector(
  deps: ConnectorsDeps,
  input: z.infer<typeof RegisterConnectorInput>,
  context: CommandContext,
) {
  const engine = engineOf(deps, input.connector_type);
  const config = parseConfig(engine, input.config);
  await checkDestination(deps, engine, config, input.connector_key, context);
  const connectorId = newId(context, 'connectors.connector');
  const command: RegisterConnector = {
    type: 'RegisterConnector',
    connectorId,
    connectorKey: input.connector_key,
    displayName: input.display_name,
    description: input.description,
    connectorType: engine.key,
    config,
    dataClassification: input.data_classification,
  };
  await deps.handle(decider, connectorAggregate.stream(context.tenantId, connectorId), command, context, {
    reserve: [connectorKeyReservation(context.tenantId, input.connector_key)],
  });
  return connectorId;
}
