import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { graphAuditCatalog } from '../../src/contexts/graph/audit';
import { identityAuditCatalog } from '../../src/contexts/identity/audit';
import { auditEventIndexProjector } from '../../projections/audit/event-index';
import { exportXlsx } from '../../src/contexts/audit/export';
import { buildAuditRegistry } from '../../src/platform/audit/registry';
import { type ReviewDeps } from '../../src/contexts/audit/review';
import { AuditReader } from '../../src/contexts/audit/timeline';
import { type Position, START } from '../../src/platform/eventstore/types';
import { userDirectoryProjector } from '../../projections/identity/user-directory';
import { vertexStream } from '../../streams/graph/names';
import { benchDatabase, type BenchRow } from './support';

/**
 * The audit review at size: replaying one entity's long history and exporting a large slice of the log to
 * XLSX, time and peak memory. Sizes: AUDIT_BENCH_HISTORY (default 10,000 events on one well)
 * and AUDIT_BENCH_EXPORT (default 100,000 events over 1,000 wells, 100 each).
 */
const HISTORY = Number(process.env.AUDIT_BENCH_HISTORY ?? 10_000);
const EXPORT = Number(process.env.AUDIT_BENCH_EXPORT ?? 100_000);
const PER_WELL = 100;
const BATCH = 500;

/** Peak heap and RSS growth over a baseline while `work` runs (sampled every 25 ms). */
async function measured<T>(work: () => Promise<T>): Promise<{ result: T; ms: number; heapMb: number; rssMb: number }> {
  global.gc?.();
  const base = process.memoryUsage();
  let heap = base.heapUsed;
  let rss = base.rss;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    heap = Math.max(heap, m.heapUsed);
    rss = Math.max(rss, m.rss);
  }, 25);
  const started = process.hrtime.bigint();
  try {
    const result = await work();
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const m = process.memoryUsage();
    heap = Math.max(heap, m.heapUsed);
    rss = Math.max(rss, m.rss);
    return { result, ms, heapMb: (heap - base.heapUsed) / 2 ** 20, rssMb: (rss - base.rss) / 2 ** 20 };
  } finally {
    clearInterval(timer);
  }
}

export async function run(): Promise<BenchRow[]> {
  const database = await benchDatabase();
  const { db, store, signer } = database;
  const tenantId = randomUUID();
  const actorId = randomUUID();
  const metadata = { tenantId, actorId, correlationId: 'bench', causationId: 'bench' };
  const namespace = 'bench_oilgas';
  const rows: BenchRow[] = [];
  try {
    await auditEventIndexProjector.createTables(db.knex);
    await userDirectoryProjector.createTables(db.knex);

    async function writeWell(vertexId: string, events: number): Promise<void> {
      for (let i = 0; i < events; i += BATCH) {
        const batch = Array.from({ length: Math.min(BATCH, events - i) }, (_, j) => {
          const n = i + j;
          return n === 0
            ? {
                type: 'VertexCreated',
                data: {
                  vertexId,
                  namespace,
                  label: 'Well',
                  entityId: `W-${vertexId.slice(0, 8)}`,
                  properties: { api_number: `42-${vertexId.slice(0, 8)}`, oil_bbls: '0' },
                },
                metadata,
              }
            : {
                type: 'VertexPropertiesUpdated',
                data: { vertexId, namespace, set: { oil_bbls: String(n) }, removed: [] },
                metadata,
              };
        });
        await store.append(vertexStream(tenantId, vertexId), batch);
      }
    }

    const longWell = randomUUID();
    await writeWell(longWell, HISTORY);
    const wells = Math.ceil(EXPORT / PER_WELL);
    for (let w = 0; w < wells; w++) await writeWell(randomUUID(), Math.min(PER_WELL, EXPORT - w * PER_WELL));

    // The audit index, as the projection runner builds it (batched).
    const indexed = await measured(async () => {
      let from: Position = START;
      let total = 0;
      for (;;) {
        const page = await store.readAll({ from, limit: 2000 });
        if (page.length === 0) return total;
        await db.knex.transaction((trx) => auditEventIndexProjector.applyBatch!(trx, page));
        total += page.length;
        from = page[page.length - 1].position;
      }
    });
    rows.push({
      name: 'index build (events/s)',
      value: Math.round((indexed.result / indexed.ms) * 1000),
      unit: 'events/s',
    });

    const deps: ReviewDeps = {
      knex: db.knex,
      store,
      signer,
      registry: buildAuditRegistry([
        { name: 'identity', audit: identityAuditCatalog },
        { name: 'graph', audit: graphAuditCatalog },
      ]),
    };

    const replay = await measured(async () => {
      const reader = new AuditReader(deps);
      let n = 0;
      for await (const entry of reader.entries({ tenantId, streams: [vertexStream(tenantId, longWell)] }))
        if (entry.signature === 'verified') n++;
      return n;
    });
    if (replay.result !== HISTORY) throw new Error(`replayed ${replay.result} verified events, expected ${HISTORY}`);
    rows.push({
      name: `replay one well, ${HISTORY} events (ms)`,
      value: Math.round(replay.ms),
      unit: 'ms',
      target: '< 5,000',
    });
    rows.push({ name: 'replay peak heap growth (MB)', value: replay.heapMb, unit: 'MB' });

    let bytes = 0;
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        done();
      },
    });
    const exported = await measured(() =>
      exportXlsx(
        deps,
        { query: { tenantId, streamPrefixes: ['graph.vertex-'], streams: undefined }, targets: [], described: {} },
        sink,
        { exportedBy: 'bench' },
      ),
    );
    const total = HISTORY + EXPORT;
    if (exported.result.events !== total)
      throw new Error(`exported ${exported.result.events} events, expected ${total}`);
    rows.push({ name: `XLSX export, ${total} events (ms)`, value: Math.round(exported.ms), unit: 'ms' });
    rows.push({ name: 'XLSX export (events/s)', value: Math.round((total / exported.ms) * 1000), unit: 'events/s' });
    rows.push({
      name: 'XLSX export peak heap growth (MB)',
      value: exported.heapMb,
      unit: 'MB',
      target: 'bounded (streamed)',
    });
    rows.push({ name: 'XLSX export peak RSS growth (MB)', value: exported.rssMb, unit: 'MB' });
    rows.push({ name: 'XLSX file size (MB)', value: bytes / 2 ** 20, unit: 'MB' });
    return rows;
  } finally {
    await database.close();
  }
}
