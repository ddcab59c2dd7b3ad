import { zodToJsonSchema } from 'zod-to-json-schema';
import type { EngineKey } from '../../../streams/connectors/connector';
import type { ConnectorEngine } from './engine';
import { postgresqlEngine } from './postgresql';
import { snowflakeEngine } from './snowflake';

export const ENGINE_REGISTRY: Record<EngineKey, ConnectorEngine> = {
  postgresql: postgresqlEngine,
  snowflake: snowflakeEngine,
};

/** GET /connectors/engines: one entry per engine, the config schema as JSON Schema. */
export function engineListing() {
  return Object.values(ENGINE_REGISTRY).map((engine) => ({
    key: engine.key,
    title: engine.title,
    capabilities: engine.capabilities,
    config_schema: zodToJsonSchema(engine.configSchema, { target: 'jsonSchema7', $refStrategy: 'none' }),
    credential_fields: [...engine.credentialFields].sort(),
  }));
}
