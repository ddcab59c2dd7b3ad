import type { Knex } from 'knex';
import type { RecordedEvent } from '../../src/platform/eventstore/types';
import type { Projector } from '../../src/platform/projection-runner/projector';
import { EDGE_EVENT_TYPES, EdgeFacts } from '../../streams/graph/edge';
import { GraphImportEvent, IMPORT_EVENT_TYPES } from '../../streams/graph/graph-import';
import { VERTEX_EVENT_TYPES, VertexEvent } from '../../streams/graph/vertex';

/**
 * The per-tenant property graph as tables: every row carries its tenant's graph namespace
 * and every query filters by it. No foreign keys: deleting a vertex removes its edges in
 * the same apply, and an edge whose endpoint is gone by the time it projects is skipped.
 */
export const VERTICES = 'graph_vertices';
export const EDGES = 'graph_edges';
export const IMPORTS = 'graph_imports';

async function createTables(knex: Knex): Promise<void> {
  await knex.schema.createTable(VERTICES, (t) => {
    t.uuid('id').primary();
    t.text('namespace').notNullable();
    t.text('label').notNullable();
    t.text('entity_id').notNullable();
    t.jsonb('properties').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['namespace', 'label', 'entity_id'], 'graph_vertices_ns_label');
    t.index(['namespace', 'entity_id'], 'graph_vertices_ns_entity');
  });
  // The legacy well context is addressed by API number.
  await knex.raw(`CREATE INDEX graph_vertices_ns_api ON ${VERTICES} (namespace, (properties->>'api_number')) WHERE label = 'Well'`);
  await knex.schema.createTable(EDGES, (t) => {
    t.uuid('id').primary();
    t.text('namespace').notNullable();
    t.text('label').notNullable();
    t.uuid('from_id').notNullable();
    t.text('from_label').notNullable();
    t.uuid('to_id').notNullable();
    t.text('to_label').notNullable();
    t.jsonb('properties').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['namespace', 'from_id', 'label'], 'graph_edges_ns_from');
    t.index(['namespace', 'to_id', 'label'], 'graph_edges_ns_to');
    t.index(['namespace', 'label'], 'graph_edges_ns_label');
  });
  await knex.schema.createTable(IMPORTS, (t) => {
    t.uuid('id').primary();
    t.text('namespace').notNullable();
    t.text('source').notNullable();
    t.text('status').notNullable();
    t.integer('vertices').notNullable().defaultTo(0);
    t.integer('edges').notNullable().defaultTo(0);
    t.jsonb('by_label');
    t.timestamp('started_at', { useTz: true }).notNullable();
    t.timestamp('completed_at', { useTz: true });
  });
}

async function insertEdges(trx: Knex.Transaction, namespace: string, at: Date, edges: Array<Omit<EdgeFacts, 'namespace'>>): Promise<void> {
  if (edges.length === 0) return;
  await trx.raw(
    `INSERT INTO ${EDGES} (id, namespace, label, from_id, from_label, to_id, to_label, properties, created_at)
     SELECT u.id, ?, u.label, u.from_id, u.from_label, u.to_id, u.to_label, u.props, ?
       FROM unnest(?::uuid[], ?::text[], ?::uuid[], ?::text[], ?::uuid[], ?::text[], ?::jsonb[]) AS u(id, label, from_id, from_label, to_id, to_label, props)
      WHERE EXISTS (SELECT 1 FROM ${VERTICES} v WHERE v.id = u.from_id AND v.namespace = ?)
        AND EXISTS (SELECT 1 FROM ${VERTICES} v WHERE v.id = u.to_id AND v.namespace = ?)
     ON CONFLICT (id) DO NOTHING`,
    [
      namespace,
      at,
      edges.map((e) => e.edgeId),
      edges.map((e) => e.edgeLabel),
      edges.map((e) => e.fromId),
      edges.map((e) => e.fromLabel),
      edges.map((e) => e.toId),
      edges.map((e) => e.toLabel),
      edges.map((e) => JSON.stringify(e.properties)),
      namespace,
      namespace,
    ],
  );
}

