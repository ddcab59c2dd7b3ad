import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/** A platform process started as `npm start` starts it, on a database URL of its own. */
export interface Instance {
  index: number;
  publicUrl: string;
  internalUrl: string;
  logFile: string;
  child: ChildProcess | null;
  /** Exits the run did not cause: any is a failure of the suite's invariants. */
  unexpectedExits: string[];
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function createInstance(index: number, logDir: string): Promise<Instance> {
  const [port, internal] = [await freePort(), await freePort()];
  return {
    index,
    publicUrl: `http://127.0.0.1:${port}`,
    internalUrl: `http://127.0.0.1:${internal}`,
    logFile: path.join(logDir, `instance-${index}.log`),
    child: null,
    unexpectedExits: [],
  };
}

/** Starts the process (again, after a kill) and resolves once `/health` answers 200. */
export async function startInstance(
  instance: Instance,
  env: Record<string, string>,
  timeoutMs = 90_000,
): Promise<void> {
  const log = createWriteStream(instance.logFile, { flags: 'a' });
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'ops/cli.ts'), 'start'], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...env,
      PORT: new URL(instance.publicUrl).port,
      INTERNAL_PORT: new URL(instance.internalUrl).port,
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.pipe(log, { end: false });
  child.stderr!.pipe(log, { end: false });
  instance.child = child;
  child.once('exit', (code, signal) => {
    log.end();
    // A kill the run made clears `child` first; any other exit is the platform dying by itself.
    if (instance.child === child) {
      instance.unexpectedExits.push(
        `instance ${instance.index} exited (code ${code}, signal ${signal}); see ${instance.logFile}`,
      );
      instance.child = null;
    }
  });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (instance.child !== child)
      throw new Error(`instance ${instance.index} died while starting; see ${instance.logFile}`);
    const status = await fetch(`${instance.publicUrl}/health`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    await sleep(250);
  }
  throw new Error(`instance ${instance.index} was not ready in ${timeoutMs / 1000} s; see ${instance.logFile}`);
}

/** kill -9: no shutdown hook runs, connections are left for the server to notice. */
export function killInstance(instance: Instance): void {
  const child = instance.child;
  instance.child = null;
  child?.kill('SIGKILL');
}

/** SIGTERM and wait: the platform drains and stops its lanes. */
export async function stopInstance(instance: Instance): Promise<void> {
  const child = instance.child;
  if (!child) return;
  instance.child = null;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

export interface Health {
  status: number;
  body: Record<string, any> | null;
}

export async function health(instance: Instance): Promise<Health> {
  try {
    const response = await fetch(`${instance.publicUrl}/health`, { signal: AbortSignal.timeout(5_000) });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  } catch {
    return { status: 0, body: null };
  }
}

/** Which instance holds the leader lock, as each one's `/health` reports it (null: none says). */
export async function leaderIndex(instances: Instance[]): Promise<number | null> {
  for (const instance of instances) {
    if (!instance.child) continue;
    const { body } = await health(instance);
    const leader = body?.leader ?? body?.runtime?.leader ?? body?.projections?.leader;
    if (leader === true || (typeof leader === 'object' && leader?.held === true)) return instance.index;
  }
  return null;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
