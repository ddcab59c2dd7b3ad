import { z } from 'zod';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import type { ConnectorsDeps } from '../../src/contexts/connectors/connectors-deps';
import { engineOf } from '../../src/contexts/connectors/destination';
import { Conflict } from '../../src/platform/domain-errors';
import { connectorAggregate, ConnectorEvent, ConnectorState, credentialSecretName } from '../../streams/connectors/connector';
import { connectorIdOf, connectorRefusal, loadConnector, requireLive } from './connector-refs';
import { boundedRecord } from '../../src/platform/http/bounded';

/**
 * PUT /connectors/{key}/credential: the credential goes to the secret store, the event only
 * names the secret. Validation errors list field names, never values or value-bearing messages.
 */
export const SetCredentialInput = z.object({ credential: boundedRecord(z.unknown()) }).strict();

export interface SetCredential {
  type: 'SetCredential';
  secretName: string;
  /** The revision the secret was written under; another credential set meanwhile is a conflict. */
  credentialRevision: number;
}

export function decideSetCredential(command: SetCredential, state: ConnectorState, now: Date): ConnectorEvent[] {
  const live = requireLive(state);
  if (command.credentialRevision !== live.credentialRevision + 1) throw new Conflict('the credential was changed concurrently; please retry');
  return [{ type: 'CredentialSet', data: { secretName: command.secretName, credentialRevision: command.credentialRevision, at: now.toISOString() } }];
}

const decider: Decider<SetCredential, ConnectorState, ConnectorEvent> = { ...connectorAggregate, decide: decideSetCredential };

export async function setCredential(deps: ConnectorsDeps, key: string, input: z.infer<typeof SetCredentialInput>, context: CommandContext) {
  const id = await connectorIdOf(deps, context.tenantId, key);
  const current = await loadConnector(deps, context.tenantId, id);
  const engine = engineOf(deps, current.connectorType);
  const parsed = engine.credentialSchema.safeParse(input.credential);
  if (!parsed.success) {
    const fields = new Set<string>();
    for (const issue of parsed.error.issues) {
      if (issue.code === 'unrecognized_keys') for (const k of (issue as { keys: string[] }).keys) fields.add(k);
      else fields.add(String(issue.path[0] ?? '_'));
    }
    throw connectorRefusal('credential_invalid', { fields: [...fields].sort(), expected: engine.credentialFields });
  }
  // Each revision has its own secret, so runs keep using the verified one until the event
  // that names the new one is recorded; a failed append leaves the old credential in force.
  const credentialRevision = current.credentialRevision + 1;
  const secretName = credentialSecretName(context.tenantId, id, key, credentialRevision);
  await deps.secrets.put(secretName, JSON.stringify(parsed.data));
  try {
    const { state } = await deps.handle(decider, connectorAggregate.stream(context.tenantId, id), { type: 'SetCredential', secretName, credentialRevision }, context);
    if (current.secretName && current.secretName !== secretName) await deps.secrets.delete(current.secretName);
    return { id, probe: state.status === 'probing' };
  } catch (error) {
    await deps.secrets.delete(secretName).catch(() => undefined);
    throw error;
  }
}
