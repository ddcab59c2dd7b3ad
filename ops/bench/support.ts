import os from 'node:os';
import path from 'node:path';
import { promises as fs } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import pino from 'pino';
import { AuditSigner } from '../../src/eventstore/audit-signature';
import { createPostgresEventStore } from '../../src/eventstore/postgres/postgres-event-store';
import type { EventStore } from '../../src/eventstore/types';
import { connectDatabase, Database } from '../../src/infra/database';
import { startEmbeddedPostgres } from '../../src/infra/embedded-postgres';
import { migrateToLatest } from '../../src/infra/migrations';

export interface BenchRow {
  name: string;
  value: number;
  unit: string;
  target?: string;
}

/**
 * A fresh migrated database for one benchmark: on DATABASE_URL's server when set, else an
 * embedded PostgreSQL with its default (durable) settings in a temporary directory.
 */
export async function benchDatabase(): Promise<{ db: Database; store: EventStore; signer: AuditSigner; url: string; close(): Promise<void> }> {
  const logger = pino({ level: 'silent' });
  let adminUrl = process.env.DATABASE_URL;
  let stopServer: () => Promise<void> = async () => undefined;
  let tmp: string | null = null;
  if (!adminUrl) {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'platform-bench-'));
    const server = await startEmbeddedPostgres({ dataDir: tmp, logger });
    adminUrl = server.url('postgres');
    stopServer = server.stop;
  }
  const name = `platform_bench_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = connectDatabase(url.toString(), { poolSize: 16 });
  await migrateToLatest(db.knex);
  const signer = new AuditSigner('bench-audit-signing-key-0123456789abcdef');
  const store = createPostgresEventStore({ pool: db.pool, signer });
  return {
    db,
    store,
    signer,
    url: url.toString(),
    async close() {
      await store.close();
      await db.close();
      const cleanup = new Client({ connectionString: adminUrl });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
      await stopServer();
      if (tmp) await fs.rm(tmp, { recursive: true, force: true });
    },
  };
}

export function perSecond(count: number, startedNs: bigint): number {
  const seconds = Number(process.hrtime.bigint() - startedNs) / 1e9;
  return Math.round(count / seconds);
}
