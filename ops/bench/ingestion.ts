import { createReadStream, createWriteStream, openAsBlob } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { stageCsv, stagedBatches } from '../../commands/ingestion/csv-wells';
import { csvFacts } from '../../commands/ingestion/graph-facts';
import { type FeedDeps, type FeedPlan, markCreated, planFeed } from '../../commands/ingestion/feed-graph';
import { CSV_FEED_BATCH } from '../../commands/ingestion/import-operator-csv';
import { type BenchRow, profiled, serverStatements, startBenchPlatform, withCpu } from './support';

const ROWS = Number(process.env.BENCH_CSV_ROWS ?? 100_000);
const COUNTY_CODES = ['329', '317', '227', '383', '461', '173', '389', '301', '475', '135', '003', '501'];

/** An operator well list in PDQ column names, ≈100 bytes a row (100,000 rows ≈ 10 MB). */
async function writeCsv(path: string, rows: number): Promise<void> {
  const out = createWriteStream(path);
  const write = (line: string) =>
    out.write(line) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r()));
  await write(
    'API_NO,OPERATOR_NO,OPERATOR_NAME,LEASE_NAME,LEASE_NO,WELL_NO,COUNTY,DISTRICT,FIELD_NAME,FIELD_NO,SURFACE_LAT,SURFACE_LONG,WELL_TYPE\n',
  );
  for (let i = 0; i < rows; i++) {
    const county = COUNTY_CODES[i % COUNTY_CODES.length];
    const operator = 100_000 + (i % 40);
    const lease = 10_000 + Math.floor(i / 8);
    await write(
      `42${county}${String(10_000 + i)
        .padStart(5, '0')
        .slice(
          -5,
        )},${operator},OPERATOR ${operator} LLC,LEASE ${lease},${lease},${(i % 8) + 1}H,Midland,08,SPRABERRY (TREND AREA),85279200,${(31 + (i % 1000) / 1000).toFixed(4)},${(-102 - (i % 997) / 1000).toFixed(4)},O\n`,
    );
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

/**
 * The import's decide half alone: the file's batches turned into graph facts and planned one
 * after the other as the import plans them (each counting the one before as written), against
 * a tenant with nothing stored, nothing written. What Node spends deciding, apart from writing.
 */
async function planOnly(deps: FeedDeps, file: string): Promise<{ seconds: number; cpu: number }> {
  const staged = await stageCsv(createReadStream(file));
  try {
    const actor = { tenantId: randomUUID(), userId: randomUUID() };
    const createdEarlier = new Set<string>();
    let inFlight: FeedPlan | undefined;
    const started = process.hrtime.bigint();
    const before = process.cpuUsage();
    for await (const wells of stagedBatches(staged.path, CSV_FEED_BATCH)) {
      inFlight = await planFeed(deps, actor, csvFacts(wells), { waitForProjection: false, createdEarlier, inFlight });
      markCreated(inFlight, createdEarlier);
    }
    const used = process.cpuUsage(before);
    return { seconds: Number(process.hrtime.bigint() - started) / 1e9, cpu: (used.user + used.system) / 1e6 };
  } finally {
    await staged.discard();
  }
}

/** Peak RSS and heap while `work` runs, sampled every 25 ms. */
async function withPeakMemory<T>(
  work: () => Promise<T>,
): Promise<{ result: T; seconds: number; peakRssMb: number; peakHeapMb: number; baseRssMb: number }> {
  global.gc?.();
  const base = process.memoryUsage();
  let peakRss = base.rss;
  let peakHeap = base.heapUsed;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  }, 25);
  const started = process.hrtime.bigint();
  try {
    const result = await work();
    return {
      result,
      seconds: Number(process.hrtime.bigint() - started) / 1e9,
      peakRssMb: peakRss / 2 ** 20,
      peakHeapMb: peakHeap / 2 ** 20,
      baseRssMb: base.rss / 2 ** 20,
    };
  } finally {
    clearInterval(timer);
  }
}

/**
 * Operator CSV ingestion at the scale (BENCH_CSV_ROWS, default 100,000 rows ≈ 10 MB):
 * staging alone (stream, UTF-8 check, csv-parse, validation, staging file), the whole import
 * through HTTP (staging, batch events, graph feed through the graph commands), and the
 * re-import of the same file (recognised; the graph only re-checked). Peak memory is the
 * process's (the platform runs in-process) while each step runs.
 */
