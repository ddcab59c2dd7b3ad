import type { Kafka } from 'kafkajs';
import type { PlatformDeps } from '../../platform/context-module';

/** The database URL behind the pool (knex keeps it parsed), for the bridge's advisory-lock connection. */
export function connectionUrl(deps: Pick<PlatformDeps, 'knex'>): string {
  const connection = (deps.knex.client as { config: { connection: unknown } }).config.connection;
  if (typeof connection === 'string') return connection;
  const c = connection as {
    connectionString?: string;
    user?: string;
    password?: string;
    host?: string;
    port?: string | number;
    database?: string;
  };
  if (c.connectionString) return c.connectionString;
  const auth = c.user ? `${encodeURIComponent(c.user)}${c.password ? `:${encodeURIComponent(c.password)}` : ''}@` : '';
  return `postgres://${auth}${c.host ?? '127.0.0.1'}:${c.port ?? 5432}/${encodeURIComponent(c.database ?? 'postgres')}`;
}

/** One kafkajs client per worker; kafkajs's own logging is off (pino logs what matters). */
export function kafkaClient(brokers: string[], clientId: string): Kafka {
  // kafkajs loads only where Kafka is configured, not in every process.
  const { Kafka, logLevel } = require('kafkajs') as typeof import('kafkajs');
  return new Kafka({ clientId, brokers, logLevel: logLevel.NOTHING, retry: { retries: 3 } });
}
