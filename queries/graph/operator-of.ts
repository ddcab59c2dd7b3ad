import { EDGES, VERTICES } from '../../projections/graph/property-graph';

/**
 * SQL for the name of the operator a vertex is OPERATED_BY (the first by entity id), as a
 * scalar subquery over `vertex` (an alias of the vertices table) in `namespace` (a SQL
 * expression or a binding).
 */
export const operatorNameSql = (vertex: string, namespace: string) =>
  `(SELECT o.properties->>'name' FROM ${EDGES} x JOIN ${VERTICES} o ON o.id = x.to_id AND o.label = 'Operator'
     WHERE x.namespace = ${namespace} AND x.from_id = ${vertex}.id AND x.label = 'OPERATED_BY' ORDER BY o.entity_id LIMIT 1)`;
