import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { autocannon, type CannonRequest } from './cannon';
import type { BenchRow } from './support';
import type { HttpTarget } from './http-target';

/**
 * The platform over HTTP, black-box: autocannon with 8 connections against the server in a
 * child process (so the load generator's CPU is not the server's, and
 * `BENCH_CPU_PROF=<file.cpuprofile>` profiles the server alone, in one more run of the
 * selected routes after the measured rounds), the rate limit lifted. Every route's figures are read against
 * `/health` of the same run, and POST /conversations against the same command in Emmett's
 * idiom on the same PostgreSQL server, in interleaved rounds: on a shared machine only
 * same-run ratios mean anything. Each route keeps its best round.
 *
 * `BENCH_HTTP_SECONDS` (default 5) per run, `BENCH_HTTP_ROUNDS` (default 2),
 * `BENCH_HTTP_ROUTES=conversations,execute` to run only some (health always runs).
 */
interface Route {
  name: string;
  /** The goal as a ratio to /health, when the issue sets one. */
  target?: string;
  request(target: HttpTarget): CannonRequest & { url: string };
}

let serial = 0;
const nextSerial = () => ++serial;
const json = (body: unknown) => JSON.stringify(body);

const ROUTES: Route[] = [
  { name: 'health', request: (t) => ({ url: t.publicUrl, method: 'GET', path: '/health' }) },
  {
    name: 'auth/me',
    request: (t) => ({ url: t.publicUrl, method: 'GET', path: '/api/v1/auth/me', headers: t.headers }),
  },
  {
    name: 'POST /conversations',
    target: '≥ 0.3, p99 ≤ 20 ms',
    request: (t) => ({
      url: t.publicUrl,
      method: 'POST',
      path: '/api/v1/conversations',
      headers: t.headers,
      body: json({ agent_id: 'compliance', title: 'Bench conversation' }),
    }),
  },
  {
    name: 'POST /events',
    target: '≥ 0.3, p99 ≤ 20 ms',
    request: (t) => ({
      url: t.publicUrl,
      method: 'POST',
      path: '/api/v1/events',
      headers: t.headers,
      setupRequest: (req) => ({
        ...req,
        body: json({
          event_type_id: t.eventTypeId,
          entity_id: `42-329-${String(nextSerial() % 50).padStart(5, '0')}`,
          entity_type: 'Well',
          occurred_at: new Date().toISOString(),
          fields: { metric: 'casing_pressure', value: 800 },
        }),
      }),
    }),
  },
  {
    name: 'POST /graph/entities',
    target: '≥ 0.3, p99 ≤ 20 ms',
    request: (t) => ({
      url: t.publicUrl,
      method: 'POST',
      path: '/api/v1/graph/entities',
      headers: t.headers,
      setupRequest: (req) => {
        const n = nextSerial();
        const api = `42-${String(100 + Math.floor(n / 100_000)).padStart(3, '0')}-${String(n % 100_000).padStart(5, '0')}`;
        return {
          ...req,
          body: json({
            label: 'Well',
            properties: { entity_id: api, api_number: api, well_type: 'oil', production_oil_bbls: 1000 + (n % 500) },
          }),
        };
      },
    }),
  },
  {
    name: 'POST /approvals',
    target: '≥ 0.3, p99 ≤ 20 ms',
    request: (t) => ({
      url: t.publicUrl,
      method: 'POST',
      path: '/api/v1/approvals',
      headers: t.headers,
      body: json({
        agent_type: 'bench',
        checkpoint_type: 'filing_review',
        payload: { filing_type: 'PR', entity_id: t.wellApi },
      }),
    }),
  },
  {
    name: 'POST /execute (a turn)',
    target: '≥ 0.05, p50 ≤ 30 ms',
    request: (t) => ({
      url: t.publicUrl,
      method: 'POST',
      path: '/api/v1/execute',
      headers: t.headers,
      // One conversation per connection, as a user waits for a turn before the next message:
      // the turns that run at once are colleagues' turns in one tenant (the usage streams they
      // share), not two turns racing in one conversation.
      setupRequest: (req, connection) => {
        connection.conversation ??= t.conversations[nextSerial() % t.conversations.length];
        return {
          ...req,
          body: json({ conversation_id: connection.conversation, message: `What is the status of well ${t.wellApi}?` }),
        };
      },
    }),
  },
  {
    name: 'GET /conversations',
    request: (t) => ({ url: t.publicUrl, method: 'GET', path: '/api/v1/conversations', headers: t.headers }),
  },
  {
    name: 'GET /compliance/summary',
    request: (t) => ({ url: t.publicUrl, method: 'GET', path: '/api/v1/compliance/summary', headers: t.headers }),
  },
  {
    name: 'GET /compliance/matrix',
    request: (t) => ({ url: t.publicUrl, method: 'GET', path: '/api/v1/compliance/matrix', headers: t.headers }),
  },
];

