import type { Knex } from 'knex';
import type { Pool } from 'pg';
import type { RuntimeView } from '../runtime/report';
import type { LaneMetricKind, RuntimeSnapshot } from './metrics';

/** The pools' own counters: knex's (tarn) and the event store's (pg). */
interface TarnPool {
  numUsed(): number;
  numPendingAcquires(): number;
}

/**
 * What the lane gauges show at scrape time, read from the runtime view that `/health` and the
 * System page read (lanes, dead letters, scheduled backlog), through its `gauges()`, which
 * skips the lists and leaderships a scrape never shows: the three never disagree, and nothing
 * in the lane loops updates the gauges. Whether this instance leads is the runner's own
 * knowledge, not the lock table's, so two instances in one process still tell apart.
 */
export function runtimeSnapshot(parts: {
  view: () => RuntimeView | null;
  knex: Knex;
  pool: Pool;
  leads: Record<LaneMetricKind, () => boolean>;
}): () => Promise<RuntimeSnapshot> {
  const { view, knex, pool, leads } = parts;
  return async () => {
    const runtime = view();
    const gauges = runtime ? await runtime.gauges() : null;
    const lanes = gauges?.lanes ?? [];
    const subscribed = (kind: LaneMetricKind) => lanes.find((lane) => lane.kind === kind)?.subscribed ?? null;
    const kinds: LaneMetricKind[] = [
      'projection',
      ...(lanes.some((l) => l.kind === 'reactor') ? ['reactor' as const] : []),
      'scheduler',
    ];
    const tarn = (knex.client as { pool?: TarnPool }).pool;
    return {
      lanes: lanes.map((lane) => ({
        kind: lane.kind,
        lane: lane.name,
        lagEvents: lane.lag_events,
        lagSeconds: lane.lag_seconds,
        deadLetters: lane.dead_letters,
      })),
      kinds: kinds.map((kind) => ({ kind, subscribed: subscribed(kind), leader: leads[kind]() })),
      scheduled: gauges?.scheduled ?? { due: 0, overdue: 0 },
      pools: [
        { pool: 'events', inUse: pool.totalCount - pool.idleCount, waiting: pool.waitingCount },
        ...(tarn ? [{ pool: 'read_models', inUse: tarn.numUsed(), waiting: tarn.numPendingAcquires() }] : []),
      ],
    };
  };
}
