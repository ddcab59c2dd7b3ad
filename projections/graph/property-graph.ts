import type { Knex } from 'knex';
import type { Position, RecordedEvent } from '../../src/platform/eventstore/types';
import type { Projector } from '../../src/platform/projection-runner/projector';
import { EDGE_EVENT_TYPES, type EdgeFacts } from '../../streams/graph/edge';
import {
  eachBatchEdge,
  eachBatchVertex,
  GRAPH_BATCH_TYPES,
  type GraphBatchData,
  type GraphImportEvent,
  IMPORT_EVENT_TYPES,
  type PackedGraphBatchData,
} from '../../streams/graph/graph-import';
import type { Properties } from '../../streams/graph/properties';
import { VERTEX_EVENT_TYPES, type VertexEvent } from '../../streams/graph/vertex';

/**
 * The per-tenant property graph as tables: every row carries its tenant's graph namespace
 * and every query filters by it. No foreign keys: deleting a vertex removes its edges in
 * the same apply, and an edge whose endpoint is gone by the time it projects is skipped.
 */
export const VERTICES = 'graph_vertices';
export const EDGES = 'graph_edges';
export const IMPORTS = 'graph_imports';
/**
 * What deletions took away, by log position: the removed vertex (its entity, for the
 * verdicts it leaves) and the far ends of its removed edges (whose facts lost a neighbor).
 * Compliance re-assesses by log position (`queries/compliance/graph-changes.ts`) and a
 * deleted row leaves nothing in the tables above to find.
 */
export const REMOVALS = 'graph_removals';

/**
 * Every vertex and edge row carries the global log position (`log_commit`, `log_prepare`:
 * the event store's `Position`) of the event that last wrote it. Readers find what changed
 * after a position they judged up to; the writer's clock (`updated_at`) can lag, tie within a
 * millisecond or be stamped before a slow commit, a position cannot.
 */
const positionColumns = (t: Knex.CreateTableBuilder) => {
  t.bigInteger('log_commit').notNullable();
  t.bigInteger('log_prepare').notNullable();
};

async function createTables(knex: Knex): Promise<void> {
  await knex.schema.createTable(VERTICES, (t) => {
    t.uuid('id').primary();
    t.text('namespace').notNullable();
    t.text('label').notNullable();
    t.text('entity_id').notNullable();
    t.jsonb('properties').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    positionColumns(t);
    t.index(['namespace', 'label', 'entity_id'], 'graph_vertices_ns_label');
    t.index(['namespace', 'log_commit', 'log_prepare'], 'graph_vertices_ns_log');
    t.index(['namespace', 'entity_id'], 'graph_vertices_ns_entity');
  });
  // The legacy well context is addressed by API number.
  await knex.raw(
    `CREATE INDEX graph_vertices_ns_api ON ${VERTICES} (namespace, (properties->>'api_number')) WHERE label = 'Well'`,
  );
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
    positionColumns(t);
    t.index(['namespace', 'from_id', 'label'], 'graph_edges_ns_from');
    t.index(['namespace', 'log_commit', 'log_prepare'], 'graph_edges_ns_log');
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
  await knex.schema.createTable(REMOVALS, (t) => {
    t.bigIncrements('id');
    t.text('namespace').notNullable();
    /** The removed vertex, or (`removed` false) a surviving vertex that lost an edge to it. */
    t.uuid('vertex_id').notNullable();
    t.text('label').notNullable();
    t.text('entity_id').notNullable();
    t.boolean('removed').notNullable();
    positionColumns(t);
    t.index(['namespace', 'log_commit', 'log_prepare'], 'graph_removals_ns_log');
  });
}

type LogColumns = { log_commit: string; log_prepare: string };

/** An event's log position as the two bigint columns. */
const logOf = (event: { position: Position }): LogColumns => ({
  log_commit: String(event.position.commit),
  log_prepare: String(event.position.prepare),
});

/** Rows per statement: large enough to amortise the round trip, small enough for one bind message. */
const ROWS_PER_STATEMENT = 5000;

