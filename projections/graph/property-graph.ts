import type { Knex } from 'knex';
import type { RecordedEvent } from '../../src/platform/eventstore/types';
import type { Projector } from '../../src/platform/projection-runner/projector';
import { EDGE_EVENT_TYPES, EdgeFacts } from '../../streams/graph/edge';
import { batchEdges, batchVertices, GRAPH_BATCH_TYPES, GraphBatchData, GraphImportEvent, IMPORT_EVENT_TYPES, ImportedVertex, PackedGraphBatchData } from '../../streams/graph/graph-import';
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

/** One edge as the projection writes it, with the namespace and time of the event that carried it. */
type EdgeRow = Omit<EdgeFacts, 'namespace'> & { namespace: string; at: Date };
type VertexRow = ImportedVertex & { namespace: string; at: Date };

/** Rows per statement: large enough to amortise the round trip, small enough for one bind message. */
const ROWS_PER_STATEMENT = 5000;

async function insertVertices(trx: Knex.Transaction, vertices: VertexRow[]): Promise<void> {
  for (let i = 0; i < vertices.length; i += ROWS_PER_STATEMENT) {
    const chunk = vertices.slice(i, i + ROWS_PER_STATEMENT);
    await trx.raw(
      `INSERT INTO ${VERTICES} (id, namespace, label, entity_id, properties, created_at, updated_at)
       SELECT u.id, u.namespace, u.label, u.entity_id, u.props, u.at, u.at
         FROM unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::jsonb[], ?::timestamptz[]) AS u(id, namespace, label, entity_id, props, at)
       ON CONFLICT (id) DO NOTHING`,
      [chunk.map((v) => v.id), chunk.map((v) => v.namespace), chunk.map((v) => v.label), chunk.map((v) => v.entity_id), chunk.map((v) => JSON.stringify(v.properties)), chunk.map((v) => v.at)],
    );
  }
}

/**
 * Each endpoint is checked by a primary-key probe (a scalar subquery per row). An EXISTS
 * semi-join let the planner, with statistics still describing the table as it was before a
 * bulk load, hash the tenant's whole vertex set for every statement: a 100,000-well import
 * spent most of its time rehashing the vertices it had just written. An endpoint written by
 * the same run (`written`: namespace and id) exists in this transaction already and is not
 * probed: a CSV row's well is, so its three edges need one probe each instead of two.
 */
async function insertEdges(trx: Knex.Transaction, edges: EdgeRow[], written: ReadonlySet<string> = new Set()): Promise<void> {
  for (let i = 0; i < edges.length; i += ROWS_PER_STATEMENT) {
    const chunk = edges.slice(i, i + ROWS_PER_STATEMENT);
    await trx.raw(
      `INSERT INTO ${EDGES} (id, namespace, label, from_id, from_label, to_id, to_label, properties, created_at)
       SELECT u.id, u.namespace, u.label, u.from_id, u.from_label, u.to_id, u.to_label, u.props, u.at
         FROM unnest(?::uuid[], ?::text[], ?::text[], ?::uuid[], ?::text[], ?::uuid[], ?::text[], ?::jsonb[], ?::timestamptz[], ?::bool[], ?::bool[]) AS u(id, namespace, label, from_id, from_label, to_id, to_label, props, at, from_written, to_written)
        WHERE (u.from_written OR (SELECT v.namespace FROM ${VERTICES} v WHERE v.id = u.from_id) = u.namespace)
          AND (u.to_written OR (SELECT v.namespace FROM ${VERTICES} v WHERE v.id = u.to_id) = u.namespace)
       ON CONFLICT (id) DO NOTHING`,
      [
        chunk.map((e) => e.edgeId),
        chunk.map((e) => e.namespace),
        chunk.map((e) => e.edgeLabel),
        chunk.map((e) => e.fromId),
        chunk.map((e) => e.fromLabel),
        chunk.map((e) => e.toId),
        chunk.map((e) => e.toLabel),
        chunk.map((e) => JSON.stringify(e.properties)),
        chunk.map((e) => e.at),
        chunk.map((e) => written.has(`${e.namespace}\u001f${e.fromId}`)),
        chunk.map((e) => written.has(`${e.namespace}\u001f${e.toId}`)),
      ],
    );
  }
}

