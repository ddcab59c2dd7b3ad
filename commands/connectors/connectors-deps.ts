import type { PlatformDeps } from '../../src/platform/context-module';
import { createSecretStore, type SecretStore } from '../../src/platform/infra/secret-store';
import { type EgressPolicy, egressPolicy, type Resolver, systemResolver } from './egress';
import type { ConnectorEngine, RunLimits } from './engines/engine';
import { ENGINE_REGISTRY } from './engines';
import type { EngineKey } from '../../streams/connectors/connector';

/** What the connector commands need beyond the platform: secrets, engines, egress, limits. */
export interface ConnectorsDeps extends PlatformDeps {
  secrets: SecretStore;
  engines: Record<EngineKey, ConnectorEngine>;
  egress: EgressPolicy;
  resolve: Resolver;
  limits: RunLimits & { rowCap: number; previewRows: number; discoveryColumns: number };
}

export function connectorsDeps(
  deps: PlatformDeps,
  overrides: Partial<Pick<ConnectorsDeps, 'engines' | 'resolve'>> = {},
): ConnectorsDeps {
  const c = deps.config.connectors;
  return {
    ...deps,
    secrets: createSecretStore(deps.knex, deps.config.secretStoreKey),
    engines: overrides.engines ?? ENGINE_REGISTRY,
    egress: egressPolicy(c.egressAllow),
    resolve: overrides.resolve ?? systemResolver,
    limits: {
      connectTimeoutMs: c.connectTimeoutMs,
      statementTimeoutMs: c.statementTimeoutMs,
      rowCap: c.rowCap,
      previewRows: c.previewRows,
      discoveryColumns: 5000,
    },
  };
}
