import type { Knex } from 'knex';
import { NotFound, ValidationFailed } from '../../src/platform/domain-errors';
import { findVertex, type VertexView } from '../../queries/graph/entities';
import { isVertexLabel } from '../../queries/graph/graph-schema';

/**
 * The vertex a path addresses (`/{label}/{id}`, id = uuid or entity_id): 422 naming the
 * label when it is not a configured entity type, 404 when no such vertex is in the tenant's
 * namespace.
 */
export async function resolveVertex(
  knex: Knex,
  namespace: string,
  label: string,
  id: string,
  loc: (string | number)[] = ['path', 'label'],
): Promise<VertexView> {
  const [known, vertex] = await Promise.all([isVertexLabel(knex, label), findVertex(knex, namespace, label, id)]);
  if (!known)
    throw new ValidationFailed([
      { loc, msg: `unknown vertex label '${label}' (see GET /entity-types)`, type: 'value_error.label' },
    ]);
  if (!vertex) throw new NotFound(`${label} '${id}' not found`);
  return vertex;
}
