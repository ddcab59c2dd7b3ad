import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { registerUser } from '../../commands/identity/register-user';
import { createTenant } from '../../commands/identity/create-tenant';
import { loadConfig } from '../../src/config';
import { identityDeps } from '../../src/identity/identity-deps';
import { startPlatform } from '../../src/platform';
import { namespaceOf } from '../../streams/graph/names';
import { SYSTEM_USER_ID } from '../../streams/identity/system-accounts';
import { benchDatabase, BenchRow } from './support';

const WELLS = Number(process.env.BENCH_GRAPH_WELLS ?? 20_000);
const REQUESTS = Number(process.env.BENCH_GRAPH_REQUESTS ?? 1000);
/** Requests in flight; latency targets are read at 1 (one client), throughput shows at more. */
const CONCURRENCY = Number(process.env.BENCH_GRAPH_CONCURRENCY ?? 1);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Latencies (ms) of `total` GETs with CONCURRENCY in flight; any non-200 fails the bench. */
async function timeGets(urls: () => string, total: number, headers: Record<string, string>): Promise<number[]> {
  const latencies: number[] = [];
  let issued = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (issued < total) {
        issued++;
        const url = urls();
        const started = process.hrtime.bigint();
        const response = await fetch(url, { headers });
        await response.arrayBuffer();
        latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
        if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}`);
      }
    }),
  );
  return latencies.sort((a, b) => a - b);
}

/**
 * The knowledge graph at portfolio scale: seed 20,000 wells (~200,000 vertices and edges)
 * through POST /graph/seed (bulk import events + projection), then managed context and
 * depth-3 impact of random wells through HTTP (BENCH_GRAPH_CONCURRENCY requests in flight,
 * default 1).
 */
export async function run(): Promise<BenchRow[]> {
  const database = await benchDatabase();
  const config = loadConfig({
    NODE_ENV: 'development',
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
    PROJECTION_WAIT_MS: '600000',
    LOG_LEVEL: 'silent',
  });
  const platform = await startPlatform({ config, logger: pino({ level: 'silent' }) });
  try {
    const deps = identityDeps(platform.deps);
    const tenantId = randomUUID();
    await createTenant(deps.handle, { tenantId, name: 'Bench operator' }, { actorId: SYSTEM_USER_ID });
    const { userId } = await registerUser(deps, { tenantId, email: 'graph-bench@example.com', roles: ['operator'] }, { actorId: SYSTEM_USER_ID });
    const { token } = await deps.tokens.issue({ userId, email: 'graph-bench@example.com', roles: ['operator'], tenantId, tokenVersion: 0 }, new Date());
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const api = `${platform.publicUrl}/api/v1`;

    const started = process.hrtime.bigint();
    const seeded = await fetch(`${api}/graph/seed`, { method: 'POST', headers, body: JSON.stringify({ wells: WELLS }) });
    const seedSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    const seed = (await seeded.json()) as { entities: number; vertices: number; edges: number; import_seconds: number; entities_per_second: number };
    if (seeded.status !== 201) throw new Error(`POST /graph/seed answered ${seeded.status}: ${JSON.stringify(seed)}`);

    const wells = (await platform.deps.knex('graph_vertices').select('id', 'entity_id').where({ namespace: namespaceOf(tenantId), label: 'Well' })).map((w) => w);
    const pick = () => wells[Math.floor(Math.random() * wells.length)];
    // Warm-up: JIT, pools, Postgres buffers.
    await timeGets(() => `${api}/graph/context/managed/${pick().entity_id}?entity_type_key=well`, 200, headers);
    await timeGets(() => `${api}/impact/Well/${pick().id}?max_depth=3`, 100, headers);
    const context = await timeGets(() => `${api}/graph/context/managed/${pick().entity_id}?entity_type_key=well`, REQUESTS, headers);
    const impact = await timeGets(() => `${api}/impact/Well/${pick().id}?max_depth=3&wti_price=72.5&henry_hub_price=3.1`, REQUESTS, headers);
    const round = (n: number) => Math.round(n * 10) / 10;
    return [
      { name: `seeded graph: ${WELLS} wells, vertices + edges`, value: seed.entities, unit: 'entities' },
      { name: 'seeding rate (import events appended + projected)', value: seed.entities_per_second, unit: 'entities/s', target: '>= 5,000' },
      { name: 'seeding rate end to end (generate + POST /graph/seed)', value: Math.round(seed.entities / seedSeconds), unit: 'entities/s' },
      { name: `GET /graph/context/managed/{id} p50 (${CONCURRENCY} in flight)`, value: round(percentile(context, 50)), unit: 'ms' },
      { name: `GET /graph/context/managed/{id} p95 (${CONCURRENCY} in flight)`, value: round(percentile(context, 95)), unit: 'ms', target: '<= 50' },
      { name: `GET /impact/Well/{id}?max_depth=3 p50 (${CONCURRENCY} in flight)`, value: round(percentile(impact, 50)), unit: 'ms' },
      { name: `GET /impact/Well/{id}?max_depth=3 p95 (${CONCURRENCY} in flight)`, value: round(percentile(impact, 95)), unit: 'ms', target: '<= 250' },
    ];
  } finally {
    await platform.stop();
    await database.close();
  }
}
