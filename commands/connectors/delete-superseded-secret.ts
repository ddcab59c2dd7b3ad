import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import type { ConnectorsDeps } from './connectors-deps';
import { NotFound } from '../../src/platform/domain-errors';
import { connectorAggregate, type ConnectorEvent, type ConnectorState } from '../../streams/connectors/connector';

/** Deletes a credential's secret that a later `CredentialSet` replaced (issued by `connectors.secret-cleanup`). */
export interface DeleteSupersededSecret {
  type: 'DeleteSupersededSecret';
  connectorId: string;
  secretName: string;
}

/** The secret the connector's record points at now is never deleted, whatever the event said. */
const stillRecorded = (state: ConnectorState, secretName: string) =>
  'connectorId' in state && state.secretName === secretName;

export function decideDeleteSupersededSecret(
  command: DeleteSupersededSecret,
  state: ConnectorState,
  now: Date,
): ConnectorEvent[] {
  if (state.status === 'none') throw new NotFound('Connector not found');
  if (stillRecorded(state, command.secretName)) return [];
  return [{ type: 'CredentialSecretDeleted', data: { secretName: command.secretName, at: now.toISOString() } }];
}

const decider: Decider<DeleteSupersededSecret, ConnectorState, ConnectorEvent> = {
  ...connectorAggregate,
  decide: decideDeleteSupersededSecret,
};

/**
 * Records the deletion, then deletes. A replay after a crash between the two derives the same
 * event ids (the reaction's idempotency key), appends nothing, and deletes again (a no-op
 * when the first run got that far).
 */
export async function deleteSupersededSecret(
  deps: Pick<ConnectorsDeps, 'handle' | 'secrets'>,
  context: CommandContext,
  command: DeleteSupersededSecret,
): Promise<void> {
  const { state } = await deps.handle(
    decider,
    connectorAggregate.stream(context.tenantId, command.connectorId),
    command,
    context,
  );
  if (!stillRecorded(state, command.secretName)) await deps.secrets.delete(command.secretName);
}
