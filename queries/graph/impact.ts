import type { Knex } from 'knex';
import type { VertexView } from './entities';
import { economicImpact, type Prices } from './economics';
import type { SchemaSettings } from './graph-schema';
import { hopsFrom } from './neighborhood';

export type ImpactDirection = 'both' | 'outward' | 'inward';

export interface ImpactQuery extends Prices {
  max_depth: number;
}

/** A walk stops here: more vertices than this is no longer an impact, it is the whole graph. */
export const IMPACT_VERTEX_CAP = 10_000;

const nameOf = (v: VertexView) => v.properties.name ?? v.properties.well_name ?? v.properties.api_number ?? v.entity_id;

/**
 * Impact analysis: what a change to the root reaches within `max_depth` steps. Outward
 * follows edges from→to (downstream: well → facility → pipeline route), inward walks them
 * backwards (upstream), both does both. Vertices of entity types marked `impact_terminal`
 * (operators, regulations, fields, formations: hubs shared by thousands) are reported but
 * not walked through, so a well's impact is its physical and contractual neighborhood, not
 * every well sharing its operator.
 */
export async function impactOf(
  knex: Knex,
  settings: SchemaSettings,
  namespace: string,
  root: VertexView,
  direction: ImpactDirection,
  query: ImpactQuery,
) {
  const terminal = (label: string) => settings.entityTypes.get(label)?.impact_terminal === true;
  const hopDirection = direction === 'outward' ? 'out' : direction === 'inward' ? 'in' : 'both';
  const visited = new Set([root.id]);
  const affected: Array<{
    id: string;
    label: string;
    entity_id: string;
    name: string;
    depth: number;
    edge_label: string;
    direction: 'out' | 'in';
    via: string;
  }> = [];
  const wells: VertexView[] = root.label === 'Well' ? [root] : [];
  let frontier = [root.id];
  let truncated = false;
  let depthReached = 0;
  for (let depth = 1; depth <= query.max_depth && frontier.length > 0 && !truncated; depth++) {
    const room = IMPACT_VERTEX_CAP - affected.length;
    const { hops } = await hopsFrom(knex, namespace, frontier, {
      direction: hopDirection,
      exclude: [...visited],
      limit: room + 1,
    });
    const next: string[] = [];
    for (const hop of hops) {
      const v = hop.vertex;
      if (visited.has(v.id)) continue;
      if (affected.length >= IMPACT_VERTEX_CAP) {
        truncated = true;
        break;
      }
      visited.add(v.id);
      depthReached = depth;
      affected.push({
        id: v.id,
        label: v.label,
        entity_id: v.entity_id,
        name: nameOf(v),
        depth,
        edge_label: hop.edge_label,
        direction: hop.direction,
        via: hop.via,
      });
      if (v.label === 'Well') wells.push(v);
      if (!terminal(v.label)) next.push(v.id);
    }
    frontier = next;
  }
  const byLabel: Record<string, number> = {};
  const byDepth: Record<string, number> = {};
  for (const a of affected) {
    byLabel[a.label] = (byLabel[a.label] ?? 0) + 1;
    byDepth[a.depth] = (byDepth[a.depth] ?? 0) + 1;
  }
  return {
    root: { id: root.id, label: root.label, entity_id: root.entity_id, name: nameOf(root) },
    direction,
    max_depth: query.max_depth,
    depth_reached: depthReached,
    summary: {
      total_affected: affected.length,
      by_label: byLabel,
      by_depth: byDepth,
      wells_affected: wells.filter((w) => w.id !== root.id).length,
    },
    economic_impact: economicImpact(wells, query),
    affected,
    truncated,
  };
}
