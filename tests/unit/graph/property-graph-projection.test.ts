import { expect } from 'chai';
import { projectionSpec } from '../../support/specs';
import { EDGES, IMPORTS, propertyGraphProjector, VERTICES } from '../../../projections/graph/property-graph';
import { importedEdgeId, packBatch } from '../../../streams/graph/graph-import';

const IMPORT = '00000000-0000-8000-8000-00000000a001';
const NS = 'ns-a';
const id = (n: number) => `00000000-0000-8000-8000-${String(n).padStart(12, '0')}`;
const stream = `graph.import-tenant-spec-${IMPORT}`;
const vertex = (n: number, label = 'Well') => ({
  id: id(n),
  label,
  entity_id: `E-${n}`,
  properties: { entity_id: `E-${n}` },
});
const edge = (n: number, from: number, to: number) => ({
  id: id(1000 + n),
  label: 'LOCATED_IN',
  from_id: id(from),
  from_label: 'Well',
  to_id: id(to),
  to_label: 'Lease',
  properties: {},
});
const batch = (n: number, vertices: object[], edges: object[], namespace = NS, importId = IMPORT) => ({
  stream,
  type: 'GraphBatchImported',
  data: { importId, namespace, batch: n, vertices, edges },
});

const packed = (n: number, vertices: any[], edges: any[], namespace = NS) => ({
  stream,
  type: 'PackedGraphBatchImported',
  data: { importId: IMPORT, namespace, batch: n, ...packBatch(namespace, vertices, edges) },
});

