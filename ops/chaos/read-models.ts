import type { Knex } from 'knex';
import { contexts } from '../../src/contexts';
import { loadConfig } from '../../src/platform/config';
import { openInfrastructure } from '../../src/platform/infra/infrastructure';
import { createLogger } from '../../src/platform/infra/logger';
import { DEAD_LETTERS_TABLE } from '../../src/platform/projection-runner/dead-letters';
import { scheduleProjector } from '../../src/platform/scheduling/schedule';
import { rebuildProjections } from '../projections';

export const allProjectors = () => [scheduleProjector, ...contexts.flatMap((c) => c.projectors ?? [])];

/**
 * One checksum per read-model table: its row count and an order-independent digest of its
 * rows' text. Two tables with the same rows have the same checksum whatever their physical order.
 */
export async function readModelChecksums(knex: Knex): Promise<Map<string, string>> {
  const sums = new Map<string, string>();
  for (const projector of allProjectors()) {
    for (const table of projector.tables) {
      const { rows } = await knex.raw(
        `SELECT count(*)::int AS n, md5(coalesce(string_agg(md5(t::text), '' ORDER BY md5(t::text)), '')) AS digest FROM ?? t`,
        [table],
      );
      sums.set(`${projector.name}/${table}`, `${rows[0].n}:${rows[0].digest}`);
    }
  }
  return sums;
}

/** Unresolved dead letters by lane: after a run every one is an event a fault made unhealthy. */
export async function openDeadLetters(knex: Knex): Promise<Array<{ projector: string; event_type: string; error: string }>> {
  return knex(DEAD_LETTERS_TABLE).whereNull('resolved_at').select('projector', 'event_type', 'error');
}

/**
 * Drops every read model and replays the whole log into it, as `npm run ops -- projections
 * rebuild --all` does, then compares each table with what the live lanes had built.
 */
export async function compareWithRebuild(env: Record<string, string>, before: Map<string, string>) {
  const infrastructure = await openInfrastructure(loadConfig(env), createLogger('warn'));
  try {
    const projectors = allProjectors();
    await rebuildProjections(infrastructure, projectors, projectors.map((p) => p.name), true);
    const after = await readModelChecksums(infrastructure.db.knex);
    const differing = [...before].filter(([table, sum]) => after.get(table) !== sum).map(([table]) => table);
    return { tables: before.size, differing };
  } finally {
    await infrastructure.close();
  }
}