async function applyImport(trx: Knex.Transaction, event: GraphImportEvent, at: Date): Promise<void> {
  switch (event.type) {
    case 'GraphImportStarted':
      await trx(IMPORTS).insert({ id: event.data.importId, namespace: event.data.namespace, source: event.data.source, status: 'running', started_at: at }).onConflict('id').ignore();
      return;
    case 'GraphBatchImported': {
      const { namespace, vertices, edges } = event.data;
      if (vertices.length > 0) {
        await trx.raw(
          `INSERT INTO ${VERTICES} (id, namespace, label, entity_id, properties, created_at, updated_at)
           SELECT u.id, ?, u.label, u.entity_id, u.props, ?, ?
             FROM unnest(?::uuid[], ?::text[], ?::text[], ?::jsonb[]) AS u(id, label, entity_id, props)
           ON CONFLICT (id) DO NOTHING`,
          [namespace, at, at, vertices.map((v) => v.id), vertices.map((v) => v.label), vertices.map((v) => v.entity_id), vertices.map((v) => JSON.stringify(v.properties))],
        );
      }
      await insertEdges(
        trx,
        namespace,
        at,
        edges.map((e) => ({ edgeId: e.id, edgeLabel: e.label, fromId: e.from_id, fromLabel: e.from_label, toId: e.to_id, toLabel: e.to_label, properties: e.properties })),
      );
      await trx(IMPORTS)
        .where({ id: event.data.importId })
        .update({ vertices: trx.raw('vertices + ?', [vertices.length]), edges: trx.raw('edges + ?', [edges.length]) });
      return;
    }
    case 'GraphImportCompleted':
      await trx(IMPORTS).where({ id: event.data.importId }).update({ status: 'completed', by_label: JSON.stringify(event.data.byLabel), completed_at: at });
      return;
  }
}

async function applyVertex(trx: Knex.Transaction, event: VertexEvent, at: Date): Promise<void> {
  switch (event.type) {
    case 'VertexCreated': {
      const d = event.data;
      await trx(VERTICES)
        .insert({ id: d.vertexId, namespace: d.namespace, label: d.label, entity_id: d.entityId, properties: JSON.stringify(d.properties), created_at: at, updated_at: at })
        .onConflict('id')
        .ignore();
      return;
    }
    case 'VertexPropertiesUpdated':
    case 'WellProductionReported': {
      const removed = event.type === 'VertexPropertiesUpdated' ? event.data.removed : [];
      await trx(VERTICES)
        .where({ id: event.data.vertexId, namespace: event.data.namespace })
        .update({ properties: trx.raw('(properties || ?::jsonb) - ?::text[]', [JSON.stringify(event.data.set), removed]), updated_at: at });
      return;
    }
    case 'VertexDeleted': {
      const { vertexId, namespace } = event.data;
      await trx(EDGES).where({ namespace, from_id: vertexId }).delete();
      await trx(EDGES).where({ namespace, to_id: vertexId }).delete();
      await trx(VERTICES).where({ id: vertexId, namespace }).delete();
      return;
    }
  }
}

export const propertyGraphProjector: Projector = {
  name: 'graph_property_graph',
  consistency: 'inline',
  version: 1,
  tables: [EDGES, VERTICES, IMPORTS],
  createTables,
  eventTypes: [...VERTEX_EVENT_TYPES, ...EDGE_EVENT_TYPES, ...IMPORT_EVENT_TYPES],
  async apply(trx, event: RecordedEvent) {
    if (event.type === 'EdgeCreated') {
      const e = event.data as EdgeFacts;
      await insertEdges(trx, e.namespace, event.recordedAt, [e]);
    } else if ((IMPORT_EVENT_TYPES as readonly string[]).includes(event.type)) {
      await applyImport(trx, { type: event.type, data: event.data } as GraphImportEvent, event.recordedAt);
    } else {
      await applyVertex(trx, { type: event.type, data: event.data } as VertexEvent, event.recordedAt);
    }
  },
};
