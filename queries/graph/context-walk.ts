import type { Knex } from 'knex';
import type { VertexView } from './entities';
import { type Hop, hopsFrom } from './neighborhood';

/** The structured limit per relationship. */
export const STRUCTURED_PER_RELATIONSHIP = 1000;

export interface Related extends Hop {
  depth: number;
}

export interface Walk {
  root: VertexView;
  /** Grouped by edge label, nearest first, at most STRUCTURED_PER_RELATIONSHIP each. */
  relationships: Record<string, Related[]>;
  /** How many relationships each edge label has in the walk (before the cap). */
  totals: Record<string, number>;
}

/**
 * The tenant-scoped walk behind context assembly: `depth` breadth steps in both directions,
 * each vertex visited once, neighbors' properties inline.
 */
export async function walkFrom(
  knex: Knex,
  namespace: string,
  root: VertexView,
  depth: number,
  perRelationship = STRUCTURED_PER_RELATIONSHIP,
): Promise<Walk> {
  const relationships: Record<string, Related[]> = {};
  const totals: Record<string, number> = {};
  const visited = new Set([root.id]);
  let frontier = [root.id];
  for (let level = 1; level <= depth && frontier.length > 0; level++) {
    const { hops, totals: levelTotals } = await hopsFrom(knex, namespace, frontier, {
      direction: 'both',
      exclude: [...visited],
      perLabel: perRelationship,
    });
    const next: string[] = [];
    for (const [label, total] of Object.entries(levelTotals)) totals[label] = (totals[label] ?? 0) + total;
    for (const hop of hops) {
      const group = (relationships[hop.edge_label] ??= []);
      if (group.length < perRelationship) group.push({ ...hop, depth: level });
      if (!visited.has(hop.vertex.id)) {
        visited.add(hop.vertex.id);
        next.push(hop.vertex.id);
      }
    }
    frontier = next;
  }
  return { root, relationships, totals };
}
