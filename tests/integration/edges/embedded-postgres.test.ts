import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { Client } from 'pg';
import pino from 'pino';
import {
  accountCan,
  reachableBinaries,
  serverAccount,
  startEmbeddedPostgres,
} from '../../../src/platform/infra/embedded-postgres';
import { readLogLines } from '../../support/log-lines';

/**
 * The embedded default starts wherever a newcomer clones the project (as root from a
 * root-only folder too), fails fast with one readable line where it cannot, and a server
 * left running by a crashed platform is adopted and stopped by the next clean exit.
 */
const logger = pino({ level: 'silent' });
const asRoot = process.getuid?.() === 0;
const tsx = path.resolve('node_modules/.bin/tsx');

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = require('node:fs').readFileSync(`/proc/${pid}/stat`, 'utf8') as string;
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

describe('embedded PostgreSQL starts anywhere', function () {
  this.timeout(180_000);
  const cleanup: string[] = [];
  after(async () => {
    for (const dir of cleanup) await fs.rm(dir, { recursive: true, force: true });
  });

  it('as root, from a DATA_DIR inside a root-only folder: the cluster is placed where postgres can reach it and keeps data across restarts', async function () {
    if (!asRoot) this.skip();
    const home = await fs.mkdtemp(path.join(os.tmpdir(), 'root-only-'));
    cleanup.push(home);
    expect((await fs.stat(home)).mode & 0o777).to.equal(0o700);
    const dataDir = path.join(home, 'checkout', '.data');
    const first = await startEmbeddedPostgres({ dataDir, logger, settings: { fsync: 'off' } });
    const location = (await fs.readFile(path.join(dataDir, 'postgres.location'), 'utf8')).trim();
    cleanup.push(location);
    try {
      await query(first.url(), 'CREATE TABLE kept (v int); INSERT INTO kept VALUES (42)');
      const [who] = await query<{ current_user: string }>(first.url(), 'SELECT current_user');
      expect(who.current_user).to.equal('postgres');
    } finally {
      await first.stop();
    }
    expect(location.startsWith(home), 'the cluster lives outside the root-only folder').to.equal(false);
    const second = await startEmbeddedPostgres({ dataDir, logger, settings: { fsync: 'off' } });
    try {
      expect(await query(second.url(), 'SELECT v FROM kept')).to.deep.equal([{ v: 42 }]);
    } finally {
      await second.stop();
    }
  });

  it('as root, binaries under a root-only folder are copied once to a place the postgres user can execute', async function () {
    if (!asRoot) this.skip();
    const account = (await serverAccount())!;
    const hidden = await fs.mkdtemp(path.join(os.tmpdir(), 'root-only-bin-'));
    const cache = await fs.mkdtemp(path.join(os.tmpdir(), 'bin-cache-'));
    cleanup.push(hidden, cache);
    await fs.chmod(cache, 0o755);
    const native = path.join(hidden, 'native');
    await fs.mkdir(path.join(native, 'bin'), { recursive: true });
    await fs.mkdir(path.join(native, 'share'));
    await fs.writeFile(path.join(native, 'bin', 'postgres'), '#!/bin/sh\necho fake\n', { mode: 0o755 });
    expect(await accountCan(account, '-x', path.join(native, 'bin', 'postgres'))).to.equal(false);

    const usable = await reachableBinaries(account, { native, version: 'test' }, logger, cache);
    expect(usable).to.not.equal(native);
    expect(usable.startsWith(cache)).to.equal(true);
    expect(await accountCan(account, '-x', path.join(usable, 'bin', 'postgres'))).to.equal(true);
    const again = await reachableBinaries(account, { native, version: 'test' }, logger, cache);
    expect(again).to.equal(usable);
  });

  it('where it cannot start, `npm start` fails within seconds with one readable line naming the cause and DATABASE_URL, no stack trace', async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: '/etc/hostname/data',
      PORT: '0',
      INTERNAL_PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      NODE_ENV: 'development',
    };
    for (const name of ['DATABASE_URL', 'TEST_DATABASE_URL', 'REDIS_URL']) delete env[name];
    const started = Date.now();
    const child = spawn(tsx, ['ops/cli.ts', 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c) => (stdout += String(c)));
    child.stderr!.on('data', (c) => (stderr += String(c)));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).to.equal(1);
    expect(Date.now() - started).to.be.below(30_000);
    const lines = stderr.trim().split('\n');
    expect(lines, stderr).to.have.length(1);
    expect(lines[0]).to.match(
      /embedded PostgreSQL could not start: DATA_DIR \/etc\/hostname\/data cannot be created \(ENOTDIR\).*DATABASE_URL=/,
    );
    expect(stdout + stderr).to.not.match(/\n\s+at /);
  });

  describe('a server left running after a crash', () => {
    interface Started {
      child: ChildProcess;
      lines: Array<Record<string, unknown>>;
      exited: Promise<number | null>;
    }
    function start(dataDir: string): Promise<Started> {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        DATA_DIR: dataDir,
        PORT: '0',
        INTERNAL_PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        NODE_ENV: 'development',
        BCRYPT_COST: '10',
      };
      for (const name of ['DATABASE_URL', 'TEST_DATABASE_URL', 'REDIS_URL']) delete env[name];
      const child = spawn(tsx, ['ops/cli.ts', 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      const lines: Array<Record<string, unknown>> = [];
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      return new Promise((resolve, reject) => {
        readLogLines(child.stdout!, (entry) => {
          lines.push(entry);
          if (entry.msg === 'platform started') resolve({ child, lines, exited });
        });
        void exited.then((code) => reject(new Error(`ops start exited with ${code} before it was ready`)));
      });
    }

    it('is adopted by the next start and stopped by its clean exit', async () => {
      const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'platform-crash-'));
      cleanup.push(dataDir);
      const crashed = await start(dataDir);
      const postmaster = Number(
        (await fs.readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0],
      );
      // The platform process itself (tsx runs it as a child of its own), killed the way an
      // out-of-memory kill or kill -9 would: no clean-up code runs.
      const platformPid = Number(await fs.readFile(path.join(dataDir, 'postgres.owner'), 'utf8'));
      process.kill(platformPid, 'SIGKILL');
      await crashed.exited;
      expect(alive(postmaster), 'the server outlives the killed platform').to.equal(true);

      const next = await start(dataDir);
      expect(next.lines.some((l) => String(l.msg).startsWith('adopted the embedded PostgreSQL'))).to.equal(true);
      next.child.kill('SIGTERM');
      expect(await next.exited).to.equal(0);
      const deadline = Date.now() + 10_000;
      while (alive(postmaster) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(alive(postmaster), 'the adopted server stopped with the platform').to.equal(false);
      expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).to.equal(false);
    });
  });
});
