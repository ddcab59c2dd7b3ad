import { randomUUID } from 'node:crypto';
import { namespaceOf } from '../../streams/graph/names';
import { type BenchRow, startBenchPlatform } from './support';

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
  const bench = await startBenchPlatform({ NODE_ENV: 'development', PROJECTION_WAIT_MS: '600000' });
  try {
    const { platform, api } = bench;
    const { tenantId, headers } = await bench.session({ tenantId: randomUUID() });

    const started = process.hrtime.bigint();
    const seeded = await fetch(`${api}/graph/seed`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ wells: WELLS }),
    });
    const seedSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    const seed = (await seeded.json()) as {
      entities: number;
      vertices: number;
      edges: number;
      import_seconds: number;
      entities_per_second: number;
    };
    if (seeded.status !== 201) throw new Error(`POST /graph/seed answered ${seeded.status}: ${JSON.stringify(seed)}`);

    const wells = (await platform.deps
      .knex('graph_vertices')
      .select('id', 'entity_id')
      .where({ namespace: namespaceOf(tenantId), label: 'Well' })) as Array<{ id: string; entity_id: string }>;
    const pick = () => wells[Math.floor(Math.random() * wells.length)];
    // Warm-up: JIT, pools, Postgres buffers.
    await timeGets(() => `${api}/graph/context/managed/${pick().entity_id}?entity_type_key=well`, 200, headers);
    await timeGets(() => `${api}/impact/Well/${pick().id}?max_depth=3`, 100, headers);
    const context = await timeGets(
      () => `${api}/graph/context/managed/${pick().entity_id}?entity_type_key=well`,
      REQUESTS,
      headers,
    );
    const impact = await timeGets(
      () => `${api}/impact/Well/${pick().id}?max_depth=3&wti_price=72.5&henry_hub_price=3.1`,
      REQUESTS,
      headers,
    );
    const round = (n: number) => Math.round(n * 10) / 10;
    return [
      { name: `seeded graph: ${WELLS} wells, vertices + edges`, value: seed.entities, unit: 'entities' },
      {
        name: 'seeding rate (import events appended + projected)',
        value: seed.entities_per_second,
        unit: 'entities/s',
        target: '>= 5,000',
      },
      {
        name: 'seeding rate end to end (generate + POST /graph/seed)',
        value: Math.round(seed.entities / seedSeconds),
        unit: 'entities/s',
      },
      {
        name: `GET /graph/context/managed/{id} p50 (${CONCURRENCY} in flight)`,
        value: round(percentile(context, 50)),
        unit: 'ms',
      },
      {
        name: `GET /graph/context/managed/{id} p95 (${CONCURRENCY} in flight)`,
        value: round(percentile(context, 95)),
        unit: 'ms',
        target: '<= 50',
      },
      {
        name: `GET /impact/Well/{id}?max_depth=3 p50 (${CONCURRENCY} in flight)`,
        value: round(percentile(impact, 50)),
        unit: 'ms',
      },
      {
        name: `GET /impact/Well/{id}?max_depth=3 p95 (${CONCURRENCY} in flight)`,
        value: round(percentile(impact, 95)),
        unit: 'ms',
        target: '<= 250',
      },
    ];
  } finally {
    await bench.close();
  }
}
