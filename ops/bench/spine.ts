import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { NewEvent } from '../../src/platform/eventstore/types';
import { createAdvisoryLeaderLock } from '../../src/platform/projection-runner/leader-lock';
import type { Projector } from '../../src/platform/projection-runner/projector';
import { ProjectionRunner } from '../../src/platform/projection-runner/runner';
import { benchDatabase, type BenchRow, perSecond } from './support';

const metadata = { tenantId: 'bench', actorId: 'bench', correlationId: 'bench', causationId: 'bench' };
const event = (i: number): NewEvent => ({
  type: 'WellProductionReported',
  data: { api: `42-501-${String(i % 99999).padStart(5, '0')}`, oil_bbls: i % 900, gas_mcf: i % 5000 },
  metadata,
});

async function appendRun(
  writers: number,
  appendsPerWriter: number,
  eventsPerAppend: number,
  append: (stream: string, events: NewEvent[]) => Promise<unknown>,
): Promise<number> {
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      const stream = `bench.well-${w}-${randomUUID()}`;
      for (let i = 0; i < appendsPerWriter; i++)
        await append(
          stream,
          Array.from({ length: eventsPerAppend }, (_, k) => event(i * eventsPerAppend + k)),
        );
    }),
  );
  return perSecond(writers * appendsPerWriter * eventsPerAppend, started);
}

/** A trivial upsert projection: one counter row per stream. */
const counter: Projector = {
  name: 'bench_counter',
  version: 1,
  tables: ['bench_counter'],
  async createTables(knex) {
    await knex.schema.createTable('bench_counter', (t) => {
      t.text('stream').primary();
      t.integer('events').notNullable();
      t.bigint('oil_bbls').notNullable();
    });
  },
  async apply(trx, e) {
    const oil = (e.data as { oil_bbls: number }).oil_bbls;
    await trx.raw(
      `INSERT INTO bench_counter (stream, events, oil_bbls) VALUES (?, 1, ?)
       ON CONFLICT (stream) DO UPDATE SET events = bench_counter.events + 1, oil_bbls = bench_counter.oil_bbls + EXCLUDED.oil_bbls`,
      [e.stream, oil],
    );
  },
};

/** The same projection, applying a batch as one multi-row upsert (aggregated per stream first). */
const batchedCounter: Projector = {
  ...counter,
  name: 'bench_counter_batched',
  tables: ['bench_counter_batched'],
  async createTables(knex) {
    await knex.schema.createTable('bench_counter_batched', (t) => {
      t.text('stream').primary();
      t.integer('events').notNullable();
      t.bigint('oil_bbls').notNullable();
    });
  },
  async applyBatch(trx, events) {
    const totals = new Map<string, { events: number; oil: number }>();
    for (const e of events) {
      const row = totals.get(e.stream) ?? { events: 0, oil: 0 };
      row.events++;
      row.oil += (e.data as { oil_bbls: number }).oil_bbls;
      totals.set(e.stream, row);
    }
    await trx.raw(
      `INSERT INTO bench_counter_batched (stream, events, oil_bbls)
       SELECT * FROM unnest(?::text[], ?::int[], ?::bigint[])
       ON CONFLICT (stream) DO UPDATE SET events = bench_counter_batched.events + EXCLUDED.events,
                                          oil_bbls = bench_counter_batched.oil_bbls + EXCLUDED.oil_bbls`,
      [[...totals.keys()], [...totals.values()].map((t) => t.events), [...totals.values()].map((t) => t.oil)],
    );
  },
};

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const { db, store, close } = await benchDatabase();
  try {
    const append = (stream: string, events: NewEvent[]) => store.append(stream, events);
    rows.push({ name: 'append 1 event/tx, 1 writer', value: await appendRun(1, 1500, 1, append), unit: 'events/s' });
    rows.push({
      name: 'append 1 event/tx, 8 writers',
      value: await appendRun(8, 400, 1, append),
      unit: 'events/s',
      target: '≥ 2,000',
    });
    rows.push({
      name: 'append 100 events/tx, 1 writer',
      value: await appendRun(1, 200, 100, append),
      unit: 'events/s',
      target: '≥ 20,000',
    });
    rows.push({
      name: 'append 100 events/tx, 8 writers',
      value: await appendRun(8, 60, 100, append),
      unit: 'events/s',
      target: '≥ 20,000',
    });

    // Fill to 200k events for the read and rebuild figures.
    const head = Number((await db.knex('events').count<{ count: string }[]>('* as count'))[0].count);
    const missing = Math.max(0, 200_000 - head);
    await appendRun(8, Math.ceil(missing / 800), 100, append);
    const total = Number((await db.knex('events').count<{ count: string }[]>('* as count'))[0].count);

    let read = 0;
    let from = undefined;
    const started = process.hrtime.bigint();
    for (;;) {
      const batch = await store.readAll({ from, limit: 1000 });
      if (batch.length === 0) break;
      read += batch.length;
      from = batch[batch.length - 1].position;
    }
    rows.push({ name: `readAll (${read} events, 1000/batch)`, value: perSecond(read, started), unit: 'events/s' });

    const runner = new ProjectionRunner({
      knex: db.knex,
      store,
      projectors: [counter, batchedCounter],
      logger: pino({ level: 'silent' }),
      leaderLock: createAdvisoryLeaderLock(db.url),
    });
    for (const [name, label] of [
      ['bench_counter_batched', 'batched upsert'],
      ['bench_counter', 'upsert per event'],
    ]) {
      const rebuildStarted = process.hrtime.bigint();
      const result = await runner.rebuild(name);
      rows.push({
        name: `projection rebuild, ${label} (${total} events)`,
        value: perSecond(result.applied, rebuildStarted),
        unit: 'events/s',
        target: '≥ 15,000',
      });
    }
    await runner.stop();
  } finally {
    await close();
  }
  return rows;
}
