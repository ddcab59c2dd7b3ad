import type { Knex } from 'knex';
import { VERTICES } from '../../projections/graph/property-graph';
import { hopsFrom } from '../graph/neighborhood';
import { namespaceOf } from '../../streams/graph/names';
import { type EventView, eventsOfEntities } from './events';

/**
 * POST /events/{id}/correlate: events of the same entity, and of the entity's graph
 * neighbours (one hop, either direction, over the graph context's read model), whose
 * `occurred_at` lies within `window_hours` before or after the event's.
 */

export interface CorrelateOptions {
  windowHours: number;
  includeNeighbors: boolean;
  eventTypeIds?: string[];
  limit: number;
}

/** Neighbours kept per correlation: enough for a well's lease, pad, facilities and permits. */
export const MAX_NEIGHBORS = 200;

export async function graphNeighbours(
  knex: Knex,
  tenantId: string,
  entityId: string,
): Promise<{ entity_id: string; label: string; edge_label: string; direction: 'out' | 'in' }[]> {
  const namespace = namespaceOf(tenantId);
  const own = await knex(VERTICES).where({ namespace, entity_id: entityId }).select('id');
  if (own.length === 0) return [];
  const ids = own.map((r) => r.id as string);
  const { hops } = await hopsFrom(knex, namespace, ids, {
    direction: 'both',
    exclude: ids,
    withProperties: false,
    limit: MAX_NEIGHBORS,
  });
  const seen = new Set<string>();
  const out = [];
  for (const hop of hops) {
    if (hop.vertex.entity_id === entityId || seen.has(hop.vertex.entity_id)) continue;
    seen.add(hop.vertex.entity_id);
    out.push({
      entity_id: hop.vertex.entity_id,
      label: hop.vertex.label,
      edge_label: hop.edge_label,
      direction: hop.direction,
    });
  }
  return out;
}

export async function correlate(knex: Knex, tenantId: string, event: EventView, options: CorrelateOptions) {
  const t = Date.parse(event.occurred_at);
  const span = options.windowHours * 3600 * 1000;
  const window = { from: new Date(t - span).toISOString(), to: new Date(t + span).toISOString() };
  const neighbours = options.includeNeighbors ? await graphNeighbours(knex, tenantId, event.entity_id) : [];
  const byEntity = new Map(neighbours.map((n) => [n.entity_id, n]));
  const related = await eventsOfEntities(knex, tenantId, [event.entity_id, ...byEntity.keys()], window, {
    excludeId: event.id,
    eventTypeIds: options.eventTypeIds,
    limit: options.limit,
  });
  return {
    event_id: event.id,
    entity_id: event.entity_id,
    window: { from: window.from, to: window.to, hours: options.windowHours },
    neighbors: neighbours,
    related: related.map((e) => {
      const via = byEntity.get(e.entity_id);
      return {
        ...e,
        relation: e.entity_id === event.entity_id ? ('same_entity' as const) : ('graph_neighbor' as const),
        via_edge:
          e.entity_id === event.entity_id || !via
            ? null
            : { edge_label: via.edge_label, direction: via.direction, neighbor_label: via.label },
        offset_seconds: Math.round((Date.parse(e.occurred_at) - t) / 1000),
      };
    }),
  };
}