const PEER: Route = {
  name: 'Emmett peer: POST /conversations',
  request: (t) => ({
    url: t.peer,
    method: 'POST',
    path: '/conversations',
    headers: { 'content-type': 'application/json' },
    body: json({ agent_id: 'compliance', title: 'Bench conversation' }),
  }),
};

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  total: number;
}

async function load(route: Route, target: HttpTarget, seconds: number): Promise<Figures> {
  const { url, ...request } = route.request(target);
  // The first refusal, so a failed run says what the server answered.
  let refused: string | null = null;
  const onResponse = (status: number, body: string) => {
    if (status >= 300 && refused === null) refused = `${status} ${String(body).slice(0, 300)}`;
  };
  const result = await autocannon({ url, connections: 8, duration: seconds, requests: [{ ...request, onResponse }] });
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed > result.requests.total / 100)
    throw new Error(
      `${route.name}: ${failed} of ${result.requests.total} requests failed (non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts}; first refusal: ${refused ?? 'none'})`,
    );
  return {
    rps: result.requests.total / (result.duration || seconds),
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
  };
}

interface Counters {
  queries: number;
  serverCpu: number;
  postgresCpu: number | null;
}

/** What a route's run cost per request answered: round trips, and CPU ms of the server and of PostgreSQL. */
interface PerRequest {
  queries: number;
  serverCpuMs: number;
  postgresCpuMs: number | null;
}

function perRequest(before: Counters, after: Counters, answered: number): PerRequest {
  const n = Math.max(1, answered);
  return {
    queries: (after.queries - before.queries) / n,
    serverCpuMs: (after.serverCpu - before.serverCpu) / n,
    postgresCpuMs:
      before.postgresCpu === null || after.postgresCpu === null ? null : (after.postgresCpu - before.postgresCpu) / n,
  };
}

/** Starts the server side and answers its description; stdin closing stops it. */
async function startTarget() {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'http-target.ts')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stdout! });
  const nextLine = (prefix: string) =>
    new Promise<string>((resolve, reject) => {
      // Both listeners go once the line is in: one pair per question, not one more per round.
      const onExit = (code: number | null) => reject(new Error(`the bench server exited (${code})`));
      const onLine = (line: string) => {
        if (!line.startsWith(prefix)) return;
        lines.off('line', onLine);
        child.off('exit', onExit);
        resolve(line);
      };
      lines.on('line', onLine);
      child.once('exit', onExit);
    });
  const target = JSON.parse(await nextLine('{"api"')) as HttpTarget;
  return {
    target,
    profileStart() {
      child.stdin!.write('profile-start\n');
    },
    /** Queries sent so far, and CPU ms used so far by the server process and PostgreSQL (null: not readable here). */
    async counters(): Promise<Counters> {
      const answer = nextLine('queries ');
      child.stdin!.write('queries\n');
      const [queries, serverCpu, postgresCpu] = (await answer).slice('queries '.length).split(' ').map(Number);
      return { queries, serverCpu, postgresCpu: postgresCpu < 0 ? null : postgresCpu };
    },
    /** Prints on stderr the statements sent since the last call, most frequent first. */
    async statements(title: string) {
      const written = nextLine('statements-written');
      process.stderr.write(`statements of ${title}:\n`);
      child.stdin!.write('statements\n');
      await written;
    },
    async profileStop(file: string) {
      const written = nextLine('profile-written');
      child.stdin!.write(`profile-stop ${file}\n`);
      await written;
    },
    async stop() {
      child.stdin!.end();
      await exited;
    },
  };
}

