import type { Knex } from 'knex';
import { NotFound } from '../../src/platform/domain-errors';
import { VERTICES } from '../../projections/graph/property-graph';
import { walkFrom } from './context-walk';
import { isUuid, toVertexView, type VertexView, VERTEX_COLUMNS } from './entities';
import { hopsFrom } from './neighborhood';

/** Legacy sections are flat: the vertex's properties with its graph id and label beside them. */
const flat = (v: VertexView) => ({ id: v.id, label: v.label, ...v.properties, entity_id: v.entity_id });

async function findWell(knex: Knex, namespace: string, wellApi: string): Promise<VertexView | null> {
  const query = knex(VERTICES)
    .select(VERTEX_COLUMNS)
    .where({ namespace, label: 'Well' })
    .andWhere((q) => {
      q.where('entity_id', wellApi).orWhereRaw(`properties->>'api_number' = ?`, [wellApi]);
      if (isUuid(wellApi)) q.orWhere('id', wellApi.toLowerCase());
    })
    .first();
  const row = await query;
  return row ? toVertexView(row) : null;
}

/**
 * GET /graph/context/{well_api}: the same walk as managed context, mapped into the legacy
 * sections. Infrastructure is the well's pad and facilities, the pipeline routes those
 * facilities feed, and projects connected to its lease; flaring authorizations of the well
 * and of its lease.
 */
export async function wellContext(knex: Knex, namespace: string, wellApi: string) {
  const well = await findWell(knex, namespace, wellApi);
  if (!well) throw new NotFound(`well '${wellApi}' not found`);
  const walk = await walkFrom(knex, namespace, well, 1);
  const hops = Object.values(walk.relationships).flat();
  const byLabel = (label: string) => hops.filter((h) => h.vertex.label === label).map((h) => h.vertex);
  const lease = byLabel('Lease')[0] ?? null;
  const facilities = byLabel('Facility');
  const [routes, onLease] = await Promise.all([
    hopsFrom(
      knex,
      namespace,
      facilities.map((f) => f.id),
      { direction: 'out', edgeLabels: ['FEEDS_INTO'], exclude: [well.id] },
    ),
    lease
      ? hopsFrom(knex, namespace, [lease.id], { direction: 'in', edgeLabels: ['CONNECTS_TO', 'FLARES_AT'] })
      : Promise.resolve({ hops: [] }),
  ]);
  const projects = onLease.hops.filter((h) => h.edge_label === 'CONNECTS_TO');
  const authorizations = new Map<string, VertexView>();
  for (const v of [
    ...byLabel('FlaringAuthorization'),
    ...onLease.hops.filter((h) => h.vertex.label === 'FlaringAuthorization').map((h) => h.vertex),
  ])
    authorizations.set(v.id, v);
  const infrastructure = new Map<string, VertexView>();
  for (const v of [
    ...byLabel('Wellpad'),
    ...facilities,
    ...routes.hops.map((h) => h.vertex),
    ...projects.map((h) => h.vertex),
    ...byLabel('InfrastructureProject'),
    ...byLabel('Equipment'),
    ...byLabel('Pipeline'),
  ]) {
    infrastructure.set(v.id, v);
  }
  return {
    well: flat(well),
    lease: lease ? flat(lease) : null,
    field: byLabel('Field').map(flat)[0] ?? null,
    offset_wells: (walk.relationships.OFFSET_TO ?? []).map((h) => flat(h.vertex)),
    flaring_authorizations: [...authorizations.values()].map(flat),
    compliance_deadlines: byLabel('ComplianceDeadline').map(flat),
    infrastructure: [...infrastructure.values()].map(flat),
  };
}