const NEEDS_ESCAPE = /["\\]/;
const ESCAPED = /["\\]/g;

/**
 * An array parameter as PostgreSQL's literal, built in one pass. `pg` converts an array
 * element by element (a type check, two regex replaces and a growing string each), which a
 * 5,000-row statement paid for every column; a uuid or a label needs no escaping at all.
 */
function arrayLiteral(values: ReadonlyArray<string | null>): string {
  const quoted = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    quoted[i] = v === null ? 'NULL' : NEEDS_ESCAPE.test(v) ? `"${v.replace(ESCAPED, '\\$&')}"` : `"${v}"`;
  }
  return `{${quoted.join(',')}}`;
}

/**
 * What the rows of a run share: the event's namespace and time and the labels of a group.
 * Each distinct combination is sent once and every row names it by number (1-based, as
 * `WITH ORDINALITY` counts), instead of repeating a 39-character namespace, two or three
 * labels and a timestamp on every row for PostgreSQL to parse again.
 */
class Kinds {
  readonly columns: string[][];
  private readonly numbers = new Map<string, number>();
  private last: string[] = [];
  private lastNumber = 0;

  constructor(readonly width: number) {
    this.columns = Array.from({ length: width }, () => []);
  }

  /** The number of a combination of `width` values (unused trailing ones are ''). */
  number(a: string, b: string, c: string, d = '', e = '', f = '', g = ''): number {
    // Consecutive rows (a group of a packed batch) share their kind: nothing built for them.
    const last = this.last;
    if (
      this.lastNumber > 0 &&
      last[0] === a &&
      last[1] === b &&
      last[2] === c &&
      last[3] === d &&
      last[4] === e &&
      last[5] === f &&
      last[6] === g
    )
      return this.lastNumber;
    const parts = [a, b, c, d, e, f, g];
    const key = parts.join('\u001f');
    let n = this.numbers.get(key);
    if (n === undefined) {
      for (let i = 0; i < this.width; i++) this.columns[i].push(parts[i]);
      n = this.numbers.size + 1;
      this.numbers.set(key, n);
    }
    this.last = parts;
    this.lastNumber = n;
    return n;
  }

  get literals(): string[] {
    return this.columns.map(arrayLiteral);
  }
}

/** Vertices bound for one insert, column by column; kinds are (namespace, label, time, log position). */
class VertexColumns {
  readonly ids: string[] = [];
  readonly entityIds: string[] = [];
  readonly properties: string[] = [];
  readonly kinds: number[] = [];
  readonly kind = new Kinds(5);
  /** Ids written by this run, by namespace: an edge's endpoint among them is not probed. */
  readonly written = new Map<string, Set<string>>();

  add(
    id: string,
    label: string,
    entityId: string,
    properties: Properties,
    namespace: string,
    at: string,
    log: LogColumns,
  ): void {
    this.ids.push(id);
    this.entityIds.push(entityId);
    this.properties.push(JSON.stringify(properties));
    this.kinds.push(this.kind.number(namespace, label, at, log.log_commit, log.log_prepare));
    let ids = this.written.get(namespace);
    if (!ids) this.written.set(namespace, (ids = new Set()));
    ids.add(id);
  }

  async write(trx: Knex.Transaction): Promise<void> {
    const kinds = this.kind.literals;
    for (let i = 0; i < this.ids.length; i += ROWS_PER_STATEMENT) {
      const to = i + ROWS_PER_STATEMENT;
      await trx.raw(
        `INSERT INTO ${VERTICES} (id, namespace, label, entity_id, properties, created_at, updated_at, log_commit, log_prepare)
         SELECT u.id, k.namespace, k.label, u.entity_id, u.props, k.at, k.at, k.log_commit, k.log_prepare
           FROM unnest(?::uuid[], ?::text[], ?::jsonb[], ?::int[]) AS u(id, entity_id, props, kind)
           JOIN unnest(?::text[], ?::text[], ?::timestamptz[], ?::bigint[], ?::bigint[]) WITH ORDINALITY AS k(namespace, label, at, log_commit, log_prepare, kind) ON k.kind = u.kind
         ON CONFLICT (id) DO NOTHING`,
        [
          arrayLiteral(this.ids.slice(i, to)),
          arrayLiteral(this.entityIds.slice(i, to)),
          arrayLiteral(this.properties.slice(i, to)),
          `{${this.kinds.slice(i, to).join(',')}}`,
          ...kinds,
        ],
      );
    }
  }
}

/** Edges bound for one insert, column by column; kinds are (namespace, label, from label, to label, time, log position). */
class EdgeColumns {
  readonly ids: string[] = [];
  readonly fromIds: string[] = [];
  readonly toIds: string[] = [];
  /** Null for an edge without properties (nearly all): written as `{}`. */
  readonly properties: Array<string | null> = [];
  readonly kinds: number[] = [];
  readonly namespaces: string[] = [];
  readonly kind = new Kinds(7);

  get length(): number {
    return this.ids.length;
  }

  add(
    id: string,
    label: string,
    fromId: string,
    fromLabel: string,
    toId: string,
    toLabel: string,
    properties: Properties | null,
    namespace: string,
    at: string,
    log: LogColumns,
  ): void {
    this.ids.push(id);
    this.fromIds.push(fromId);
    this.toIds.push(toId);
    this.properties.push(properties === null ? null : JSON.stringify(properties));
    this.kinds.push(this.kind.number(namespace, label, fromLabel, toLabel, at, log.log_commit, log.log_prepare));
    this.namespaces.push(namespace);
  }

  /**
   * An edge is written when both endpoints are vertices of its namespace. Those the same run
   * writes (`written`: a CSV row's well, a new lease) are; the others are looked up once each
   * by primary key before the insert. A scalar subquery per row probed the same forty operators
   * and one field for each of a 100,000-row file's 312,500 edges. (An EXISTS semi-join, before
   * that, let the planner hash the tenant's whole vertex set for every statement, with
   * statistics still describing the table as it was before a bulk load.)
   */
  async write(trx: Knex.Transaction, written: ReadonlyMap<string, ReadonlySet<string>> = new Map()): Promise<void> {
    const { ids, fromIds, toIds, namespaces } = this;
    const isWritten = (i: number, id: string) => written.get(namespaces[i])?.has(id) === true;
    const elsewhere = new Set<string>();
    for (let i = 0; i < ids.length; i++) {
      if (!isWritten(i, fromIds[i])) elsewhere.add(fromIds[i]);
      if (!isWritten(i, toIds[i])) elsewhere.add(toIds[i]);
    }
    const namespaceOf = new Map<string, string>();
    const lookup = [...elsewhere];
    for (let i = 0; i < lookup.length; i += ROWS_PER_STATEMENT) {
      const { rows } = (await trx.raw(`SELECT id, namespace FROM ${VERTICES} WHERE id = ANY(?::uuid[])`, [
        arrayLiteral(lookup.slice(i, i + ROWS_PER_STATEMENT)),
      ])) as { rows: Array<{ id: string; namespace: string }> };
      for (const row of rows) namespaceOf.set(row.id, row.namespace);
    }
    // PostgreSQL answers a uuid in lower case.
    const exists = (i: number, id: string) =>
      isWritten(i, id) || (namespaceOf.get(id) ?? namespaceOf.get(id.toLowerCase())) === namespaces[i];
    const kept: number[] = [];
    for (let i = 0; i < ids.length; i++) if (exists(i, fromIds[i]) && exists(i, toIds[i])) kept.push(i);

    const kinds = this.kind.literals;
    for (let n = 0; n < kept.length; n += ROWS_PER_STATEMENT) {
      const rows = kept.slice(n, n + ROWS_PER_STATEMENT);
      const column = <T>(values: T[]) => rows.map((i) => values[i]);
      await trx.raw(
        `INSERT INTO ${EDGES} (id, namespace, label, from_id, from_label, to_id, to_label, properties, created_at, log_commit, log_prepare)
         SELECT u.id, k.namespace, k.label, u.from_id, k.from_label, u.to_id, k.to_label, coalesce(u.props, '{}'::jsonb), k.at, k.log_commit, k.log_prepare
           FROM unnest(?::uuid[], ?::uuid[], ?::uuid[], ?::jsonb[], ?::int[]) AS u(id, from_id, to_id, props, kind)
           JOIN unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::timestamptz[], ?::bigint[], ?::bigint[]) WITH ORDINALITY AS k(namespace, label, from_label, to_label, at, log_commit, log_prepare, kind) ON k.kind = u.kind
         ON CONFLICT (id) DO NOTHING`,
        [
          arrayLiteral(column(ids)),
          arrayLiteral(column(fromIds)),
          arrayLiteral(column(toIds)),
          arrayLiteral(column(this.properties)),
          `{${column(this.kinds).join(',')}}`,
          ...kinds,
        ],
      );
    }
  }
}

async function insertEdge(trx: Knex.Transaction, e: EdgeFacts, at: Date, log: LogColumns): Promise<void> {
  const columns = new EdgeColumns();
  columns.add(
    e.edgeId,
    e.edgeLabel,
    e.fromId,
    e.fromLabel,
    e.toId,
    e.toLabel,
    Object.keys(e.properties).length === 0 ? null : e.properties,
    e.namespace,
    at.toISOString(),
    log,
  );
  await columns.write(trx);
}

const isBatch = (type: string) => (GRAPH_BATCH_TYPES as readonly string[]).includes(type);

/**
 * Consecutive batch events (either form), written together: all their vertices, then all their
 * edges (an import's edges already follow its vertices), then one counter update per import.
 */
class ImportRun {
  readonly vertices = new VertexColumns();
  readonly edges = new EdgeColumns();
  readonly counts = new Map<string, { vertices: number; edges: number }>();

  get size(): number {
    return this.vertices.ids.length + this.edges.length;
  }

  add(type: string, data: GraphBatchData | PackedGraphBatchData, recordedAt: Date, log: LogColumns): void {
    const { namespace } = data;
    const at = recordedAt.toISOString();
    const count = this.counts.get(data.importId) ?? { vertices: 0, edges: 0 };
    eachBatchVertex(type, data, (id, label, entityId, properties) => {
      this.vertices.add(id, label, entityId, properties, namespace, at, log);
      count.vertices++;
    });
    eachBatchEdge(type, data, (id, label, fromId, fromLabel, toId, toLabel, properties) => {
      this.edges.add(id, label, fromId, fromLabel, toId, toLabel, properties, namespace, at, log);
      count.edges++;
    });
    this.counts.set(data.importId, count);
  }

  async write(trx: Knex.Transaction): Promise<void> {
    await this.vertices.write(trx);
    await this.edges.write(trx, this.vertices.written);
    for (const [importId, count] of this.counts) {
      await trx(IMPORTS)
        .where({ id: importId })
        .update({ vertices: trx.raw('vertices + ?', [count.vertices]), edges: trx.raw('edges + ?', [count.edges]) });
    }
  }
}

async function applyImport(trx: Knex.Transaction, event: GraphImportEvent, at: Date, log: LogColumns): Promise<void> {
  switch (event.type) {
    case 'GraphImportStarted':
      await trx(IMPORTS)
        .insert({
          id: event.data.importId,
          namespace: event.data.namespace,
          source: event.data.source,
          status: 'running',
          started_at: at,
        })
        .onConflict('id')
        .ignore();
      return;
    case 'GraphBatchImported':
    case 'PackedGraphBatchImported': {
      const run = new ImportRun();
      run.add(event.type, event.data, at, log);
      await run.write(trx);
      return;
    }
    case 'GraphImportCompleted':
      await trx(IMPORTS)
        .where({ id: event.data.importId })
        .update({ status: 'completed', by_label: JSON.stringify(event.data.byLabel), completed_at: at });
      return;
  }
}

async function applyVertex(trx: Knex.Transaction, event: VertexEvent, at: Date, log: LogColumns): Promise<void> {
  switch (event.type) {
    case 'VertexCreated': {
      const d = event.data;
      await trx(VERTICES)
        .insert({
          id: d.vertexId,
          namespace: d.namespace,
          label: d.label,
          entity_id: d.entityId,
          properties: JSON.stringify(d.properties),
          created_at: at,
          updated_at: at,
          ...log,
        })
        .onConflict('id')
        .ignore();
      return;
    }
    case 'VertexPropertiesUpdated':
    case 'WellProductionReported': {
      const removed = event.type === 'VertexPropertiesUpdated' ? event.data.removed : [];
      await trx(VERTICES)
        .where({ id: event.data.vertexId, namespace: event.data.namespace })
        .update({
          properties: trx.raw('(properties || ?::jsonb) - ?::text[]', [JSON.stringify(event.data.set), removed]),
          updated_at: at,
          ...log,
        });
      return;
    }
    case 'VertexDeleted': {
      const { vertexId, namespace } = event.data;
      // The vertex and its surviving neighbors, at this position, before the rows go.
      await trx.raw(
        `INSERT INTO ${REMOVALS} (namespace, vertex_id, label, entity_id, removed, log_commit, log_prepare)
         SELECT v.namespace, v.id, v.label, v.entity_id, v.id = :vertexId, :commit, :prepare FROM ${VERTICES} v
          WHERE v.namespace = :namespace AND (v.id = :vertexId
             OR v.id IN (SELECT to_id FROM ${EDGES} WHERE namespace = :namespace AND from_id = :vertexId
                         UNION SELECT from_id FROM ${EDGES} WHERE namespace = :namespace AND to_id = :vertexId))`,
        { namespace, vertexId, commit: log.log_commit, prepare: log.log_prepare },
      );
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
  // 2: log positions on rows, and the removals table (a rebuild fills them from the log).
  version: 2,
  tables: [EDGES, VERTICES, IMPORTS, REMOVALS],
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
        run.add(event.type, event.data as GraphBatchData | PackedGraphBatchData, event.recordedAt, logOf(event));
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
    await insertEdge(trx, e, event.recordedAt, logOf(event));
  } else if ((IMPORT_EVENT_TYPES as readonly string[]).includes(event.type)) {
    await applyImport(trx, { type: event.type, data: event.data } as GraphImportEvent, event.recordedAt, logOf(event));
  } else {
    await applyVertex(trx, { type: event.type, data: event.data } as VertexEvent, event.recordedAt, logOf(event));
  }
}
