import type { RecordedEvent } from '../../src/platform/eventstore/types';
import { type Reactor, tenantOf } from '../../src/platform/reactors/reactor';
import { connectorsDeps } from './connectors-deps';
import { connectorAggregate, readConnectorEvent } from '../../streams/connectors/connector';
import { type DeleteSupersededSecret, deleteSupersededSecret } from './delete-superseded-secret';

/**
 * `connectors.secret-cleanup`: once a `CredentialSet` is committed, the secret it replaced is
 * deleted. Only here, and only after that commit, so no route can delete a secret that an
 * event still names (a retried or concurrent PUT used to delete the live one).
 */
export function secretCleanupCommand(event: RecordedEvent): DeleteSupersededSecret | null {
  const parsed = readConnectorEvent(event);
  if (parsed.type !== 'CredentialSet' || !parsed.data.supersedes || parsed.data.supersedes === parsed.data.secretName)
    return null;
  const connectorId = event.stream.slice(connectorAggregate.stream(tenantOf(event), '').length);
  return { type: 'DeleteSupersededSecret', connectorId, secretName: parsed.data.supersedes };
}

/**
 * The deletion is an operation of the connectors context, not one decision: it records the
 * deletion, then deletes the secret from the secret store (`deleteSupersededSecret`).
 */
export const secretCleanupReactor: Reactor = {
  name: 'connectors.secret-cleanup',
  handles: ['CredentialSet'],
  react(event) {
    const command = secretCleanupCommand(event);
    if (!command) return [];
    return [
      {
        step: 'delete-superseded-secret',
        operation: {
          name: 'connectors.delete-superseded-secret',
          input: command,
          send: (deps, context) => deleteSupersededSecret(connectorsDeps(deps), context, command),
        },
      },
    ];
  },
};
