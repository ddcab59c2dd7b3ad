import { randomUUID } from 'node:crypto';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import type { Decider } from '../../src/platform/command-handling/decider';
import { connectorRefusal } from './connector-refs';
import { type EgressAuditEvent, egressAuditAggregate } from '../../streams/connectors/egress-audit';
import type { EngineKey } from '../../streams/connectors/connector';
import type { ConnectorsDeps } from './connectors-deps';
import { checkEgress } from './egress';
import type { ConnectorEngine } from './engines/engine';

/** Config validation and the egress check: both before anything of a connector is recorded. */

export function engineOf(deps: Pick<ConnectorsDeps, 'engines'>, type: string): ConnectorEngine {
  const engine = deps.engines[type as EngineKey];
  if (!engine)
    throw connectorRefusal('config_invalid', {
      fields: { connector_type: `must be one of ${Object.keys(deps.engines).join(', ')}` },
    });
  return engine;
}

export function parseConfig(engine: ConnectorEngine, config: unknown): Record<string, unknown> {
  const parsed = engine.configSchema.safeParse(config ?? {});
  if (parsed.success) return parsed.data;
  const fields: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const name =
      issue.path.join('.') || (issue.code === 'unrecognized_keys' ? (issue as { keys: string[] }).keys.join(',') : '_');
    fields[name] = issue.message;
  }
  throw connectorRefusal('config_invalid', { fields });
}

const audit: Decider<EgressAuditEvent, { status: 'open' }, EgressAuditEvent> = {
  ...egressAuditAggregate,
  decide: (event) => [event],
};

/**
 * Resolve and check the destination; a refusal is audited (`connector.egress_denied`) and
 * answered 422. Returns the host and the one address the engine must connect to.
 */
export async function checkDestination(
  deps: ConnectorsDeps,
  engine: ConnectorEngine,
  config: Record<string, unknown>,
  connectorKey: string,
  context: CommandContext,
): Promise<{ host: string; address: string }> {
  const host = engine.hostOf(config);
  const verdict = await checkEgress(host, deps.egress, deps.resolve);
  if (verdict.ok) return { host, address: verdict.address };
  if (verdict.error === 'egress_denied') {
    const event: EgressAuditEvent = {
      type: 'ConnectorEgressDenied',
      data: {
        connectorKey,
        host,
        addresses: verdict.addresses,
        reason: verdict.reason,
        at: deps.clock().toISOString(),
      },
    };
    await deps.handle(audit, egressAuditAggregate.stream(context.tenantId, randomUUID()), event, {
      ...context,
      idempotencyKey: undefined,
      metadata: { ...context.metadata, action: 'connector.egress_denied' },
    });
    deps.logger.warn(
      { tenantId: context.tenantId, connectorKey, host, addresses: verdict.addresses },
      'connector.egress_denied',
    );
  }
  throw connectorRefusal(verdict.error, { reason: verdict.reason, host });
}