const isBatch = (type: string) => (GRAPH_BATCH_TYPES as readonly string[]).includes(type);

/**
 * Consecutive batch events (either form), written together: all their vertices, then all their
 * edges (an import's edges already follow its vertices), then one counter update per import.
 */
class ImportRun {
  readonly vertices: VertexRow[] = [];
  readonly edges: EdgeRow[] = [];
  readonly counts = new Map<string, { vertices: number; edges: number }>();

  get size(): number {
    return this.vertices.length + this.edges.length;
  }

  add(type: string, data: GraphBatchData | PackedGraphBatchData, at: Date): void {
    const { namespace } = data;
    const vertices = batchVertices(type, data);
    const edges = batchEdges(type, data);
    for (const v of vertices) this.vertices.push({ ...v, namespace, at });
    for (const e of edges) this.edges.push({ edgeId: e.id, edgeLabel: e.label, fromId: e.from_id, fromLabel: e.from_label, toId: e.to_id, toLabel: e.to_label, properties: e.properties, namespace, at });
    const count = this.counts.get(data.importId) ?? { vertices: 0, edges: 0 };
    count.vertices += vertices.length;
    count.edges += edges.length;
    this.counts.set(data.importId, count);
  }

  async write(trx: Knex.Transaction): Promise<void> {
    await insertVertices(trx, this.vertices);
    await insertEdges(trx, this.edges, new Set(this.vertices.map((v) => `${v.namespace}\u001f${v.id}`)));
    for (const [importId, count] of this.counts) {
      await trx(IMPORTS)
        .where({ id: importId })
        .update({ vertices: trx.raw('vertices + ?', [count.vertices]), edges: trx.raw('edges + ?', [count.edges]) });
    }
  }
}

async function applyImport(trx: Knex.Transaction, event: GraphImportEvent, at: Date): Promise<void> {
  switch (event.type) {
    case 'GraphImportStarted':
      await trx(IMPORTS).insert({ id: event.data.importId, namespace: event.data.namespace, source: event.data.source, status: 'running', started_at: at }).onConflict('id').ignore();
      return;
    case 'GraphBatchImported':
    case 'PackedGraphBatchImported': {
      const run = new ImportRun();
      run.add(event.type, event.data, at);
      await run.write(trx);
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
  apply: (trx, event) => applyEvent(trx, event),
  /**
   * A bulk import (seed, CSV ingestion) arrives as runs of batch events: a run
   * is written with a few multi-row statements instead of three per event; anything else
   * applies one by one, in log order, after the run before it.
   */
  async applyBatch(trx, events) {
    let run: ImportRun | null = null;
    for (const event of events) {
      if (isBatch(event.type)) {
        run ??= new ImportRun();
        run.add(event.type, event.data as GraphBatchData | PackedGraphBatchData, event.recordedAt);
        // A lane far behind reads up to a thousand batch events: write them a statement's worth
        // at a time, so the rows built for the statements stay bounded.
        if (run.size >= ROWS_PER_STATEMENT) {
          await run.write(trx);
          run = null;
        }
        continue;
      }
      await run?.write(trx);
      run = null;
      await applyEvent(trx, event);
    }
    await run?.write(trx);
  },
};

async function applyEvent(trx: Knex.Transaction, event: RecordedEvent): Promise<void> {
  if (event.type === 'EdgeCreated') {
    const e = event.data as EdgeFacts;
    await insertEdges(trx, [{ ...e, at: event.recordedAt }]);
  } else if ((IMPORT_EVENT_TYPES as readonly string[]).includes(event.type)) {
    await applyImport(trx, { type: event.type, data: event.data } as GraphImportEvent, event.recordedAt);
  } else {
    await applyVertex(trx, { type: event.type, data: event.data } as VertexEvent, event.recordedAt);
  }
}