export async function run(): Promise<BenchRow[]> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-csv-'));
  const path = join(dir, 'wells.csv');
  await writeCsv(path, ROWS);
  const sizeMb = (await stat(path)).size / 2 ** 20;
  const bench = await startBenchPlatform({ NODE_ENV: 'development', PROJECTION_WAIT_MS: '600000' });
  try {
    const staging = await withPeakMemory(async () => {
      const staged = await stageCsv(createReadStream(path));
      await staged.discard();
      return staged;
    });
    if (staging.result.accepted !== ROWS)
      throw new Error(
        `staged ${staging.result.accepted} of ${ROWS} rows: ${JSON.stringify(staging.result.rejections.slice(0, 3))}`,
      );

    const planning = await planOnly(bench.platform.deps, path);

    const { headers } = await bench.session({ tenantId: randomUUID(), roles: ['power_user'] });
    const { 'content-type': _json, ...auth } = headers;
    const post = async () => {
      const form = new FormData();
      form.append('file', await openAsBlob(path, { type: 'text/csv' }), 'wells.csv');
      const response = await fetch(`${bench.api}/ingest/operator/csv`, { method: 'POST', headers: auth, body: form });
      const body = (await response.json()) as { accepted: number; graph: { created: number; updated: number } };
      if (response.status !== 200)
        throw new Error(`POST /ingest/operator/csv answered ${response.status}: ${JSON.stringify(body).slice(0, 500)}`);
      return body;
    };
    // BENCH_PG_STATEMENTS=1: the server's time by statement during the first import, on stderr;
    // BENCH_CPU_PROF=<file>: a CPU profile of the platform during it.
    const statements = process.env.BENCH_PG_STATEMENTS === '1';
    if (statements) await serverStatements(bench.databaseUrl);
    const profile = await profiled(process.env.BENCH_CPU_PROF);
    const firstCpu = await withCpu(bench.databaseUrl, () => withPeakMemory(post));
    await profile.stop();
    const first = firstCpu.result;
    if (statements)
      process.stderr.write(
        `server time during the import (calls, execution, planning):\n${await serverStatements(bench.databaseUrl)}\n`,
      );
    const again = await withPeakMemory(post);

    // A year of one district, every data type: mostly Form PR reports through UpdateWellProduction.
    const scrapeStarted = process.hrtime.bigint();
    const scrape = await fetch(`${bench.api}/ingest/rrc-scrape`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        data_types: ['operators', 'leases', 'wells', 'permits', 'flaring', 'production'],
        district: '08',
        date_range: { from: '2025-01-01', to: '2025-12-31' },
      }),
    });
    const scrapeSeconds = Number(process.hrtime.bigint() - scrapeStarted) / 1e9;
    const scraped = (await scrape.json()) as { counts: Record<string, number> };
    if (scrape.status !== 200)
      throw new Error(`POST /ingest/rrc-scrape answered ${scrape.status}: ${JSON.stringify(scraped).slice(0, 300)}`);
    const records = Object.values(scraped.counts).reduce((a, b) => a + b, 0);
    const round = (n: number) => Math.round(n * 10) / 10;
    return [
      { name: `csv file (${ROWS.toLocaleString('en-US')} rows)`, value: round(sizeMb), unit: 'MB' },
      { name: 'csv staging rows/s', value: Math.round(ROWS / staging.seconds), unit: 'rows/s' },
      { name: 'csv staging peak heap', value: round(staging.peakHeapMb), unit: 'MB' },
      {
        name: `csv import's planning alone (${CSV_FEED_BATCH}-row batches, nothing stored)`,
        value: round(planning.seconds),
        unit: 's',
      },
      { name: "csv import's planning alone, CPU", value: round(planning.cpu), unit: 's' },
      {
        name: 'csv import rows/s (HTTP, graph fed)',
        value: Math.round(ROWS / first.seconds),
        unit: 'rows/s',
        target: '100k rows ≤ 20 s',
      },
      { name: 'csv import seconds', value: round(first.seconds), unit: 's' },
      { name: 'csv import graph vertices created', value: first.result.graph.created, unit: 'vertices' },
      {
        name: 'csv import CPU, platform process',
        value: round(firstCpu.processCpu),
        unit: 's',
        target: 'work done, less load-dependent than time',
      },
      ...(firstCpu.postgresCpu === null
        ? []
        : [{ name: 'csv import CPU, PostgreSQL', value: round(firstCpu.postgresCpu), unit: 's' }]),
      {
        name: 'csv import peak RSS',
        value: round(first.peakRssMb),
        unit: 'MB',
        target: `bounded (base ${Math.round(first.baseRssMb)} MB)`,
      },
      { name: 'csv import peak heap', value: round(first.peakHeapMb), unit: 'MB' },
      { name: 'csv re-import rows/s (unchanged)', value: Math.round(ROWS / again.seconds), unit: 'rows/s' },
      { name: 'csv re-import peak heap', value: round(again.peakHeapMb), unit: 'MB' },
      { name: `rrc scrape, 1 year of district 08 (${records} records)`, value: round(scrapeSeconds), unit: 's' },
    ];
  } finally {
    await bench.close();
    await rm(dir, { recursive: true, force: true });
  }
}
