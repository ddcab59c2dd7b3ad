import os from 'node:os';
import path from 'node:path';
import { appendFileSync, promises as fs } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { Session } from 'node:inspector';
import { Client } from 'pg';
import pino from 'pino';
import { AuditSigner } from '../../src/platform/eventstore/audit-signature';
import { createPostgresEventStore } from '../../src/platform/eventstore/postgres/postgres-event-store';
import type { EventStore } from '../../src/platform/eventstore/types';
import { connectDatabase, type Database } from '../../src/platform/infra/database';
import { startEmbeddedPostgres } from '../../src/platform/infra/embedded-postgres';
import { migrateToLatest } from '../../src/platform/infra/migrations';
import { createTenant } from '../../commands/identity/create-tenant';
import { registerUser } from '../../commands/identity/register-user';
import { loadConfig } from '../../src/platform/config';
import { identityDeps } from '../../commands/identity/identity-deps';
import { startPlatform } from '../../src/platform/platform';
import { contexts } from '../../src/contexts';
import { SYSTEM_USER_ID } from '../../streams/identity/system-accounts';
import { DEFAULT_TENANT_ID } from '../../streams/identity/tenant';

export interface BenchRow {
  name: string;
  value: number;
  unit: string;
  target?: string;
}

/** Where `BENCH_AUTO_EXPLAIN` leaves the embedded server's log. */
export const PLANS_LOG = path.join(os.tmpdir(), 'platform-bench-plans.log');

/**
 * A fresh migrated database for one benchmark: on DATABASE_URL's server when set, else an
 * embedded PostgreSQL with its default (durable) settings in a temporary directory.
 */
export async function benchDatabase(): Promise<{
  db: Database;
  store: EventStore;
  signer: AuditSigner;
  url: string;
  close(): Promise<void>;
}> {
  const logger = pino({ level: 'silent' });
  let adminUrl = process.env.DATABASE_URL;
  let stopServer: () => Promise<void> = async () => undefined;
  let tmp: string | null = null;
  if (!adminUrl) {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'platform-bench-'));
    // BENCH_PG_STATEMENTS=1: the server keeps pg_stat_statements (the http bench prints it per route).
    const settings: Record<string, string> =
      process.env.BENCH_PG_STATEMENTS === '1'
        ? {
            shared_preload_libraries: 'pg_stat_statements',
            'pg_stat_statements.track': 'all',
            'pg_stat_statements.track_planning': 'on',
          }
        : {};
    // BENCH_AUTO_EXPLAIN=<ms>: the plan of every statement slower than that, as the server ran
    // it (auto_explain, with actual rows and times), in the server's log at PLANS_LOG.
    const explainMs = process.env.BENCH_AUTO_EXPLAIN;
    if (explainMs)
      Object.assign(settings, {
        shared_preload_libraries: 'auto_explain',
        'auto_explain.log_min_duration': explainMs,
        'auto_explain.log_analyze': 'on',
      });
    const serverLog = explainMs
      ? pino({ level: 'trace' }, { write: (line: string) => appendFileSync(PLANS_LOG, `${JSON.parse(line).msg}\n`) })
      : logger;
    const server = await startEmbeddedPostgres({ dataDir: tmp, logger: serverLog, settings });
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
  if (process.env.BENCH_PG_STATEMENTS === '1') await db.knex.raw('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
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

/**
 * The whole platform over a fresh bench database, with the rate limit out of the way, and
 * a session for a real user of a tenant (created when it does not exist).
 */
export async function startBenchPlatform(env: Record<string, string> = {}) {
  const database = await benchDatabase();
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    INTERNAL_PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: database.url,
    AUDIT_SIGNING_KEY: 'bench-audit-signing-key-0123456789abcdef',
    JWT_SECRET: 'bench-jwt-secret-0123456789abcdef0123456789',
    SECRET_STORE_KEY: 'bench-secret-store-key-0123456789abcdef',
    BOOTSTRAP_ADMIN_EMAIL: 'admin@example.com',
    BOOTSTRAP_ADMIN_PASSWORD: 'bench-password-1',
    BCRYPT_COST: '10',
    RATE_LIMIT_PER_MINUTE: '1000000000',
    RATE_LIMIT_BURST: '1000000000',
    LOG_LEVEL: 'silent',
    // A/B knob: the bench's store with another group-commit setting.
    ...(process.env.EVENTSTORE_GROUP_COMMIT ? { EVENTSTORE_GROUP_COMMIT: process.env.EVENTSTORE_GROUP_COMMIT } : {}),
    // A/B knob: what tracing costs (spans exported to this collector, docs/operations.md#tracing).
    ...(process.env.OTEL_EXPORTER_OTLP_ENDPOINT
      ? { OTEL_EXPORTER_OTLP_ENDPOINT: process.env.OTEL_EXPORTER_OTLP_ENDPOINT }
      : {}),
    ...env,
  });
  const platform = await startPlatform({ config, contexts, logger: pino({ level: 'silent' }) });
  const deps = identityDeps(platform.deps);
  return {
    platform,
    databaseUrl: database.url,
    api: `${platform.publicUrl}/api/v1`,
    async session({
      tenantId = DEFAULT_TENANT_ID,
      roles = ['operator'],
    }: { tenantId?: string; roles?: string[] } = {}) {
      if (tenantId !== DEFAULT_TENANT_ID)
        await createTenant(deps.handle, { tenantId, name: 'Bench operator' }, { actorId: SYSTEM_USER_ID });
      const email = `bench-${randomBytes(4).toString('hex')}@example.com`;
      const { userId } = await registerUser(
        deps,
        { tenantId, email, roles: roles as never },
        { actorId: SYSTEM_USER_ID },
      );
      const { token } = await deps.tokens.issue(
        { userId, email, roles: roles as never, tenantId, tokenVersion: 0 },
        new Date(),
      );
      return {
        userId,
        tenantId,
        token,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      };
    },
    async close() {
      await platform.stop();
      await database.close();
    },
  };
}

