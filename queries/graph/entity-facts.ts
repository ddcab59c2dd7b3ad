import type { Knex } from 'knex';
import { EDGES, VERTICES } from '../../projections/graph/property-graph';
import { findVertex, type VertexView } from './entities';

/**
 * The facts people ask about a well, a lease or an operator, from the knowledge graph's read
 * model: who operates it, its lease and field, county, status, the latest filings on record
 * (the month the latest Form PR reports, the latest well tests, the P-5 renewal), and what it
 * holds (an operator's wells and leases, a lease's wells).
 */
export interface EntityFacts {
  entity: { vertex_id: string; label: string; entity_id: string; name: string };
  operator: { entity_id: string; name: string } | null;
  lease: { entity_id: string; name: string } | null;
  field: { entity_id: string; name: string } | null;
  county: string | null;
  district: string | null;
  status: string | null;
  well_type: string | null;
  api_number: string | null;
  /** The latest filing of each kind on record, newest first. */
  filings: Array<{ form: string; what: string; date: string }>;
  wells: number | null;
  leases: number | null;
}

const nameOf = (v: Pick<VertexView, 'entity_id' | 'properties'>) =>
  String(v.properties.name ?? v.properties.well_name ?? v.entity_id);
const ref = (v: VertexView | undefined) => (v ? { entity_id: v.entity_id, name: nameOf(v) } : null);

/** Filings a vertex's properties record: [property, form, what it is]. */
const FILED: Array<[string, string, string]> = [
  ['form_pr_period', 'Form PR', 'production report for'],
  ['last_w10_test_date', 'W-10', 'oil well status test on'],
  ['last_g10_test_date', 'G-10', 'gas well status test on'],
  ['last_h15_test_date', 'H-15', 'fluid level test on'],
  ['p5_last_renewed', 'P-5', 'organization report renewed on'],
];

export async function entityFacts(
  knex: Knex,
  namespace: string,
  label: string,
  entityId: string,
): Promise<EntityFacts | null> {
  const vertex = await findVertex(knex, namespace, label, entityId);
  if (!vertex) return null;
  const { rows } = await knex.raw(
    `SELECT e.label AS edge, CASE WHEN e.from_id = ? THEN 'out' ELSE 'in' END AS direction, v.id, v.label, v.entity_id, v.properties
       FROM ${EDGES} e JOIN ${VERTICES} v ON v.id = CASE WHEN e.from_id = ? THEN e.to_id ELSE e.from_id END
      WHERE e.namespace = ? AND (e.from_id = ? OR e.to_id = ?) AND e.label IN ('OPERATED_BY', 'LOCATED_IN')
      ORDER BY v.entity_id`,
    [vertex.id, vertex.id, namespace, vertex.id, vertex.id],
  );
  const hops = rows as Array<VertexView & { edge: string; direction: 'in' | 'out' }>;
  const out = (edge: string, to: string) =>
    hops.find((h) => h.direction === 'out' && h.edge === edge && h.label === to);
  const inCount = (edge: string, from: string) =>
    hops.filter((h) => h.direction === 'in' && h.edge === edge && h.label === from).length;
  const p = vertex.properties;
  const filings = FILED.filter(([prop]) => p[prop]).map(([prop, form, what]) => ({
    form,
    what,
    date: String(p[prop]).slice(0, 10),
  }));
  filings.sort((a, b) => b.date.localeCompare(a.date));
  return {
    entity: { vertex_id: vertex.id, label: vertex.label, entity_id: vertex.entity_id, name: nameOf(vertex) },
    operator: ref(out('OPERATED_BY', 'Operator')),
    lease: ref(out('LOCATED_IN', 'Lease')),
    field: ref(out('LOCATED_IN', 'Field')),
    county: p.county ? String(p.county) : null,
    district: p.district ? String(p.district) : null,
    status: p.status ? String(p.status) : p.p5_status ? String(p.p5_status) : null,
    well_type: p.well_type ? String(p.well_type) : p.oil_gas_code ? (p.oil_gas_code === 'O' ? 'oil' : 'gas') : null,
    api_number: p.api_number ? String(p.api_number) : null,
    filings,
    wells:
      vertex.label === 'Operator'
        ? inCount('OPERATED_BY', 'Well')
        : vertex.label === 'Lease'
          ? inCount('LOCATED_IN', 'Well')
          : null,
    leases: vertex.label === 'Operator' ? inCount('OPERATED_BY', 'Lease') : null,
  };
}
