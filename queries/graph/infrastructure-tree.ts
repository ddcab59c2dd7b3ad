import type { Knex } from 'knex';
import type { VertexView } from './entities';
import { monthlyVolumes } from './economics';
import type { SchemaSettings } from './graph-schema';
import { hopsFrom } from './neighborhood';

export interface TreeNode {
  id: string;
  label: string;
  entity_id: string;
  name: string;
  /** How this node hangs off its parent (absent on the root). */
  edge_label?: string;
  direction?: 'out' | 'in';
  properties: Record<string, string>;
  /** Wells in this subtree and their latest monthly volumes. */
  rollup: { wells: number; oil_bbls_per_month: number; gas_mcf_per_month: number };
  children: TreeNode[];
}

export const TREE_VERTEX_CAP = 5000;

const nameOf = (v: VertexView) => v.properties.name ?? v.properties.well_name ?? v.properties.api_number ?? v.entity_id;

/**
 * GET /impact/tree: the physical network around a root (pads, wells, facilities, pipeline
 * routes, projects) as a spanning tree over the relationship types marked `infrastructure`,
 * each vertex placed under the vertex it was first reached from, with production rolled up.
 */
export async function infrastructureTree(
  knex: Knex,
  settings: SchemaSettings,
  namespace: string,
  root: VertexView,
  maxDepth: number,
) {
  const edgeLabels = [...settings.relationshipTypes.values()].filter((t) => t.infrastructure).map((t) => t.key);
  const make = (v: VertexView, hop?: { edge_label: string; direction: 'out' | 'in' }): TreeNode => ({
    id: v.id,
    label: v.label,
    entity_id: v.entity_id,
    name: nameOf(v),
    ...(hop ? { edge_label: hop.edge_label, direction: hop.direction } : {}),
    properties: v.properties,
    rollup: { wells: 0, oil_bbls_per_month: 0, gas_mcf_per_month: 0 },
    children: [],
  });
  const top = make(root);
  const nodes = new Map([[root.id, top]]);
  let frontier = [root.id];
  let truncated = false;
  for (let depth = 1; depth <= maxDepth && frontier.length > 0 && !truncated; depth++) {
    const { hops } = await hopsFrom(knex, namespace, frontier, {
      direction: 'both',
      edgeLabels,
      exclude: [...nodes.keys()],
      limit: TREE_VERTEX_CAP + 1,
    });
    const next: string[] = [];
    for (const hop of hops) {
      if (nodes.has(hop.vertex.id)) continue;
      if (nodes.size >= TREE_VERTEX_CAP) {
        truncated = true;
        break;
      }
      const node = make(hop.vertex, hop);
      nodes.get(hop.via)!.children.push(node);
      nodes.set(node.id, node);
      next.push(node.id);
    }
    frontier = next;
  }
  const roll = (node: TreeNode): TreeNode['rollup'] => {
    const own = node.label === 'Well' ? monthlyVolumes(node.properties) : { oil_bbls: 0, gas_mcf: 0 };
    const total = {
      wells: node.label === 'Well' ? 1 : 0,
      oil_bbls_per_month: own.oil_bbls,
      gas_mcf_per_month: own.gas_mcf,
    };
    for (const child of node.children) {
      const r = roll(child);
      total.wells += r.wells;
      total.oil_bbls_per_month += r.oil_bbls_per_month;
      total.gas_mcf_per_month += r.gas_mcf_per_month;
    }
    node.rollup = total;
    return total;
  };
  roll(top);
  return { root: top, vertices: nodes.size, max_depth: maxDepth, edge_labels: edgeLabels.sort(), truncated };
}
