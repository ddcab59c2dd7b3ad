import type { Knex } from 'knex';
import { EDGES, VERTICES } from '../../projections/graph/property-graph';
import type { Properties } from '../../streams/graph/properties';

/** A vertex next to an assessed one, with the properties of the edge between them. */
export interface Neighbor {
  vertexId: string;
  entityId: string;
  label: string;
  properties: Properties;
  edge: Properties;
}

export interface GraphVertexRow {
  id: string;
  entity_id: string;
  label: string;
  properties: Properties;
}

/**
 * Set-based reads of one tenant's property graph (the graph context's read model) for the
 * compliance packs: one query per relationship for the whole portfolio, never one per well.
 */
export interface GraphFacts {
  namespace: string;
  /** Vertices of a label (all, the one with this entity_id, or those of these ids), with their properties (at least the named ones). */
  vertices(
    label: string,
    fields: readonly string[],
    only?: { entityId?: string; vertexIds?: readonly string[] },
  ): Promise<GraphVertexRow[]>;
  /**
   * Neighbors keyed by the assessed vertex id: `in` follows edges pointing at the vertex
   * (FlaringAuthorization -FLARES_AT-> Well), `out` edges leaving it, `both` either way.
   */
  neighbors(
    vertexIds: string[] | null,
    edgeLabel: string,
    ofLabel: string,
    neighborLabel: string,
    direction: 'in' | 'out' | 'both',
    fields: readonly string[],
  ): Promise<Map<string, Neighbor[]>>;
}

/**
 * Only the named properties leave the database: a Well carries ~30 properties and its
 * 12-month history, and shipping all of them for 20,000 wells and their offsets cost seconds.
 */
function pick(knex: Knex, column: string, fields: readonly string[]): Knex.Raw {
  if (fields.length === 0) return knex.raw(`'{}'::jsonb`);
  return knex.raw(
    `jsonb_strip_nulls(jsonb_build_object(${fields.map(() => `?::text, ${column}->?`).join(', ')}))`,
    fields.flatMap((f) => [f, f]),
  );
}

/**
 * A neighbor lookup: one select per direction, each written from its select list on, so the
 * statement it goes in puts the lookup's tag (`part`) first.
 */
interface Lookup {
  selects: string[];
  bindings: Knex.RawBinding[];
  resolve(rows: NeighborRow[]): void;
  reject(error: unknown): void;
}

interface NeighborRow {
  part: number;
  self: string;
  id: string;
  entity_id: string;
  label: string;
  properties: Properties;
  edge: Properties;
}

/**
 * Lookups for at most this many vertices, asked in the same tick (a pack's relationships, the
 * packs of one entity's assessment, an agent tool's question about one well), go as one
 * statement: for a few vertices the round trip is the cost. Larger ones (a portfolio's) run
 * side by side on the pool, where the database's time is the cost.
 */
const GATHERED_UP_TO = 50;

export function graphFacts(knex: Knex, namespace: string): GraphFacts {
  let gathered: Lookup[] = [];

  async function run(lookups: Lookup[]): Promise<void> {
    const sql = lookups.flatMap((l, part) => l.selects.map((select) => `SELECT ${part}::int AS part, ${select}`));
    try {
      const { rows } = await knex.raw(
        sql.join('\n UNION ALL\n'),
        lookups.flatMap((l) => l.bindings),
      );
      const byPart = lookups.map((): NeighborRow[] => []);
      for (const row of rows as NeighborRow[]) byPart[row.part].push(row);
      lookups.forEach((l, i) => l.resolve(byPart[i]));
    } catch (error) {
      for (const l of lookups) l.reject(error);
    }
  }

  function lookup(selects: string[], bindings: Knex.RawBinding[], gather: boolean): Promise<NeighborRow[]> {
    return new Promise((resolve, reject) => {
      const asked: Lookup = { selects, bindings, resolve, reject };
      if (!gather) return void run([asked]);
      gathered.push(asked);
      if (gathered.length > 1) return;
      queueMicrotask(() => {
        const batch = gathered;
        gathered = [];
        void run(batch);
      });
    });
  }

  return {
    namespace,
    async vertices(label, fields, only = {}) {
      // The assessed vertices themselves come whole: picking 20-odd fields out of each of
      // 20,000 wells costs the database more than shipping them (0.6 against 1-2 s).
      const query = knex(VERTICES)
        .select('id', 'entity_id', 'label', fields.length === 0 ? knex.raw(`'{}'::jsonb AS properties`) : 'properties')
        .where({ namespace, label });
      if (only.entityId !== undefined) query.andWhere('entity_id', only.entityId);
      if (only.vertexIds !== undefined) query.andWhere(knex.raw('id = ANY(?::uuid[])', [[...only.vertexIds]]));
      return (await query) as GraphVertexRow[];
    },
    async neighbors(vertexIds, edgeLabel, ofLabel, neighborLabel, direction, fields) {
      const sides: Array<{ self: string; other: string; selfLabel: string; otherLabel: string }> = [];
      if (direction !== 'out')
        sides.push({ self: 'to_id', other: 'from_id', selfLabel: 'to_label', otherLabel: 'from_label' });
      if (direction !== 'in')
        sides.push({ self: 'from_id', other: 'to_id', selfLabel: 'from_label', otherLabel: 'to_label' });
      // Both directions in one statement: one round trip for a vertex's neighbors either way.
      const selects: string[] = [];
      const bindings: Knex.RawBinding[] = [];
      for (const side of sides) {
        const filter = vertexIds ? `AND e.${side.self} = ANY(?::uuid[])` : '';
        selects.push(
          `e.${side.self} AS self, v.id, v.entity_id, v.label, ? AS properties, e.properties AS edge
             FROM ${EDGES} e JOIN ${VERTICES} v ON v.id = e.${side.other}
            WHERE e.namespace = ? AND e.label = ? AND e.${side.selfLabel} = ? AND e.${side.otherLabel} = ? ${filter}`,
        );
        bindings.push(pick(knex, 'v.properties', fields), namespace, edgeLabel, ofLabel, neighborLabel);
        if (vertexIds) bindings.push(vertexIds);
      }
      const rows = await lookup(selects, bindings, vertexIds !== null && vertexIds.length <= GATHERED_UP_TO);
      const out = new Map<string, Neighbor[]>();
      for (const row of rows) {
        const list = out.get(row.self) ?? [];
        list.push({
          vertexId: row.id,
          entityId: row.entity_id,
          label: row.label,
          properties: row.properties,
          edge: row.edge,
        });
        out.set(row.self, list);
      }
      return out;
    },
  };
}
