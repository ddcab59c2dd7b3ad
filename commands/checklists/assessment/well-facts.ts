import type { Knex } from 'knex';
import { walkFrom } from '../../../queries/graph/context-walk';
import { findVertex, type VertexView } from '../../../queries/graph/entities';
import { hopsFrom } from '../../../queries/graph/neighborhood';
import { namespaceOf } from '../../../streams/graph/names';
import type { Properties } from '../../../streams/graph/properties';

/**
 * What an assessment knows about a well, read from the knowledge graph's read model: the
 * well's own properties (monthly production, dispositions, 12-month history), its lease,
 * field, operator, formations, permits, flaring authorizations (of the well and of its
 * lease), flaring events, deadlines and offset wells.
 */
export interface OffsetWell {
  vertex: VertexView;
  distanceFt: number | null;
  sameHorizon: boolean;
}

export interface WellFacts {
  well: VertexView;
  lease: Properties | null;
  field: Properties | null;
  operator: Properties | null;
  formations: Properties[];
  permits: VertexView[];
  authorizations: VertexView[];
  flaringEvents: VertexView[];
  deadlines: VertexView[];
  offsets: OffsetWell[];
  /** Regulations the graph says govern the well (Rule 32, Rule 37…). */
  regulations: string[];
}

export interface MonthlyProduction {
  period: string;
  oil_bbls: number;
  gas_mcf: number;
}

export const num = (value: string | undefined | null): number | null => {
  if (value === undefined || value === null || value.trim() === '') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
};

export function productionHistory(well: Properties): MonthlyProduction[] {
  try {
    const parsed = JSON.parse(well.production_history_12m ?? '[]');
    if (!Array.isArray(parsed)) return [];
    return parsed
      .filter((m) => m && typeof m.period === 'string')
      .map((m) => ({ period: m.period, oil_bbls: Number(m.oil_bbls) || 0, gas_mcf: Number(m.gas_mcf) || 0 }))
      .sort((a, b) => a.period.localeCompare(b.period));
  } catch {
    return [];
  }
}

/** The checklist entity (a Well, or a Lease for a lease's Form PR) and its neighbourhood; `well` holds the entity. */
export async function loadWellFacts(
  knex: Knex,
  tenantId: string,
  entityId: string,
  label = 'Well',
): Promise<WellFacts | null> {
  const namespace = namespaceOf(tenantId);
  const well = await findVertex(knex, namespace, label, entityId);
  if (!well) return null;
  const walk = await walkFrom(knex, namespace, well, 1);
  const hops = Object.values(walk.relationships).flat();
  const labelled = (label: string) => hops.filter((h) => h.vertex.label === label);
  const leaseHop = labelled('Lease')[0] ?? null;
  const authorizations = new Map<string, VertexView>();
  for (const h of labelled('FlaringAuthorization')) authorizations.set(h.vertex.id, h.vertex);
  if (leaseHop) {
    const onLease = await hopsFrom(knex, namespace, [leaseHop.vertex.id], {
      direction: 'in',
      edgeLabels: ['FLARES_AT'],
    });
    for (const h of onLease.hops)
      if (h.vertex.label === 'FlaringAuthorization') authorizations.set(h.vertex.id, h.vertex);
  }
  return {
    well,
    lease: leaseHop?.vertex.properties ?? null,
    field: labelled('Field')[0]?.vertex.properties ?? null,
    operator: labelled('Operator')[0]?.vertex.properties ?? null,
    formations: labelled('Formation').map((h) => h.vertex.properties),
    permits: labelled('Permit').map((h) => h.vertex),
    authorizations: [...authorizations.values()],
    flaringEvents: labelled('FlaringEvent').map((h) => h.vertex),
    deadlines: labelled('ComplianceDeadline').map((h) => h.vertex),
    offsets: (walk.relationships.OFFSET_TO ?? []).map((h) => ({
      vertex: h.vertex,
      distanceFt: num(h.edge_properties.distance_ft),
      sameHorizon: h.edge_properties.same_horizon !== 'false',
    })),
    regulations: (walk.relationships.GOVERNED_BY ?? []).map((h) => h.vertex.properties.name ?? h.vertex.entity_id),
  };
}
