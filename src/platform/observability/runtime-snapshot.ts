import type { Knex } from 'knex';
import type { Pool } from 'pg';
import type { LaneReport } from '../projection-runner/lane-runtime';
import { DEAD_LETTERS_TABLE } from '../projection-runner/dead-letters';
import { reactorCheckpoint } from '../reactors/runner';
import { dueLag, SCHEDULE_TABLE } from '../scheduling/schedule';
import { type LaneMetricKind, OVERDUE_AFTER_S, type RuntimeSnapshot } from './metrics';

/** A runner as the scrape reads it: its lanes' report and whether this instance leads it. */
interface Lanes {
  lanesReport(): Promise<LaneReport[]>;
  readonly isLeader: boolean;
}

/** The pools' own counters: knex's (tarn) and the event store's (pg). */
interface TarnPool {
  numUsed(): number;
  numPendingAcquires(): number;
}

/**
 * What the lane gauges show at scrape time, read from the same reports /health reads (each
 * runner's `lanesReport`, the due-message backlog) plus the dead-letter tables: the gauges
 * are never behind the runtime, and nothing in the lane loops updates them.
 */
export function runtimeSnapshot(parts: {
  knex: Knex;
  pool: Pool;
  projections: Lanes;
  /** Absent from the report while no context has a reactor. */
  reactors: Lanes & { readonly names: readonly string[] };
  scheduler: { isLeader(): boolean };
  clock: () => Date;
}): () => Promise<RuntimeSnapshot> {
  const { knex, pool, projections, reactors, scheduler, clock } = parts;
  return async () => {
    const now = clock();
    const [projectionLanes, reactorLanes, due, overdue, letters, parked] = await Promise.all([
      projections.lanesReport(),
      reactors.lanesReport(),
      dueLag(knex, now),
      dueLag(knex, new Date(now.getTime() - OVERDUE_AFTER_S * 1000)),
      knex(DEAD_LETTERS_TABLE)
        .whereNull('resolved_at')
        .groupBy('projector')
        .select<Array<{ projector: string; n: number }>>('projector', knex.raw('count(*)::int AS n')),
      knex(SCHEDULE_TABLE)
        .whereNull('fired_at')
        .whereNotNull('dead_lettered_at')
        .first<{ n: number } | undefined>(knex.raw('count(*)::int AS n')),
    ]);
    const open = new Map(letters.map((row) => [row.projector, Number(row.n)]));
    const lane = (kind: LaneMetricKind, report: LaneReport, checkpoint: string) => ({
      kind,
      lane: report.name,
      lagEvents: report.lag_events,
      lagSeconds: report.lag_seconds,
      deadLetters: open.get(checkpoint) ?? 0,
    });
    const waited = due.oldestDueAt ? Math.max(0, (now.getTime() - due.oldestDueAt.getTime()) / 1000) : 0;
    const tarn = (knex.client as { pool?: TarnPool }).pool;
    return {
      lanes: [
        ...projectionLanes.map((r) => lane('projection', r, r.name)),
        ...reactorLanes.map((r) => lane('reactor', r, reactorCheckpoint(r.name))),
        {
          kind: 'scheduler',
          lane: 'scheduler',
          lagEvents: due.due,
          lagSeconds: Math.round(waited * 10) / 10,
          deadLetters: Number(parked?.n ?? 0),
        },
      ],
      kinds: [
        { kind: 'projection', subscribed: projectionLanes[0]?.subscribed ?? null, leader: projections.isLeader },
        ...(reactors.names.length > 0
          ? [{ kind: 'reactor' as const, subscribed: reactorLanes[0]?.subscribed ?? null, leader: reactors.isLeader }]
          : []),
        { kind: 'scheduler', subscribed: null, leader: scheduler.isLeader() },
      ],
      scheduled: { due: due.due, overdue: overdue.due },
      pools: [
        { pool: 'events', inUse: pool.totalCount - pool.idleCount, waiting: pool.waitingCount },
        ...(tarn ? [{ pool: 'read_models', inUse: tarn.numUsed(), waiting: tarn.numPendingAcquires() }] : []),
      ],
    };
  };
}
