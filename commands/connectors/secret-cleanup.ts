import type { RecordedEvent } from '../../src/platform/eventstore/types';
import { reactionContext, type Reactor } from '../../src/platform/reactors/reactor';
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
  const tenantId = String((event.metadata as { tenantId?: string }).tenantId ?? '');
  const connectorId = event.stream.slice(connectorAggregate.stream(tenantId, '').length);
  return { type: 'DeleteSupersededSecret', connectorId, secretName: parsed.data.supersedes };
}

export const secretCleanupReactor: Reactor = {
  name: 'connectors.secret-cleanup',
  handles: ['CredentialSet'],
  async react(event, deps) {
    const command = secretCleanupCommand(event);
    if (command)
      await deleteSupersededSecret(connectorsDeps(deps), reactionContext(event, 'delete-superseded-secret'), command);
  },
};
