import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { readLogLines } from '../../support/log-lines';

/**
 * The real `ops start` on embedded defaults: a cluster under DATA_DIR on a free port,
 * healthy once ready, a clean exit on SIGTERM, and data kept across a restart.
 */
interface Started {
  child: ChildProcess;
  publicUrl: string;
  lines: Array<Record<string, unknown>>;
  exited: Promise<number | null>;
  /** /health as first seen right after the listener came up, before the platform was ready. */
  healthWhileStarting: Promise<number>;
}

const tsx = path.resolve('node_modules/.bin/tsx');

function start(dataDir: string): Promise<Started> {
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: '0',
    INTERNAL_PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    NODE_ENV: 'development',
    BCRYPT_COST: '10',
  };
  for (const name of ['DATABASE_URL', 'TEST_DATABASE_URL', 'REDIS_URL']) delete (env as Record<string, unknown>)[name];
  const child = spawn(tsx, ['ops/cli.ts', 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Array<Record<string, unknown>> = [];
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let reportHealth: (status: number) => void = () => undefined;
  const healthWhileStarting = new Promise<number>((resolve) => (reportHealth = resolve));
  return new Promise((resolve, reject) => {
    readLogLines(child.stdout!, (entry) => {
      lines.push(entry);
      if (entry.msg === 'listening')
        void fetch(`http://127.0.0.1:${entry.publicPort}/health`).then((r) => reportHealth(r.status));
      if (entry.msg === 'platform started')
        resolve({ child, publicUrl: String(entry.public), lines, exited, healthWhileStarting });
    });
    void exited.then((code) => reject(new Error(`ops start exited with ${code} before it was ready`)));
  });
}

async function stop(started: Started): Promise<number | null> {
  started.child.kill('SIGTERM');
  return started.exited;
}

describe('npm start lifecycle on embedded defaults', function () {
  this.timeout(120_000);
  let dataDir: string;

  before(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'platform-lifecycle-'));
  });
  after(() => fs.rm(dataDir, { recursive: true, force: true }));

  it('starts a cluster under DATA_DIR, answers /health 503 then 200, exits cleanly on SIGTERM and keeps data across a restart', async () => {
    const first = await start(dataDir);
    // The listener comes up first; the new cluster's initdb and migrations follow.
    expect(await first.healthWhileStarting).to.equal(503);
    const port = Number(await fs.readFile(path.join(dataDir, 'postgres.port'), 'utf8'));
    expect(port).to.be.a('number').and.not.equal(5432);
    const health = await fetch(`${first.publicUrl}/health`);
    expect(health.status).to.equal(200);
    expect(await health.json()).to.include({ status: 'ok' });
    const login = await fetch(`${first.publicUrl}/api/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password: 'change-me-now' }),
    });
    expect(login.status).to.equal(200);
    const adminId = ((await login.json()) as { user_id: string }).user_id;

    expect(await stop(first)).to.equal(0);
    expect(first.lines.some((l) => l.msg === 'stopped')).to.equal(true);
    expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid')), 'the cluster is shut down').to.equal(false);

    const second = await start(dataDir);
    try {
      const again = await fetch(`${second.publicUrl}/api/v1/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'admin@example.com', password: 'change-me-now' }),
      });
      expect(((await again.json()) as { user_id: string }).user_id, 'the same administrator, not a new one').to.equal(
        adminId,
      );
    } finally {
      expect(await stop(second)).to.equal(0);
    }
  });
});