export async function run(): Promise<BenchRow[]> {
  const seconds = Number(process.env.BENCH_HTTP_SECONDS ?? 5);
  const rounds = Number(process.env.BENCH_HTTP_ROUNDS ?? 2);
  const only = process.env.BENCH_HTTP_ROUTES?.split(',').map((s) => s.trim().toLowerCase());
  const routes = ROUTES.filter(
    (r) => r.name === 'health' || !only || only.some((o) => r.name.toLowerCase().includes(o)),
  );
  const withPeer = routes.some((r) => r.name === 'POST /conversations');
  const server = await startTarget();
  const { target } = server;
  const profile = process.env.BENCH_CPU_PROF;
  // Which statements each route sent (on stderr, counted by text): where its queries go.
  const statements = process.env.BENCH_HTTP_STATEMENTS === '1';
  const best = new Map<string, Figures>();
  const costs = new Map<string, PerRequest>();
  const keep = (name: string, figures: Figures) => {
    const before = best.get(name);
    if (!before || figures.rps > before.rps) best.set(name, figures);
  };
  try {
    // Warm-up: connections, prepared statements, JIT.
    for (const route of routes) await load(route, target, 1);
    if (withPeer) await load(PEER, target, 1);
    for (let round = 0; round < rounds; round++) {
      for (const route of routes) {
        // Exact where timings are not: what the route costs in PostgreSQL round trips; and in
        // CPU, which unlike req/s does not depend on what else the machine runs.
        const before = await server.counters();
        if (statements) await server.statements('the previous route');
        const figures = await load(route, target, seconds);
        costs.set(route.name, perRequest(before, await server.counters(), figures.total));
        if (statements) await server.statements(`${route.name} (${figures.total} requests)`);
        keep(route.name, figures);
        if (route.name === 'POST /conversations') {
          const beforePeer = await server.counters();
          const figures = await load(PEER, target, seconds);
          costs.set(PEER.name, perRequest(beforePeer, await server.counters(), figures.total));
          keep(PEER.name, figures);
        }
      }
    }
    if (profile) {
      // A run of its own, after the measured rounds: our routes only, no /health, no peer.
      const file = path.resolve(profile);
      server.profileStart();
      for (const route of routes) if (route.name !== 'health') await load(route, target, seconds);
      await server.profileStop(file);
      process.stdout.write(
        `server CPU profile of the measured rounds: ${file} (summary: npx tsx ops/bench/cpu-profile.ts ${file})\n`,
      );
    }
  } finally {
    await server.stop();
  }
  const health = best.get('health')!.rps;
  const rows: BenchRow[] = [];
  for (const route of withPeer ? [...routes, PEER] : routes) {
    const f = best.get(route.name)!;
    rows.push({ name: `${route.name}: req/s`, value: Math.round(f.rps), unit: 'req/s' });
    rows.push({ name: `${route.name}: p50`, value: f.p50, unit: 'ms' });
    rows.push({ name: `${route.name}: p99`, value: f.p99, unit: 'ms' });
    if (route.name !== 'health')
      rows.push({ name: `${route.name}: / health`, value: f.rps / health, unit: 'ratio', target: route.target });
    const cost = costs.get(route.name);
    if (cost) {
      rows.push({ name: `${route.name}: queries per request`, value: cost.queries, unit: 'queries' });
      rows.push({ name: `${route.name}: server CPU per request`, value: cost.serverCpuMs, unit: 'ms' });
      if (cost.postgresCpuMs !== null)
        rows.push({ name: `${route.name}: PostgreSQL CPU per request`, value: cost.postgresCpuMs, unit: 'ms' });
    }
  }
  if (withPeer) {
    const ours = best.get('POST /conversations')!;
    const peer = best.get(PEER.name)!;
    rows.push({
      name: 'POST /conversations: ours / Emmett peer',
      value: ours.rps / peer.rps,
      unit: 'ratio',
      target: '≥ 1.2, p99 no worse',
    });
  }
  return rows;
}
