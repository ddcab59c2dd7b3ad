import type { Logger } from 'pino';
import type { Config } from '../config';
import { AuditSigner } from '../eventstore/audit-signature';
import { createPostgresEventStore } from '../eventstore/postgres/postgres-event-store';
import type { EventStore } from '../eventstore/types';
import { connectDatabase, type Database } from './database';
import { leastPrivilegeUrl } from './database-roles';
import { type EmbeddedServer, startEmbeddedPostgres } from './embedded-postgres';
import { migrateToLatest } from './migrations';
import { traceAppends } from '../observability/traced-store';

/** Database (embedded unless DATABASE_URL), migrations and the configured event store. */
export interface Infrastructure {
  db: Database;
  store: EventStore;
  signer: AuditSigner;
  close(): Promise<void>;
}

export async function openInfrastructure(
  config: Config,
  logger: Logger,
  { migrate = true } = {},
): Promise<Infrastructure> {
  let embedded: EmbeddedServer | null = null;
  let db: Database | null = null;
  try {
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, logger });
      databaseUrl = embedded.url('postgres');
    }
    // Migrations run on the configured connection; the platform then runs as its own
    // least-privileged role when that connection is a superuser (src/platform/infra/database-roles.ts).
    const admin = connectDatabase(databaseUrl, { poolSize: 1, logger });
    try {
      if (migrate) {
        const applied = await migrateToLatest(admin.knex);
        if (applied.length) logger.info({ applied }, 'migrations applied');
      }
      databaseUrl = await leastPrivilegeUrl(admin.knex, databaseUrl, {
        role: config.database.appRole,
        secret: config.secretStoreKey,
        logger,
      });
    } finally {
      await admin.close();
    }
    db = connectDatabase(databaseUrl, { prepare: config.database.preparedStatements, logger });
    const signer = new AuditSigner(config.auditSigningKey);
    const log =
      config.eventStore.kind === 'esdb'
        ? // The EventStoreDB client (gRPC) loads only when it is the configured store.
          (
            require('../eventstore/esdb/esdb-event-store') as typeof import('../eventstore/esdb/esdb-event-store')
          ).createEsdbEventStore({ url: config.eventStore.url, signer })
        : createPostgresEventStore({
            pool: db.pool,
            signer,
            groupCommit: { maxGroups: config.eventStore.groupCommit },
          });
    const store = config.tracing ? traceAppends(log) : log;
    const opened = db;
    return {
      db: opened,
      store,
      signer,
      async close() {
        await store.close();
        await opened.close();
        await embedded?.stop();
      },
    };
  } catch (error) {
    await db?.close();
    await embedded?.stop();
    throw error;
  }
}