/** Bulk imports are written a run of batch events at a time (applyBatch); log order still holds. */
describe('property graph projection (given events → rows)', () => {
  it('writes a run of import batches: every vertex, the edges whose endpoints exist in the namespace, the import counted', async () => {
    await projectionSpec(propertyGraphProjector)
      .given([
        {
          stream,
          type: 'GraphImportStarted',
          data: { importId: IMPORT, namespace: NS, source: 'operator-csv', description: 'd' },
        },
        batch(0, [vertex(1), vertex(2), vertex(3, 'Lease')], []),
        // Edges of a later batch join vertices of an earlier one; one names a vertex nobody wrote.
        batch(1, [], [edge(1, 1, 3), edge(2, 2, 3), edge(3, 2, 99)]),
        {
          stream,
          type: 'GraphImportCompleted',
          data: { importId: IMPORT, namespace: NS, vertices: 3, edges: 3, byLabel: {} },
        },
      ])
      .then(async (knex) => {
        expect(await knex(VERTICES).orderBy('id').pluck('entity_id')).to.deep.equal(['E-1', 'E-2', 'E-3']);
        expect(await knex(EDGES).orderBy('id').pluck('id')).to.deep.equal([id(1001), id(1002)]);
        const row = await knex(IMPORTS).where({ id: IMPORT }).first();
        expect(row).to.include({ status: 'completed', vertices: 3, edges: 3 });
      });
  });

  it('an edge never joins vertices of another namespace', async () => {
    await projectionSpec(propertyGraphProjector)
      .given([
        batch(0, [vertex(1), vertex(3, 'Lease')], []),
        batch(1, [], [edge(1, 1, 3)], 'ns-b', '00000000-0000-8000-8000-00000000b001'),
      ])
      .then(async (knex) => {
        expect(await knex(EDGES).count<{ count: string }[]>({ count: '*' })).to.deep.equal([{ count: '0' }]);
      });
  });

  it('a vertex deleted between two batches is gone before the later batch: its edge is skipped', async () => {
    await projectionSpec(propertyGraphProjector)
      .given([
        batch(0, [vertex(1), vertex(2), vertex(3, 'Lease')], []),
        {
          stream: `graph.vertex-tenant-spec-${id(1)}`,
          type: 'VertexDeleted',
          data: { vertexId: id(1), namespace: NS, label: 'Well', entityId: 'E-1', edgeIds: [] },
        },
        batch(1, [], [edge(1, 1, 3), edge(2, 2, 3)]),
      ])
      .then(async (knex) => {
        expect(await knex(VERTICES).orderBy('id').pluck('entity_id')).to.deep.equal(['E-2', 'E-3']);
        expect(await knex(EDGES).pluck('id')).to.deep.equal([id(1002)]);
      });
  });

  it('reads packed batches and the older form alike, in one run: the same rows either way', async () => {
    const derivedEdge = { ...edge(4, 2, 3), id: importedEdgeId(NS, 'LOCATED_IN', id(2), id(3)) };
    await projectionSpec(propertyGraphProjector)
      .given([
        {
          stream,
          type: 'GraphImportStarted',
          data: { importId: IMPORT, namespace: NS, source: 'operator-csv', description: 'd' },
        },
        batch(0, [vertex(1)], []),
        packed(
          1,
          [{ ...vertex(2), properties: { entity_id: 'E-2', name: 'HOEFS 1H' } }, vertex(3, 'Lease')],
          [edge(1, 1, 3)],
        ),
        packed(2, [], [derivedEdge, edge(3, 2, 99)]),
        {
          stream,
          type: 'GraphImportCompleted',
          data: { importId: IMPORT, namespace: NS, vertices: 3, edges: 3, byLabel: {} },
        },
      ])
      .then(async (knex) => {
        expect(await knex(VERTICES).orderBy('id').select('entity_id', 'label', 'properties')).to.deep.equal([
          { entity_id: 'E-1', label: 'Well', properties: { entity_id: 'E-1' } },
          { entity_id: 'E-2', label: 'Well', properties: { entity_id: 'E-2', name: 'HOEFS 1H' } },
          { entity_id: 'E-3', label: 'Lease', properties: { entity_id: 'E-3' } },
        ]);
        expect(
          (await knex(EDGES).select('id', 'from_id', 'to_id')).sort((a, b) => a.id.localeCompare(b.id)),
        ).to.deep.equal(
          [
            { id: id(1001), from_id: id(1), to_id: id(3) },
            { id: derivedEdge.id, from_id: id(2), to_id: id(3) },
          ].sort((a, b) => a.id.localeCompare(b.id)),
        );
        expect(await knex(IMPORTS).where({ id: IMPORT }).first()).to.include({
          status: 'completed',
          vertices: 3,
          edges: 3,
        });
      });
  });

  it("writes any text as it came: quotes, backslashes, commas and braces in ids and properties, edge properties, each event's own time and namespace", async () => {
    const odd = 'He said "stop", then \\ {left} \\"';
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
    await projectionSpec(propertyGraphProjector)
      .given([
        {
          ...batch(
            0,
            [
              { id: id(1), label: 'Well', entity_id: 'A,"1"}', properties: { name: odd, empty: '' } },
              vertex(3, 'Lease'),
            ],
            [],
          ),
          recordedAt: at(1),
        },
        {
          ...packed(1, [vertex(4, 'Lease')], [{ ...edge(1, 1, 3), properties: { since: odd } }, edge(2, 1, 4)]),
          recordedAt: at(2),
        },
        {
          ...batch(2, [vertex(5), vertex(6, 'Lease')], [edge(3, 5, 6)], 'ns-b', '00000000-0000-8000-8000-00000000b001'),
          recordedAt: at(3),
        },
      ])
      .then(async (knex) => {
        expect(
          await knex(VERTICES)
            .where({ id: id(1) })
            .first(),
        ).to.deep.include({ namespace: NS, entity_id: 'A,"1"}', properties: { name: odd, empty: '' } });
        const edges = await knex(EDGES)
          .orderBy('id')
          .select('id', 'namespace', 'label', 'from_label', 'to_label', 'properties', 'created_at');
        expect(edges.map((e) => ({ ...e, created_at: e.created_at.toISOString() }))).to.deep.equal([
          {
            id: id(1001),
            namespace: NS,
            label: 'LOCATED_IN',
            from_label: 'Well',
            to_label: 'Lease',
            properties: { since: odd },
            created_at: at(2).toISOString(),
          },
          {
            id: id(1002),
            namespace: NS,
            label: 'LOCATED_IN',
            from_label: 'Well',
            to_label: 'Lease',
            properties: {},
            created_at: at(2).toISOString(),
          },
          {
            id: id(1003),
            namespace: 'ns-b',
            label: 'LOCATED_IN',
            from_label: 'Well',
            to_label: 'Lease',
            properties: {},
            created_at: at(3).toISOString(),
          },
        ]);
        expect(
          (
            await knex(VERTICES)
              .where({ id: id(5) })
              .first()
          ).created_at.toISOString(),
        ).to.equal(at(3).toISOString());
      });
  });

  it('an edge created alone is checked against the vertices stored before it, whatever the case of its endpoint ids', async () => {
    const upper = (n: number) => id(n).toUpperCase().replace('00000000-0000-8000-8000-', 'ABCDEF00-0000-8000-8000-');
    const created = (n: number, from: string, to: string, namespace = NS) => ({
      stream: `graph.edge-tenant-spec-${id(n)}`,
      type: 'EdgeCreated',
      data: {
        edgeId: id(n),
        namespace,
        edgeLabel: 'LOCATED_IN',
        fromId: from,
        fromLabel: 'Well',
        toId: to,
        toLabel: 'Lease',
        properties: {},
      },
    });
    const odd = { id: upper(7).toLowerCase(), label: 'Lease', entity_id: 'E-7', properties: {} };
    await projectionSpec(propertyGraphProjector)
      .given([
        batch(0, [vertex(1), vertex(3, 'Lease'), odd], []),
        created(2001, id(1), upper(7)),
        created(2002, id(1), id(99)),
        created(2003, id(1), id(3), 'ns-b'),
      ])
      .then(async (knex) => {
        expect(await knex(EDGES).pluck('id')).to.deep.equal([id(2001)]);
      });
  });
});
