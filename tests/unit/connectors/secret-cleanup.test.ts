import { decideDeleteSupersededSecret } from '../../../commands/connectors/delete-superseded-secret';
import { secretCleanupCommand } from '../../../commands/connectors/secret-cleanup';
import type { Decider } from '../../../src/platform/command-handling/decider';
import { NotFound } from '../../../src/platform/domain-errors';
import { connectorAggregate, type ConnectorEvent, type ConnectorState } from '../../../streams/connectors/connector';
import { given } from '../../support/given';
import { reactionSpec } from '../../support/reaction-spec';

const at = '2026-01-15T12:00:00.000Z';
const stream = connectorAggregate.stream('t1', 'c1');
const registered: ConnectorEvent = {
  type: 'ConnectorRegistered',
  data: {
    connectorId: 'c1',
    connectorKey: 'wells',
    displayName: 'Wells',
    description: '',
    connectorType: 'postgresql',
    config: {},
    dataClassification: '',
    at,
  },
};
const set = (secretName: string, credentialRevision: number, supersedes: string | null): ConnectorEvent => ({
  type: 'CredentialSet',
  data: { secretName, credentialRevision, at, supersedes },
});
const decider: Decider<Parameters<typeof decideDeleteSupersededSecret>[0], ConnectorState, ConnectorEvent> = {
  ...connectorAggregate,
  decide: decideDeleteSupersededSecret,
};

describe('connectors.secret-cleanup reaction', () => {
  it('a credential that replaces another deletes the one it replaced', () => {
    reactionSpec(secretCleanupCommand)
      .given({ stream, ...set('s2', 2, 's1') })
      .then({ type: 'DeleteSupersededSecret', connectorId: 'c1', secretName: 's1' });
  });

  it('the first credential of a connector deletes nothing', () => {
    reactionSpec(secretCleanupCommand)
      .given({ stream, ...set('s1', 1, null) })
      .thenNothing();
  });

  it('an event recorded before the supersedes field existed deletes nothing', () => {
    reactionSpec(secretCleanupCommand)
      .given({ stream, type: 'CredentialSet', data: { secretName: 's1', credentialRevision: 3, at } })
      .thenNothing();
  });

  it('the deletion is recorded for a superseded secret', () => {
    given(decider, [registered, set('s1', 1, null), set('s2', 2, 's1')])
      .when({ type: 'DeleteSupersededSecret', connectorId: 'c1', secretName: 's1' })
      .then([{ type: 'CredentialSecretDeleted', data: { secretName: 's1', at } }]);
  });

  it('the secret the record points at now is never deleted', () => {
    given(decider, [registered, set('s1', 1, null), set('s2', 2, 's1')])
      .when({ type: 'DeleteSupersededSecret', connectorId: 'c1', secretName: 's2' })
      .thenNothing();
  });

  it("a deleted connector's superseded secret is still deleted; an unknown connector is not found", () => {
    const deleted: ConnectorEvent = { type: 'ConnectorDeleted', data: { connectorKey: 'wells', at } };
    given(decider, [registered, set('s1', 1, null), set('s2', 2, 's1'), deleted])
      .when({ type: 'DeleteSupersededSecret', connectorId: 'c1', secretName: 's1' })
      .then([{ type: 'CredentialSecretDeleted', data: { secretName: 's1', at } }]);
    given(decider).when({ type: 'DeleteSupersededSecret', connectorId: 'c1', secretName: 's1' }).thenThrows(NotFound);
  });
});
