import { randomBytes, randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import knexFactory from 'knex';
import { Client } from 'pg';
import pino from 'pino';
import { loadConfig } from '../../src/platform/config';
import { startEmbeddedPostgres } from '../../src/platform/infra/embedded-postgres';
import { openInfrastructure } from '../../src/platform/infra/infrastructure';
import { startRelay, type Relay } from '../../tests/support/tcp-relay';
import {
  createInstance,
  health,
  killInstance,
  leaderIndex,
  sleep,
  startInstance,
  stopInstance,
  type Instance,
} from './instances';
import { compareWithRebuild, openDeadLetters, readModelChecksums } from './read-models';
import { faultSchedule, type Fault } from './schedule';
import { signIn, startWorkload, verifyWrites } from './workload';

/**
 * `npm run chaos -- --seconds N [--seed S]`: two platform instances on one PostgreSQL, each
 * through a TCP relay, under a mixed workload and a seeded schedule of faults; then the
 * invariants. See docs/chaos.md.
 */
const ADMIN = { email: 'chaos-admin@example.com', password: 'chaos-password-1' };

async function database(): Promise<{ url: string; close(): Promise<void> }> {
  let adminUrl = process.env.DATABASE_URL;
  let stopServer = async () => undefined as void;
  let tmp: string | null = null;
  if (!adminUrl) {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'platform-chaos-pg-'));
    const server = await startEmbeddedPostgres({ dataDir: tmp, logger: pino({ level: 'silent' }) });
    adminUrl = server.url('postgres');
    stopServer = server.stop;
  }
  const name = `platform_chaos_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async close() {
      const cleanup = new Client({ connectionString: adminUrl });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
      await stopServer();
      if (tmp) rmSync(tmp, { recursive: true, force: true });
    },
  };
}

function platformEnv(databaseUrl: string, dataDir: string): Record<string, string> {
  return {
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    AUDIT_SIGNING_KEY: 'chaos-audit-signing-key-0123456789abcdef',
    JWT_SECRET: 'chaos-jwt-secret-0123456789abcdef0123456789',
    SECRET_STORE_KEY: 'chaos-secret-store-key-0123456789abcdef',
    BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
    BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
    BCRYPT_COST: '10',
    RATE_LIMIT_PER_MINUTE: '1000000000',
    RATE_LIMIT_BURST: '1000000000',
    LOG_LEVEL: 'info',
  };
}

export async function runChaos(options: { seconds: number; seed: number; log: (line: string) => void }) {
  const { seconds, seed, log } = options;
  const schedule = faultSchedule(seed, seconds);
  log(
    `chaos: seed ${seed}, ${seconds} s, ${schedule.length} faults planned (replay: npm run chaos -- --seconds ${seconds} --seed ${seed})`,
  );
  const work = mkdtempSync(path.join(os.tmpdir(), 'platform-chaos-'));
  const db = await database();
  const target = new URL(db.url);
  const relays: Relay[] = [];
  const instances: Instance[] = [];
  const problems: string[] = [];
  let faults = 0;
  try {
    // Migrated once, directly: two instances migrating at once is not a fault under test.
    const direct = platformEnv(db.url, path.join(work, 'ops'));
    await (await openInfrastructure(loadConfig(direct), pino({ level: 'silent' }))).close();
    for (const index of [0, 1]) {
      const relay = await startRelay({ targetHost: target.hostname, targetPort: Number(target.port || 5432) });
      relays.push(relay);
      const instance = await createInstance(index, work);
      instances.push(instance);
    }
    const envOf = (i: number) => platformEnv(relays[i].url(db.url), path.join(work, `data-${i}`));
    for (const instance of instances) await startInstance(instance, envOf(instance.index));
    const session = await signIn(instances[0], ADMIN.email, ADMIN.password);
    const workload = await startWorkload(instances, session, seed);

    const started = Date.now();
    let lastFaultEnd = started;
    const pending: Promise<void>[] = [];
    const apply = async (fault: Fault) => {
      faults++;
      if (fault.kind === 'terminate-backends') {
        const admin = new Client({ connectionString: db.url });
        await admin.connect();
        await admin.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
        );
        await admin.end();
        lastFaultEnd = Date.now();
      } else if (fault.kind === 'drop-connections') {
        relays[fault.instance].dropAll(fault.mode);
        lastFaultEnd = Date.now();
      } else if (fault.kind === 'outage') {
        const hit = fault.instance === 'both' ? relays : [relays[fault.instance]];
        pending.push(Promise.all(hit.map((r) => r.outage(fault.ms))).then(() => void (lastFaultEnd = Date.now())));
      } else {
        const leader = (await leaderIndex(instances)) ?? instances.find((i) => i.child)?.index ?? 0;
        killInstance(instances[leader]);
        pending.push(
          sleep(fault.restartAfterMs)
            .then(() => startInstance(instances[leader], envOf(leader)))
            .then(() => void (lastFaultEnd = Date.now()))
            .catch((error: Error) => void problems.push(`restarting instance ${leader} failed: ${error.message}`)),
        );
      }
      log(`  ${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s  ${describe(fault)}`);
    };
    for (const fault of schedule) {
      await sleep(Math.max(0, started + fault.at - Date.now()));
      await apply(fault).catch((error: Error) =>
        problems.push(`fault ${fault.kind} could not be applied: ${error.message}`),
      );
    }
    await sleep(Math.max(0, started + seconds * 1000 - Date.now()));
    await Promise.all(pending);
    await workload.stop();

    // Health: ok on both instances within 30 s of the last fault.
    const healthDeadline = lastFaultEnd + 30_000;
    const healthy = async () =>
      (await Promise.all(instances.map(health))).every((h) => h.status === 200 && h.body?.status === 'ok');
    while (!(await healthy()) && Date.now() < healthDeadline) await sleep(500);
    if (!(await healthy())) {
      const states = await Promise.all(instances.map(health));
      problems.push(
        `/health not ok within 30 s of the last fault: ${states.map((h) => `${h.status} ${JSON.stringify(h.body)}`).join(' | ')}`,
      );
    }

    const lost = await verifyWrites(instances, session, workload.acknowledged);
    for (const write of lost.slice(0, 10)) problems.push(`lost: ${write.what} (${write.check})`);

    const knex = knexFactory({ client: 'pg', connection: db.url, pool: { min: 0, max: 2 } });
    try {
      const dead = await openDeadLetters(knex);
      for (const letter of dead.slice(0, 10))
        problems.push(`dead letter in ${letter.projector} for ${letter.event_type}: ${letter.error}`);
      for (const instance of instances) await stopInstance(instance);
      for (const instance of instances) problems.push(...instance.unexpectedExits);
      const before = await readModelChecksums(knex);
      const { tables, differing } = await compareWithRebuild(direct, before);
      for (const table of differing) problems.push(`read model differs from its rebuild: ${table}`);
      const equal = differing.length === 0;
      log(
        `  ${workload.attempted} requests, ${workload.failed} refused or cut under faults, ${workload.streamedTurns} streamed turns, ${tables} read-model tables compared`,
      );
      for (const problem of problems) log(`  problem: ${problem}`);
      log(
        `chaos: ${faults} faults, ${workload.acknowledged.length} acknowledged writes, ${lost.length} lost, read models equal to rebuild: ${equal ? 'yes' : 'no'}`,
      );
      return { ok: problems.length === 0, problems, logs: work };
    } finally {
      await knex.destroy();
    }
  } finally {
    for (const instance of instances) killInstance(instance);
    for (const relay of relays) await relay.close().catch(() => undefined);
    await db.close().catch(() => undefined);
    if (problems.length === 0) rmSync(work, { recursive: true, force: true });
    else log(`  instance logs kept in ${work}`);
  }
}

function describe(fault: Fault): string {
  switch (fault.kind) {
    case 'terminate-backends':
      return 'terminated every backend of the database';
    case 'drop-connections':
      return `dropped instance ${fault.instance}'s connections (${fault.mode === 'reset' ? 'TCP reset' : 'clean close'})`;
    case 'outage':
      return `network outage of ${(fault.ms / 1000).toFixed(1)} s for ${fault.instance === 'both' ? 'both instances' : `instance ${fault.instance}`}`;
    case 'kill-leader':
      return `kill -9 of the leader, restarted after ${(fault.restartAfterMs / 1000).toFixed(1)} s`;
  }
}

if (require.main === module) {
  const program = new Command()
    .name('chaos')
    .option('--seconds <n>', 'how long faults are injected', '90')
    .option('--seed <n>', 'the fault schedule and workload seed (printed, to replay a run)')
    .parse();
  const opts = program.opts<{ seconds: string; seed?: string }>();
  const seed = opts.seed !== undefined ? Number(opts.seed) : randomInt(0, 2 ** 31);
  runChaos({ seconds: Number(opts.seconds), seed, log: (line) => console.log(line) }).then(
    (result) => process.exit(result.ok ? 0 : 1),
    (error: Error) => {
      console.error(error);
      console.log('chaos: 0 faults, 0 acknowledged writes, 0 lost, read models equal to rebuild: no');
      process.exit(1);
    },
  );
}
