import { randomBytes, randomUUID } from 'node:crypto';
import { Client, Pool } from 'pg';
import type { NewEvent } from '../../src/platform/eventstore/types';
import { benchDatabase, type BenchRow, perSecond } from './support';

/**
 * Appends side by side with Emmett's PostgreSQL event store (@event-driven-io/emmett-postgresql,
 * a devDependency) and with a raw one-row INSERT, on the same server in the same run: this
 * machine is noisy, so only same-run ratios mean anything. Each contestant runs twice,
 * interleaved, and keeps its better run.
 */
const metadata = { tenantId: 'bench', actorId: 'bench', correlationId: 'bench', causationId: 'bench' };
const payload = (i: number) => ({
  api: `42-501-${String(i % 99999).padStart(5, '0')}`,
  oil_bbls: i % 900,
  gas_mcf: i % 5000,
});

type Append = (stream: string, count: number, offset: number) => Promise<unknown>;

async function measure(
  writers: number,
  appendsPerWriter: number,
  eventsPerAppend: number,
  append: Append,
): Promise<number> {
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      const stream = `bench_well-${w}-${randomUUID()}`;
      for (let i = 0; i < appendsPerWriter; i++) await append(stream, eventsPerAppend, i * eventsPerAppend);
    }),
  );
  return perSecond(writers * appendsPerWriter * eventsPerAppend, started);
}

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const ours = await benchDatabase();
  // Emmett gets a database of its own on the same server.
  const peerName = `platform_bench_emmett_${randomBytes(4).toString('hex')}`;
  const adminUrl = new URL(ours.url);
  adminUrl.pathname = '/postgres';
  const admin = new Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${peerName}`);
  const peerUrl = new URL(ours.url);
  peerUrl.pathname = `/${peerName}`;
  const { getPostgreSQLEventStore } = await import('@event-driven-io/emmett-postgresql');
  const emmett = getPostgreSQLEventStore(peerUrl.toString(), {
    connectionOptions: { pooled: true, connectionString: peerUrl.toString(), maxConnections: 16 } as never,
  });
  const raw = new Pool({ connectionString: ours.url, max: 16 });
  try {
    await raw.query(
      'CREATE TABLE bench_raw_rows (id bigserial PRIMARY KEY, stream text NOT NULL, data jsonb NOT NULL)',
    );
    const appendOurs: Append = (stream, count, offset) =>
      ours.store.append(
        stream,
        Array.from({ length: count }, (_, k): NewEvent => ({
          type: 'WellProductionReported',
          data: payload(offset + k),
          metadata,
        })),
      );
    const appendEmmett: Append = (stream, count, offset) =>
      emmett.appendToStream(
        stream,
        Array.from({ length: count }, (_, k) => ({
          type: 'WellProductionReported',
          data: payload(offset + k),
          metadata,
        })),
      );
    const insertRaw: Append = (stream, _count, offset) =>
      raw.query('INSERT INTO bench_raw_rows (stream, data) VALUES ($1, $2)', [stream, JSON.stringify(payload(offset))]);
    // Warm-up: schemas, prepared statements, connections.
    await measure(8, 20, 1, appendOurs);
    await measure(8, 20, 1, appendEmmett);
    await measure(8, 20, 1, insertRaw);

    const single = { ours: 0, emmett: 0, raw: 0 };
    for (let round = 0; round < 2; round++) {
      single.ours = Math.max(single.ours, await measure(8, 300, 1, appendOurs));
      single.emmett = Math.max(single.emmett, await measure(8, 300, 1, appendEmmett));
      single.raw = Math.max(single.raw, await measure(8, 300, 1, insertRaw));
    }
    rows.push({ name: 'single-event appends, 8 writers: ours', value: single.ours, unit: 'events/s' });
    rows.push({ name: 'single-event appends, 8 writers: Emmett 0.42', value: single.emmett, unit: 'events/s' });
    rows.push({ name: 'one-row INSERT, 8 writers: raw pg', value: single.raw, unit: 'rows/s' });
    rows.push({
      name: 'single-event appends: ours / Emmett',
      value: single.ours / single.emmett,
      unit: 'ratio',
      target: '≥ 1.2',
    });
    rows.push({
      name: 'single-event appends: ours / raw INSERT',
      value: single.ours / single.raw,
      unit: 'ratio',
      target: '≥ 0.40',
    });

    const batch = { ours: 0, emmett: 0 };
    for (let round = 0; round < 2; round++) {
      batch.ours = Math.max(batch.ours, await measure(8, 40, 100, appendOurs));
      batch.emmett = Math.max(batch.emmett, await measure(8, 40, 100, appendEmmett));
    }
    rows.push({ name: '100-event appends, 8 writers: ours', value: batch.ours, unit: 'events/s' });
    rows.push({ name: '100-event appends, 8 writers: Emmett 0.42', value: batch.emmett, unit: 'events/s' });
    rows.push({
      name: '100-event appends: ours / Emmett',
      value: batch.ours / batch.emmett,
      unit: 'ratio',
      target: '≥ 1.0',
    });
  } finally {
    await emmett.close();
    await raw.end();
    await ours.close();
    await admin.query(`DROP DATABASE IF EXISTS ${peerName} WITH (FORCE)`);
    await admin.end();
  }
  return rows;
}
