import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { Client } from 'pg';
import pino from 'pino';
import { createTestDatabase } from '../../support/database';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

/**
 * The real platform with every log line kept (to prove no secret is ever logged), and a
 * source database on the machine's PostgreSQL with a read-only and a read-write role.
 */
export async function startCapturingPlatform(env: Record<string, string>): Promise<TestPlatform & { logs: string[] }> {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const t = await startTestPlatform({ env: { LOG_LEVEL: 'trace', ...env }, logger: pino({ level: 'trace' }, sink) });
  return { ...t, logs };
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
      await run(
        `drop owned by ${readOnly.username}, ${readWrite.username}; drop role ${readOnly.username}; drop role ${readWrite.username};`,
      ).catch(() => undefined);
    },
  };
}
