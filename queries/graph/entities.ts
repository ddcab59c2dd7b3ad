import type { Knex } from 'knex';
import { EDGES, VERTICES } from '../../projections/graph/property-graph';
import { ENTITY_TYPES } from '../../projections/graph/graph-schema';
import type { Properties } from '../../streams/graph/properties';

/** A vertex as every graph route returns it. */
export interface VertexView {
  id: string;
  label: string;
  entity_id: string;
  properties: Properties;
}

export interface EdgeView {
  id: string;
  edge_label: string;
  from_id: string;
  from_label: string;
  to_id: string;
  to_label: string;
  properties: Properties;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string) => UUID.test(value);

export const VERTEX_COLUMNS = ['id', 'label', 'entity_id', 'properties'] as const;

export function toVertexView(row: {
  id: string;
  label: string;
  entity_id: string;
  properties: Properties;
}): VertexView {
  return { id: row.id, label: row.label, entity_id: row.entity_id, properties: row.properties };
}

/**
 * One vertex of the namespace by graph uuid or business `entity_id`; `label` narrows it
 * (null: any label). The uuid wins when both could match.
 */
export async function findVertex(
  knex: Knex,
  namespace: string,
  label: string | null,
  id: string,
): Promise<VertexView | null> {
  const scoped = () => {
    const q = knex(VERTICES).select(VERTEX_COLUMNS).where({ namespace });
    if (label) q.andWhere({ label });
    return q;
  };
  if (isUuid(id)) {
    const byId = await scoped().andWhere({ id: id.toLowerCase() }).first();
    if (byId) return toVertexView(byId);
  }
  const byEntity = await withEntityId(knex, namespace, label, id);
  return byEntity ? toVertexView(byEntity) : null;
}

/**
 * The oldest vertex with this business id (and label, when given). The label is matched here,
 * not in SQL: with `label = 'Well'` in the query the planner may take the wells' partial index
 * (namespace, api_number) and walk every well of the namespace to test the id (0.7 ms at 1,500
 * wells, growing with the portfolio), where (namespace, entity_id) finds the few rows at once.
 */
async function withEntityId(knex: Knex, namespace: string, label: string | null, entityId: string) {
  const rows: Array<{ id: string; label: string; entity_id: string; properties: Properties }> = await knex(VERTICES)
    .select(VERTEX_COLUMNS)
    .where({ namespace, entity_id: entityId })
    .orderBy('created_at');
  return rows.find((row) => !label || row.label === label) ?? null;
}

/**
 * What creating a vertex must know first, in one statement: whether its label is a configured
 * entity type, and whether a vertex of that label already carries the entity_id. Named, so
 * each connection plans it once.
 */
export async function creationFacts(
  knex: Knex,
  namespace: string,
  label: string,
  entityId: string,
): Promise<{ labelKnown: boolean; entityIdTaken: boolean }> {
  const { rows } = await knex
    .raw(
      // Positional bindings: named ones cost knex a pass over the text on every call.
      `SELECT EXISTS (SELECT 1 FROM ${ENTITY_TYPES} WHERE label = ?) AS known,
            EXISTS (SELECT 1 FROM ${VERTICES} WHERE namespace = ? AND entity_id = ? AND label = ?) AS taken`,
      [label, namespace, entityId, label],
    )
    .options({ name: 'graph-creation-facts' });
  return { labelKnown: rows[0].known, entityIdTaken: rows[0].taken };
}

export async function listVertices(
  knex: Knex,
  namespace: string,
  label: string,
  limit: number,
  offset = 0,
): Promise<VertexView[]> {
  const rows = await knex(VERTICES)
    .select(VERTEX_COLUMNS)
    .where({ namespace, label })
    .orderBy('entity_id')
    .limit(limit)
    .offset(offset);
  return rows.map(toVertexView);
}

export async function countVertices(knex: Knex, namespace: string): Promise<number> {
  const row = await knex(VERTICES).where({ namespace }).count<{ count: string }[]>('* as count').first();
  return Number(row?.count ?? 0);
}

export type Direction = 'out' | 'in' | 'both';

/** Edges touching a vertex, with the vertex at the other end. */
export interface AdjacentEdge extends EdgeView {
  direction: 'out' | 'in';
  neighbor: VertexView;
}

export async function edgesOf(
  knex: Knex,
  namespace: string,
  vertexId: string,
  options: { edgeLabel?: string; direction: Direction; limit?: number },
): Promise<AdjacentEdge[]> {
  const parts: string[] = [];
  const bindings: Knex.RawBinding[] = [];
  const side = (dir: 'out' | 'in') => {
    const [self, other] = dir === 'out' ? ['from_id', 'to_id'] : ['to_id', 'from_id'];
    parts.push(
      `SELECT e.id, e.label AS edge_label, e.from_id, e.from_label, e.to_id, e.to_label, e.properties, '${dir}' AS direction,
              v.id AS n_id, v.label AS n_label, v.entity_id AS n_entity_id, v.properties AS n_properties
         FROM ${EDGES} e JOIN ${VERTICES} v ON v.id = e.${other}
        WHERE e.namespace = ? AND e.${self} = ?${options.edgeLabel ? ' AND e.label = ?' : ''}`,
    );
    bindings.push(namespace, vertexId);
    if (options.edgeLabel) bindings.push(options.edgeLabel);
  };
  if (options.direction !== 'in') side('out');
  if (options.direction !== 'out') side('in');
  let sql = `${parts.join(' UNION ALL ')} ORDER BY edge_label, direction, n_entity_id`;
  if (options.limit) {
    sql += ' LIMIT ?';
    bindings.push(options.limit);
  }
  const { rows } = await knex.raw(sql, bindings);
  return rows.map((r: any) => ({
    id: r.id,
    edge_label: r.edge_label,
    from_id: r.from_id,
    from_label: r.from_label,
    to_id: r.to_id,
    to_label: r.to_label,
    properties: r.properties,
    direction: r.direction,
    neighbor: { id: r.n_id, label: r.n_label, entity_id: r.n_entity_id, properties: r.n_properties },
  }));
}

export async function edgeIdsOf(knex: Knex, namespace: string, vertexId: string): Promise<string[]> {
  const rows = await knex(EDGES)
    .select('id')
    .where({ namespace })
    .andWhere((q) => void q.where({ from_id: vertexId }).orWhere({ to_id: vertexId }));
  return rows.map((r) => r.id);
}
