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
 * rows. Two tables with the same rows have the same checksum whatever their physical order.
 * Surrogate keys drawn from a sequence are left out: a transaction rolled back under a fault
 * still consumes sequence values, so a replay numbers the same rows differently.
 */
export async function readModelChecksums(knex: Knex): Promise<Map<string, string>> {
  const sums = new Map<string, string>();
  for (const projector of allProjectors()) {
    for (const table of projector.tables) {
      const { rows: serial } = await knex.raw(
        `SELECT column_name FROM information_schema.columns
          WHERE table_schema = current_schema() AND table_name = ? AND (column_default LIKE 'nextval(%' OR is_identity = 'YES')`,
        [table],
      );
      const without = serial.map((c: { column_name: string }) => c.column_name);
      const { rows } = await knex.raw(
        `SELECT count(*)::int AS n, md5(coalesce(string_agg(r, '' ORDER BY r), '')) AS digest
           FROM (SELECT md5((to_jsonb(t) - ?::text[])::text) AS r FROM ?? t) AS rows`,
        [without, table],
      );
      sums.set(`${projector.name}/${table}`, `${rows[0].n}:${rows[0].digest}`);
    }
  }
  return sums;
}

/** Unresolved dead letters by lane: after a run every one is an event a fault made unhealthy. */
export async function openDeadLetters(
  knex: Knex,
): Promise<Array<{ projector: string; event_type: string; error: string }>> {
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
    await rebuildProjections(
      infrastructure,
      projectors,
      projectors.map((p) => p.name),
      true,
    );
    const after = await readModelChecksums(infrastructure.db.knex);
    const differing = [...before].filter(([table, sum]) => after.get(table) !== sum).map(([table]) => table);
    return { tables: before.size, differing };
  } finally {
    await infrastructure.close();
  }
}
