import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import { Conflict } from '../../src/platform/domain-errors';
import type { LiveConnector } from '../../streams/connectors/connector';
import type { ConnectorsDeps } from './connectors-deps';
import { checkDestination, engineOf } from './destination';
import type { EngineRun } from './engines/engine';

/**
 * Everything one run needs: the destination checked again now (a DNS answer may have
 * changed since registration) and the credential read from the secret store.
 */
export async function engineRun(
  deps: ConnectorsDeps,
  connector: LiveConnector,
  context: Pick<CommandContext, 'tenantId' | 'actorId' | 'correlationId'>,
): Promise<EngineRun> {
  if (!connector.secretName) throw new Conflict('connector has no credential');
  const engine = engineOf(deps, connector.connectorType);
  const { host, address } = await checkDestination(deps, engine, connector.config, connector.connectorKey, context);
  const stored = await deps.secrets.get(connector.secretName);
  if (!stored) throw new Conflict("the connector's credential is missing from the secret store; set it again");
  return {
    config: connector.config,
    credential: JSON.parse(stored),
    host,
    address,
    limits: { connectTimeoutMs: deps.limits.connectTimeoutMs, statementTimeoutMs: deps.limits.statementTimeoutMs },
  };
}