const TICKS_PER_SECOND = 100;

/**
 * CPU seconds the PostgreSQL server has used so far: the postmaster with the backends it has
 * reaped (cutime/cstime) and the ones still running. Null when the server is not on this
 * machine's /proc (DATABASE_URL elsewhere) or cannot be read.
 */
export async function postgresCpuSeconds(databaseUrl: string): Promise<number | null> {
  try {
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    const { rows } = await client.query<{ dir: string }>(`SELECT current_setting('data_directory') AS dir`);
    await client.end();
    const postmaster = Number((await fs.readFile(path.join(rows[0].dir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
    const fields = async (pid: string | number) =>
      (await fs.readFile(`/proc/${pid}/stat`, 'utf8')).replace(/^.*\) /, '').split(' ');
    const own = await fields(postmaster);
    // Fields after the command: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14).
    let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
    for (const pid of await fs.readdir('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      const f = await fields(pid).catch(() => null);
      if (f && Number(f[1]) === postmaster) ticks += Number(f[11]) + Number(f[12]);
    }
    return ticks / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/**
 * With BENCH_PG_STATEMENTS=1: the server's time by statement since the last call (the
 * statements of every database on it, top 15 by execution plus planning time), then a reset.
 */
export async function serverStatements(databaseUrl: string): Promise<string> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ calls: string; total: number; plan: number; query: string }>(
      `SELECT calls::text, total_exec_time AS total, total_plan_time AS plan, regexp_replace(query, '\\s+', ' ', 'g') AS query
         FROM pg_stat_statements ORDER BY total_exec_time + total_plan_time DESC LIMIT 15`,
    );
    await client.query('SELECT pg_stat_statements_reset()');
    return rows
      .map(
        (r) =>
          `${r.calls.padStart(7)} ${r.total.toFixed(0).padStart(6)} ms run ${r.plan.toFixed(0).padStart(6)} ms plan  ${r.query.slice(0, 100)}`,
      )
      .join('\n');
  } finally {
    await client.end();
  }
}

/** CPU seconds of this process (the platform runs in it) and of PostgreSQL while `work` runs. */
export async function withCpu<T>(
  databaseUrl: string,
  work: () => Promise<T>,
): Promise<{ result: T; processCpu: number; postgresCpu: number | null }> {
  const pgBefore = await postgresCpuSeconds(databaseUrl);
  const before = process.cpuUsage();
  const result = await work();
  const used = process.cpuUsage(before);
  const pgAfter = await postgresCpuSeconds(databaseUrl);
  return {
    result,
    processCpu: (used.user + used.system) / 1e6,
    postgresCpu: pgBefore === null || pgAfter === null ? null : pgAfter - pgBefore,
  };
}

/**
 * `BENCH_CPU_PROF=<file.cpuprofile>`: a CPU profile of the platform (in this process) while
 * a bench's measured step runs, for `ops/bench/cpu-profile.ts`.
 */
export async function profiled(file: string | undefined): Promise<{ stop(): Promise<void> }> {
  if (!file) return { stop: async () => {} };
  const session = new Session();
  session.connect();
  const inspect = (method: string) =>
    new Promise<any>((resolve, reject) =>
      session.post(method, {}, (error, result) => (error ? reject(error) : resolve(result))),
    );
  await inspect('Profiler.enable');
  await inspect('Profiler.start');
  return {
    async stop() {
      const { profile } = await inspect('Profiler.stop');
      await fs.writeFile(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}
