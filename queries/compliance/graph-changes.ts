import type { Knex } from 'knex';
import { EDGES, propertyGraphProjector, REMOVALS, VERTICES } from '../../projections/graph/property-graph';
import { CELLS } from '../../projections/compliance/tables';
import type { GraphMark } from '../../streams/compliance/assessment';
import {
  comparePositions,
  type EventStore,
  type Position,
  positionToString,
} from '../../src/platform/eventstore/types';
import { readCheckpoint } from '../../src/platform/projection-runner/checkpoints';
import { INLINE_STATUS } from '../../src/platform/projection-runner/runner';

/**
 * The tenant's graph read model as the packs are about to read it: the log position it
 * stands at, and its size. The position is the store's visibility horizon taken first: every
 * event at or before it belongs to a transaction already ended, so the reads that follow see
 * all of them (the graph projector writes its rows in the event's own transaction), and
 * whatever they do not see lies after it. A commit that lands late with a lower position than
 * events seen before is still after the horizon, never skipped. Where the graph projector is a
 * lane rather than inline (an EventStoreDB log), its rows trail the log: the mark is then its
 * checkpoint when that is behind the horizon, since a lane applies the log in order.
 */
export async function graphMark(
  knex: Knex,
  store: Pick<EventStore, 'headPosition'>,
  namespace: string,
): Promise<GraphMark> {
  const [head, graphLane] = await Promise.all([
    store.headPosition(),
    readCheckpoint(knex, propertyGraphProjector.name),
  ]);
  const trailing = graphLane && graphLane.status !== INLINE_STATUS && comparePositions(graphLane.position, head) < 0;
  const position = positionToString(trailing ? graphLane.position : head);
  const {
    rows: [m],
  } = await knex.raw(
    `SELECT (SELECT count(*)::int FROM ${VERTICES} WHERE namespace = :namespace) AS vertices,
            (SELECT count(*)::int FROM ${EDGES} WHERE namespace = :namespace) AS edges`,
    { namespace },
  );
  return { position, vertices: m.vertices, edges: m.edges };
}

const after = (alias: string) =>
  `(${alias}.log_commit, ${alias}.log_prepare) > (CAST(:commit AS bigint), CAST(:prepare AS bigint))`;

/**
 * The assessed vertices whose facts may have changed after log position `since`: every
 * vertex written after it, both ends of every edge written after it, and the surviving
 * neighbors of every vertex deleted after it are the seeds; a pack reads facts at most two
 * edges away from the entity it assesses, the middle one itself an assessed entity (an
 * authorization flares at a lease its wells are located in; a permit is part of a well its
 * operator's P-5 renewal depends on), so the seeds, their neighbors, and the neighbors of the
 * assessed ones among those are re-evaluated. `removed`: the entities of the assessed labels
 * deleted after it (their verdicts leave the portfolio's counts).
 */
export async function changedSince(
  knex: Knex,
  namespace: string,
  since: Position,
  labels: readonly string[],
): Promise<{ vertexIds: string[]; removed: string[] }> {
  const bindings = {
    namespace,
    commit: String(since.commit),
    prepare: String(since.prepare),
    labels: [...labels],
  };
  const neighbors = (from: string) =>
    `SELECT e.to_id AS id FROM ${EDGES} e JOIN ${from} s ON e.from_id = s.id WHERE e.namespace = :namespace
     UNION SELECT e.from_id FROM ${EDGES} e JOIN ${from} s ON e.to_id = s.id WHERE e.namespace = :namespace`;
  const [{ rows }, { rows: gone }] = await Promise.all([
    knex.raw(
      `WITH seeds AS MATERIALIZED (
          SELECT v.id FROM ${VERTICES} v WHERE v.namespace = :namespace AND ${after('v')}
          UNION SELECT e.from_id FROM ${EDGES} e WHERE e.namespace = :namespace AND ${after('e')}
          UNION SELECT e.to_id FROM ${EDGES} e WHERE e.namespace = :namespace AND ${after('e')}
          UNION SELECT r.vertex_id FROM ${REMOVALS} r WHERE r.namespace = :namespace AND NOT r.removed AND ${after('r')}),
        hop1 AS MATERIALIZED (SELECT id FROM seeds UNION ${neighbors('seeds')}),
        middle AS MATERIALIZED (SELECT h.id FROM hop1 h JOIN ${VERTICES} v ON v.id = h.id WHERE v.label = ANY(CAST(:labels AS text[]))),
        reach AS (SELECT id FROM hop1 UNION ${neighbors('middle')})
       SELECT v.id FROM reach r JOIN ${VERTICES} v ON v.id = r.id WHERE v.namespace = :namespace AND v.label = ANY(CAST(:labels AS text[]))`,
      bindings,
    ),
    knex.raw(
      `SELECT DISTINCT r.entity_id FROM ${REMOVALS} r
        WHERE r.namespace = :namespace AND r.removed AND r.label = ANY(CAST(:labels AS text[])) AND ${after('r')}`,
      bindings,
    ),
  ]);
  return {
    vertexIds: (rows as Array<{ id: string }>).map((r) => r.id),
    removed: (gone as Array<{ entity_id: string }>).map((r) => r.entity_id),
  };
}

/**
 * The assessed vertices of entities with a current verdict that stops holding on or before
 * `today` without new facts (its `changes_on`), or that does not say when (recorded before
 * verdicts did): a later day's run re-evaluates these and the ones near a change, no others.
 */
export async function dueSince(
  knex: Knex,
  tenantId: string,
  namespace: string,
  domains: readonly string[],
  labels: readonly string[],
  today: string,
): Promise<string[]> {
  const { rows } = await knex.raw(
    `SELECT v.id FROM ${VERTICES} v
      WHERE v.namespace = :namespace AND v.label = ANY(CAST(:labels AS text[]))
        AND v.entity_id IN (
          SELECT c.entity_id FROM ${CELLS} c
           WHERE c.tenant_id = :tenantId AND c.valid_to IS NULL AND c.domain = ANY(CAST(:domains AS text[]))
             AND (NOT jsonb_exists(c.facts, 'changes_on') OR c.facts->>'changes_on' <= :today))`,
    { namespace, tenantId, labels: [...labels], domains: [...domains], today },
  );
  return (rows as Array<{ id: string }>).map((r) => r.id);
}

/** Current verdict fingerprints and counts per entity (all of the tenant's, or some). */
export async function currentVerdicts(
  knex: Knex,
  tenantId: string,
  domains: readonly string[],
  entityIds: readonly string[] | null,
): Promise<Map<string, Map<string, string>>> {
  const query = knex(CELLS)
    .select('entity_id', 'domain', 'fingerprint')
    .where({ tenant_id: tenantId })
    .whereNull('valid_to')
    .whereIn('domain', [...domains]);
  if (entityIds) query.andWhere(knex.raw('entity_id = ANY(?::text[])', [[...entityIds]]));
  const out = new Map<string, Map<string, string>>();
  for (const r of (await query) as Array<{ entity_id: string; domain: string; fingerprint: string }>) {
    let cells = out.get(r.entity_id);
    if (!cells) out.set(r.entity_id, (cells = new Map()));
    cells.set(r.domain, r.fingerprint);
  }
  return out;
}
