import { EDGES, VERTICES } from '../../../projections/graph/property-graph';
import { edgeAggregate } from '../../../streams/graph/edge';
import { namespaceOf } from '../../../streams/graph/names';
import { vertexAggregate } from '../../../streams/graph/vertex';
import { type AuditCatalog, type AuditLookup, type AuditTarget } from '../../platform/audit/catalog';

/** A vertex and every edge touching it: an entity's history includes its relationships. */
async function withEdges(
  lookup: AuditLookup,
  tenantId: string,
  vertices: Array<{ id: string; label: string; entity_id: string }>,
): Promise<AuditTarget[]> {
  const targets: AuditTarget[] = [];
  const namespace = namespaceOf(tenantId);
  for (const v of vertices) {
    targets.push({ kind: 'vertex', id: v.id, title: `${v.label} ${v.entity_id}` });
    const edges: Array<{ id: string; label: string }> = await lookup
      .knex(EDGES)
      .select('id', 'label')
      .where({ namespace })
      .andWhere((q) => void q.where({ from_id: v.id }).orWhere({ to_id: v.id }));
    for (const e of edges) targets.push({ kind: 'edge', id: e.id, title: `${v.label} ${v.entity_id} ${e.label} edge` });
  }
  return targets;
}

/**
 * The property graph: `--well <API number>` and `--entity <Label>:<entity_id>`. A vertex loaded
 * by a bulk import gets its stream at its first API write, which starts with `VertexImported`
 * (the vertex as imported); one never edited since has no per-entity history (its import batch
 * is the record).
 */
export const graphAuditCatalog: AuditCatalog = {
  aggregates: [
    { kind: 'vertex', aggregate: vertexAggregate },
    { kind: 'edge', aggregate: edgeAggregate },
  ],
  finders: [
    {
      flag: 'well',
      value: '<API number>',
      async find(lookup, tenantId, value) {
        const digits = value.replace(/\D/g, '');
        const rows = await lookup
          .knex(VERTICES)
          .select('id', 'label', 'entity_id')
          .where({ namespace: namespaceOf(tenantId), label: 'Well' })
          .andWhere(
            (q) =>
              void q
                .whereRaw(`properties->>'api_number' = ?`, [value.trim()])
                .orWhereRaw(`regexp_replace(properties->>'api_number', '\\D', '', 'g') = ?`, [digits])
                .orWhere({ entity_id: value.trim() }),
          );
        return withEdges(lookup, tenantId, rows);
      },
    },
    {
      flag: 'entity',
      value: '<Label>:<entity_id>',
      async find(lookup, tenantId, value) {
        const colon = value.indexOf(':');
        if (colon <= 0) return [];
        const rows = await lookup
          .knex(VERTICES)
          .select('id', 'label', 'entity_id')
          .where({ namespace: namespaceOf(tenantId), label: value.slice(0, colon), entity_id: value.slice(colon + 1) });
        return withEdges(lookup, tenantId, rows);
      },
    },
  ],
};
