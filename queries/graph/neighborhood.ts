import type { Knex } from 'knex';
import { EDGES, VERTICES } from '../../projections/graph/property-graph';
import type { Properties } from '../../streams/graph/properties';
import type { VertexView } from './entities';

/** A vertex reached over one edge from a frontier vertex. */
export interface Hop {
  edge_id: string;
  edge_label: string;
  /** Relative to `via`: `out` follows the edge from→to, `in` walks it backwards. */
  direction: 'out' | 'in';
  edge_properties: Properties;
  via: string;
  vertex: VertexView;
}

export interface HopQuery {
  direction: 'out' | 'in' | 'both';
  /** Vertices never returned again (already visited). */
  exclude?: string[];
  /** Keep at most this many hops per edge label (ordered by the neighbor's entity_id). */
  perLabel?: number;
  /** Only these edge labels. */
  edgeLabels?: string[];
  /** Stop after this many hops overall. */
  limit?: number;
  /** Neighbor columns: `properties` can be left out when only ids and labels matter. */
  withProperties?: boolean;
}

export interface HopResult {
  hops: Hop[];
  /** Hops per edge label before `perLabel` cut them. */
  totals: Record<string, number>;
}

/** One breadth step of a walk, in a single statement over the (namespace, from/to) indexes. */
export async function hopsFrom(knex: Knex, namespace: string, frontier: string[], query: HopQuery): Promise<HopResult> {
  if (frontier.length === 0) return { hops: [], totals: {} };
  const props = query.withProperties === false ? `'{}'::jsonb` : 'v.properties';
  const parts: string[] = [];
  const bindings: Knex.RawBinding[] = [];
  const side = (dir: 'out' | 'in') => {
    const [self, other] = dir === 'out' ? ['from_id', 'to_id'] : ['to_id', 'from_id'];
    let sql = `SELECT e.id AS edge_id, e.label AS edge_label, '${dir}' AS direction, e.properties AS edge_properties, e.${self} AS via,
                      v.id, v.label, v.entity_id, ${props} AS properties
                 FROM ${EDGES} e JOIN ${VERTICES} v ON v.id = e.${other}
                WHERE e.namespace = ? AND e.${self} = ANY(?::uuid[])`;
    bindings.push(namespace, frontier);
    if (query.edgeLabels) {
      sql += ' AND e.label = ANY(?::text[])';
      bindings.push(query.edgeLabels);
    }
    parts.push(sql);
  };
  if (query.direction !== 'in') side('out');
  if (query.direction !== 'out') side('in');
  const exclude = query.exclude ?? [];
  let sql = `SELECT x.* FROM (${parts.join(' UNION ALL ')}) x`;
  if (exclude.length > 0) {
    sql += ' WHERE x.id <> ALL(?::uuid[])';
    bindings.push(exclude);
  }
  if (query.perLabel) {
    // Only a per-label cap needs the window; plain walks (impact, tree) skip its sort.
    sql = `SELECT * FROM (SELECT y.*, row_number() OVER (PARTITION BY y.edge_label ORDER BY y.entity_id, y.id, y.edge_id) AS rn,
                                 count(*) OVER (PARTITION BY y.edge_label) AS total FROM (${sql}) y) z
            WHERE z.rn <= ? ORDER BY z.edge_label, z.rn`;
    bindings.push(query.perLabel);
  }
  if (query.limit) {
    sql += ' LIMIT ?';
    bindings.push(query.limit);
  }
  const { rows } = await knex.raw(sql, bindings);
  const totals: Record<string, number> = {};
  const hops: Hop[] = rows.map((r: any) => {
    totals[r.edge_label] = r.total === undefined ? (totals[r.edge_label] ?? 0) + 1 : Number(r.total);
    return {
      edge_id: r.edge_id,
      edge_label: r.edge_label,
      direction: r.direction,
      edge_properties: r.edge_properties,
      via: r.via,
      vertex: { id: r.id, label: r.label, entity_id: r.entity_id, properties: r.properties },
    };
  });
  return { hops, totals };
}
