import { z } from 'zod';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import type { ConnectorsDeps } from './connectors-deps';
import { engineOf } from './destination';
import { newId } from '../../src/platform/command-handling/idempotency';
import {
  connectorAggregate,
  type ConnectorEvent,
  type ConnectorState,
  credentialSecretName,
} from '../../streams/connectors/connector';
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
}

/**
 * Concurrent PUTs each record their own credential, last writer wins: none is refused, and
 * every event names the secret it replaces, so `connectors.secret-cleanup` deletes exactly
 * the superseded one — never a secret an event still points at.
 */
export function decideSetCredential(command: SetCredential, state: ConnectorState, now: Date): ConnectorEvent[] {
  const live = requireLive(state);
  if (live.secretName === command.secretName) return [];
  return [
    {
      type: 'CredentialSet',
      data: {
        secretName: command.secretName,
        credentialRevision: live.credentialRevision + 1,
        at: now.toISOString(),
        supersedes: live.secretName,
      },
    },
  ];
}

const decider: Decider<SetCredential, ConnectorState, ConnectorEvent> = {
  ...connectorAggregate,
  decide: decideSetCredential,
};

/** Whether an event of the connector's log ever named this secret (a retry of a PUT that was recorded). */
async function everRecorded(deps: Pick<ConnectorsDeps, 'store'>, stream: string, secretName: string): Promise<boolean> {
  const events = await deps.store.readStream(stream);
  return events.some(
    (e) => e.type === 'CredentialSet' && (e.data as { secretName?: string }).secretName === secretName,
  );
}

export async function setCredential(
  deps: ConnectorsDeps,
  key: string,
  input: z.infer<typeof SetCredentialInput>,
  context: CommandContext,
) {
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
  // The secret is written before the event that names it and nothing here deletes one: a
  // retried, concurrent or failed PUT can leave an unreferenced secret behind, never a
  // connector whose recorded secret is gone. The superseded secret goes by reaction.
  const stream = connectorAggregate.stream(context.tenantId, id);
  const secretName = credentialSecretName(context.tenantId, id, key, newId(context, 'connectors.credential'));
  if (!(await everRecorded(deps, stream, secretName))) await deps.secrets.put(secretName, JSON.stringify(parsed.data));
  const { state } = await deps.handle(decider, stream, { type: 'SetCredential', secretName }, context);
  return { id, probe: state.status === 'probing' };
}
