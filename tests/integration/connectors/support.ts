import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { Client } from 'pg';
import pino from 'pino';
import { loadConfig } from '../../../src/config';
import { startPlatform } from '../../../src/platform';
import { createTestDatabase } from '../../support/database';
import { httpClient } from '../../support/http';
import type { TestPlatform } from '../../support/platform';
import { TEST_JWT_SECRET, TEST_SECRET_STORE_KEY, TEST_SIGNING_KEY } from '../../support/secrets';

/**
 * The real platform with every log line kept (to prove no secret is ever logged), and a
 * source database on the machine's PostgreSQL with a read-only and a read-write role.
 */
export async function startCapturingPlatform(env: Record<string, string>): Promise<TestPlatform & { logs: string[] }> {
  const { url } = await createTestDatabase();
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    INTERNAL_PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: url,
    AUDIT_SIGNING_KEY: TEST_SIGNING_KEY,
    JWT_SECRET: TEST_JWT_SECRET,
    BOOTSTRAP_ADMIN_EMAIL: 'admin@example.com',
    BOOTSTRAP_ADMIN_PASSWORD: 'bootstrap-password-1',
    SECRET_STORE_KEY: TEST_SECRET_STORE_KEY,
    BCRYPT_COST: '10',
    LOG_LEVEL: 'trace',
    ...env,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const platform = await startPlatform({ config, logger: pino({ level: 'trace' }, sink) });
  return {
    platform,
    deps: platform.deps,
    api: httpClient(`${platform.publicUrl}/api/v1`),
    internal: httpClient(`${platform.internalUrl}/api/v1`),
    publicUrl: platform.publicUrl!,
    internalUrl: platform.internalUrl,
    close: () => platform.stop(),
    logs,
  };
}

export interface SourceDatabase {
  host: string;
  port: number;
  database: string;
  readOnly: { username: string; password: string };
  readWrite: { username: string; password: string };
  admin(sql: string): Promise<void>;
  drop(): Promise<void>;
}

/** A fresh database holding `src.wells` and `src.big`, and two login roles made for this test. */
export async function createSourceDatabase(): Promise<SourceDatabase> {
  const { url, name } = await createTestDatabase();
  const parsed = new URL(url);
  const suffix = randomBytes(4).toString('hex');
  const readOnly = { username: `conn_ro_${suffix}`, password: `ro-${randomBytes(12).toString('hex')}` };
  const readWrite = { username: `conn_rw_${suffix}`, password: `rw-${randomBytes(12).toString('hex')}` };
  const run = async (sql: string) => {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await run(`
    create schema src;
    create table src.wells (api text primary key, name text not null, operator_id int not null, spud_date date, depth_ft numeric);
    insert into src.wells select '42-' || lpad(i::text, 6, '0'), 'Well ' || i, i % 5, date '2020-01-01' + i, 1000 + i from generate_series(1, 300) i;
    create table src.big (n int);
    insert into src.big select generate_series(1, 2000);
    create sequence src.counter;
    create role ${readOnly.username} login password '${readOnly.password}';
    create role ${readWrite.username} login password '${readWrite.password}';
    grant connect on database ${name} to ${readOnly.username}, ${readWrite.username};
    grant usage on schema src to ${readOnly.username}, ${readWrite.username};
    grant select on all tables in schema src to ${readOnly.username}, ${readWrite.username};
    grant insert, update on src.wells to ${readWrite.username};
    grant usage, update on sequence src.counter to ${readWrite.username};
  `);
  return {
    host: '127.0.0.1',
    port: Number(parsed.port || 5432),
    database: name,
    readOnly,
    readWrite,
    admin: run,
    async drop() {
      await run(`drop owned by ${readOnly.username}, ${readWrite.username}; drop role ${readOnly.username}; drop role ${readWrite.username};`).catch(() => undefined);
    },
  };
}
