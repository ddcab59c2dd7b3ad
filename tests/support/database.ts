import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { promises as fs } from 'node:fs';
import { Client } from 'pg';
import pino from 'pino';
import { connectDatabase, type Database } from '../../src/platform/infra/database';
import { type EmbeddedServer, startEmbeddedPostgres } from '../../src/platform/infra/embedded-postgres';
import { migrateToLatest } from '../../src/platform/infra/migrations';

/**
 * One server per test run: the one named by TEST_DATABASE_URL / DATABASE_URL, else an
 * embedded PostgreSQL in a temporary directory. The platform schema is migrated once into
 * a template database; each test file gets its own copy (fast and isolated).
 */
let server: Promise<{ adminUrl: string; embedded?: EmbeddedServer; tmpDir?: string }> | null = null;
let template: Promise<string> | null = null;
const created: string[] = [];

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function startServer() {
  const external = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL;
  if (external) return { adminUrl: external };
  const tmpDir = await fs.mkdtemp(path.join(os.tmpdir(), 'platform-test-'));
  const embedded = await startEmbeddedPostgres({
    dataDir: tmpDir,
    logger: pino({ level: 'silent' }),
    // A throwaway cluster: durability settings only cost time here.
    settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', max_connections: '300' },
  });
  return { adminUrl: embedded.url('postgres'), embedded, tmpDir };
}

async function admin<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const { adminUrl } = await (server ??= startServer());
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function buildTemplate(): Promise<string> {
  const name = `platform_template_${randomBytes(4).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  created.push(name);
  const { adminUrl } = await server!;
  const db = connectDatabase(withDatabase(adminUrl, name), { poolSize: 2 });
  try {
    await migrateToLatest(db.knex);
  } finally {
    await db.close();
  }
  return name;
}

/** A fresh, migrated database of its own. */
export async function createTestDatabase(): Promise<{ url: string; name: string }> {
  const source = await (template ??= buildTemplate());
  const name = `platform_test_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${source}`));
  created.push(name);
  const { adminUrl } = await server!;
  return { url: withDatabase(adminUrl, name), name };
}

/** A fresh database with nothing in it, not even the platform's tables (migration tests). */
export async function createEmptyDatabase(): Promise<{ url: string; name: string }> {
  const name = `platform_empty_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  created.push(name);
  const { adminUrl } = await server!;
  return { url: withDatabase(adminUrl, name), name };
}

export async function connectTestDatabase(poolSize = 10): Promise<Database> {
  const { url } = await createTestDatabase();
  return connectDatabase(url, { poolSize });
}

export async function stopTestServer(): Promise<void> {
  if (!server) return;
  const { embedded, tmpDir } = await server;
  if (!embedded) {
    // A shared server: leave it as found.
    await admin(async (c) => {
      for (const name of created.reverse())
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    });
  } else {
    await embedded.stop();
    if (tmpDir) await fs.rm(tmpDir, { recursive: true, force: true });
  }
  server = null;
  template = null;
}

/**
 * The database behind `url`, connected as the test server's superuser rather than the
 * platform's least-privileged role: for tests playing "someone with database access"
 * (tampering with `events`, which the platform role cannot do).
 */
export async function superuserConnection(url: string): Promise<Database> {
  const { adminUrl } = await (server ??= startServer());
  return connectDatabase(withDatabase(adminUrl, new URL(url).pathname.slice(1)), { poolSize: 1 });
}
