import type { Knex } from 'knex';
import { EDGES, VERTICES } from '../../projections/graph/property-graph';
import { ASSESSMENTS, CELLS } from '../../projections/compliance/tables';
import type { GraphMark } from '../../streams/compliance/assessment';

/** Timestamps keep their microseconds: a JS Date would round them and miss a change. */
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** The tenant's graph read model as the packs are about to read it. */
export async function graphMark(knex: Knex, namespace: string): Promise<GraphMark> {
  const {
    rows: [m],
  } = await knex.raw(
    `SELECT v.vertices, v."verticesAt", e.edges, e."edgesAt"
       FROM (SELECT count(*)::int AS vertices, ${iso('max(updated_at)')} AS "verticesAt" FROM ${VERTICES} WHERE namespace = :namespace) v,
            (SELECT count(*)::int AS edges, ${iso('max(created_at)')} AS "edgesAt" FROM ${EDGES} WHERE namespace = :namespace) e`,
    { namespace },
  );
  return { vertices: m.vertices, edges: m.edges, verticesAt: m.verticesAt, edgesAt: m.edgesAt };
}

export interface LastAssessment {
  assessedOn: string;
  status: string;
  domains: string[];
  entities: number;
  cells: number;
  graph: GraphMark;
}

/** The newest portfolio assessment that recorded the graph it read (null: none yet). */
export async function lastPortfolioAssessment(knex: Knex, tenantId: string): Promise<LastAssessment | null> {
  const row = await knex(ASSESSMENTS)
    .where({ tenant_id: tenantId, scope: 'portfolio' })
    .whereNotNull('graph')
    .orderBy('recorded_at', 'desc')
    .first();
  if (!row) return null;
  return {
    assessedOn: row.assessed_on,
    status: row.status,
    domains: row.domains,
    entities: row.entities,
    cells: row.cells,
    graph: row.graph,
  };
}

/**
 * The assessed vertices whose facts may have changed since `mark`: every vertex changed or
 * created since, and both ends of every edge created since, are the seeds; a pack reads facts
 * at most two edges away from the entity it assesses, the middle one itself an assessed
 * entity (an authorization flares at a lease its wells are located in; a permit is part of a
 * well its operator's P-5 renewal depends on), so the seeds, their neighbors, and the
 * neighbors of the assessed ones among those are re-evaluated. `deleted`: a vertex or an edge
 * was removed since (the graph has fewer than `mark` plus what was added), which only a whole
 * re-assessment judges.
 */
export async function changedSince(
  knex: Knex,
  namespace: string,
  mark: GraphMark,
  now: GraphMark,
  labels: readonly string[],
): Promise<{ deleted: boolean; vertexIds: string[] }> {
  // Equal marks: any creation or change would have moved a newest time, an edge is only deleted with its vertex.
  if (
    now.vertices === mark.vertices &&
    now.edges === mark.edges &&
    now.verticesAt === mark.verticesAt &&
    now.edgesAt === mark.edgesAt
  )
    return { deleted: false, vertexIds: [] };
  const bindings = { namespace, vat: mark.verticesAt, eat: mark.edgesAt, labels: [...labels] };
  const vChanged = `(CAST(:vat AS timestamptz) IS NULL OR v.updated_at > CAST(:vat AS timestamptz))`;
  const eNew = `(CAST(:eat AS timestamptz) IS NULL OR e.created_at > CAST(:eat AS timestamptz))`;
  const {
    rows: [added],
  } = await knex.raw(
    `SELECT (SELECT count(*)::int FROM ${VERTICES} v WHERE v.namespace = :namespace AND ${vChanged.replace('v.updated_at', 'v.created_at')}) AS vertices,
            (SELECT count(*)::int FROM ${EDGES} e WHERE e.namespace = :namespace AND ${eNew}) AS edges`,
    bindings,
  );
  if (now.vertices - added.vertices < mark.vertices || now.edges - added.edges < mark.edges)
    return { deleted: true, vertexIds: [] };
  if (added.edges === 0 && now.verticesAt === mark.verticesAt) return { deleted: false, vertexIds: [] };
  const neighbors = (from: string) =>
    `SELECT e.to_id AS id FROM ${EDGES} e JOIN ${from} s ON e.from_id = s.id WHERE e.namespace = :namespace
     UNION SELECT e.from_id FROM ${EDGES} e JOIN ${from} s ON e.to_id = s.id WHERE e.namespace = :namespace`;
  const { rows } = await knex.raw(
    `WITH seeds AS MATERIALIZED (
        SELECT v.id FROM ${VERTICES} v WHERE v.namespace = :namespace AND ${vChanged}
        UNION SELECT e.from_id FROM ${EDGES} e WHERE e.namespace = :namespace AND ${eNew}
        UNION SELECT e.to_id FROM ${EDGES} e WHERE e.namespace = :namespace AND ${eNew}),
      hop1 AS MATERIALIZED (SELECT id FROM seeds UNION ${neighbors('seeds')}),
      middle AS MATERIALIZED (SELECT h.id FROM hop1 h JOIN ${VERTICES} v ON v.id = h.id WHERE v.label = ANY(CAST(:labels AS text[]))),
      reach AS (SELECT id FROM hop1 UNION ${neighbors('middle')})
     SELECT v.id FROM reach r JOIN ${VERTICES} v ON v.id = r.id WHERE v.namespace = :namespace AND v.label = ANY(CAST(:labels AS text[]))`,
    bindings,
  );
  return { deleted: false, vertexIds: (rows as Array<{ id: string }>).map((r) => r.id) };
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
