import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector';
import { createInterface } from 'node:readline';
import { Client } from 'pg';
import { benchTenant } from './http-fixtures';
import { postgresCpuSeconds, serverStatements, startBenchPlatform } from './support';
import { startEmmettPeer } from './emmett-peer';

/**
 * The server side of `npm run bench -- http`, run as a child process so that autocannon's own
 * CPU is not counted against the server and `node --cpu-prof` profiles the server alone: the
 * whole platform on a fresh bench database plus the Emmett peer on the same PostgreSQL server,
 * with the fixtures the routes need. Prints one JSON line describing both, then serves until
 * its standard input closes, profiling its CPU between the parent's `profile-start` and
 * `profile-stop <file>` lines and answering `queries` with the number of queries sent so far
 * and the CPU milliseconds this process and the PostgreSQL server have used.
 */
/**
 * Counts every query any pool of this process sends (the platform's and the peer's): round
 * trips are what a command costs on a busy machine, and unlike timings the count is exact.
 */
function countQueries(): { sent: () => number; texts: Map<string, number> } {
  let sent = 0;
  // By statement (its first 90 characters), for `BENCH_HTTP_STATEMENTS`.
  const texts = new Map<string, number>();
  const query = Client.prototype.query as (...args: unknown[]) => unknown;
  // The texts only when asked for: normalising every statement's text is CPU the server would
  // not spend, charged to the routes that send the most statements.
  const byText = process.env.BENCH_HTTP_STATEMENTS === '1';
  (Client.prototype as unknown as { query: typeof query }).query = function (this: Client, ...args: unknown[]) {
    sent++;
    if (!byText) return query.apply(this, args);
    const first = args[0] as string | { text?: string };
    const text = (typeof first === 'string' ? first : (first?.text ?? '?')).replace(/\s+/g, ' ').trim().slice(0, 90);
    texts.set(text, (texts.get(text) ?? 0) + 1);
    return query.apply(this, args);
  };
  return { sent: () => sent, texts };
}

async function main(): Promise<void> {
  const queries = countQueries();
  const bench = await startBenchPlatform();
  const { admin, post, wellApi } = await benchTenant(bench);
  const type = await post('/event-types', {
    name: 'SCADA alarm',
    fields: [
      { name: 'metric', type: 'text', required: true },
      { name: 'value', type: 'number' },
    ],
  });
  await post(`/event-types/${type.id}/transition`, { status: 'active' });
  // A turn appends to its conversation: one conversation per connection and then some keeps
  // turns on one conversation from contending with each other.
  const conversations: string[] = [];
  for (let i = 0; i < 32; i++) conversations.push((await post('/conversations', { agent_id: 'compliance' })).id);

  const peer = await startEmmettPeer(await peerDatabase(bench.databaseUrl));
  process.stdout.write(
    `${JSON.stringify({
      api: bench.api,
      publicUrl: bench.platform.publicUrl,
      peer: peer.url,
      headers: admin.headers,
      eventTypeId: type.id,
      wellApi,
      conversations,
    })}\n`,
  );
  const profiler = new Session();
  profiler.connect();
  const inspect = (method: string) =>
    new Promise<any>((resolve, reject) =>
      profiler.post(method, {}, (error, result) => (error ? reject(error) : resolve(result))),
    );
  // Commands on stdin: `profile-start`, `profile-stop <file>` (the parent profiles only the
  // measured rounds, not start-up); end of input stops the server.
  for await (const line of createInterface({ input: process.stdin })) {
    const [command, file] = line.trim().split(' ');
    if (command === 'profile-start') {
      await inspect('Profiler.enable');
      await inspect('Profiler.start');
    } else if (command === 'queries') {
      // With the CPU this process and the PostgreSQL server have used so far (ms; -1 unknown).
      const cpu = process.cpuUsage();
      const pg = await postgresCpuSeconds(bench.databaseUrl);
      process.stdout.write(
        `queries ${queries.sent()} ${(cpu.user + cpu.system) / 1000} ${pg === null ? -1 : pg * 1000}\n`,
      );
    } else if (command === 'statements') {
      // The statements sent since the last `statements`, most frequent first, on stderr.
      const top = [...queries.texts].sort((a, b) => b[1] - a[1]).slice(0, 25);
      process.stderr.write(`${top.map(([text, n]) => `${String(n).padStart(7)}  ${text}`).join('\n')}\n`);
      queries.texts.clear();
      if (process.env.BENCH_PG_STATEMENTS === '1')
        process.stderr.write(
          `server time (calls, execution, planning):\n${await serverStatements(bench.databaseUrl)}\n`,
        );
      process.stdout.write('statements-written\n');
    } else if (command === 'profile-stop') {
      const { profile } = await inspect('Profiler.stop');
      await writeFile(file, JSON.stringify(profile));
      process.stdout.write('profile-written\n');
    }
  }
  await peer.close();
  await bench.close();
  process.exit(0);
}

/** A database of the peer's own on the server the platform uses. */
async function peerDatabase(platformUrl: string): Promise<string> {
  const name = `platform_bench_peer_${randomUUID().slice(0, 8)}`;
  const adminUrl = new URL(platformUrl);
  adminUrl.pathname = '/postgres';
  const admin = new Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(platformUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export type HttpTarget = {
  api: string;
  publicUrl: string;
  peer: string;
  headers: Record<string, string>;
  eventTypeId: string;
  wellApi: string;
  conversations: string[];
};

main().catch((error) => {
  console.error(`http-target: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
