import { randomUUID } from 'node:crypto';
import type { PlatformDeps } from '../../src/platform/context-module';
import { ValidationFailed } from '../../src/platform/domain-errors';
import type { Position } from '../../src/platform/eventstore/types';
import { currentScope } from '../../src/platform/http/request-scope';
import { ANY_LABEL, type RelationshipRuleDefinition } from '../../streams/graph/schema';
import {
  type GraphImportEvent,
  IMPORT_BATCH_SIZE,
  type ImportedEdge,
  type ImportedVertex,
  packBatch,
} from '../../streams/graph/graph-import';
import { importStream, namespaceOf } from '../../streams/graph/names';
import { edgeLabels, listRelationshipRules, vertexLabels } from '../../queries/graph/graph-schema';
import type { GraphActor } from './actor';

export interface GraphImport {
  importId: string;
  namespace: string;
  source: string;
  description: string;
  vertices: ImportedVertex[];
  edges: ImportedEdge[];
  /** Every edge id was made with `importedEdgeId` (the ingestion feed): the batches leave them out unchecked. */
  derivedEdgeIds?: boolean;
}

export interface ImportSchema {
  vertexLabels: Set<string>;
  edgeLabels: Set<string>;
  rules: RelationshipRuleDefinition[];
}

/**
 * The decide step of a bulk import: every vertex label configured, every edge allowed by a
 * rule and joining vertices of this import (or `existing` ones); then the batches.
 */
export function planImport(
  command: GraphImport,
  schema: ImportSchema,
  existing: Set<string> = new Set(),
  batchSize = IMPORT_BATCH_SIZE,
): GraphImportEvent[] {
  const labelOf = new Map<string, string>();
  command.vertices.forEach((v, i) => {
    if (!schema.vertexLabels.has(v.label))
      throw new ValidationFailed([
        { loc: ['vertices', i, 'label'], msg: `unknown vertex label '${v.label}'`, type: 'value_error.label' },
      ]);
    labelOf.set(v.id, v.label);
  });
  const allowed = new Set(schema.rules.map((r) => `${r.edge_label}|${r.from_label}|${r.to_label}`));
  // Decided once per (label, from label, to label): an import has a handful of them and many edges.
  const admitted = new Map<string, boolean>();
  const admits = (e: ImportedEdge) => {
    const triple = `${e.label}|${e.from_label}|${e.to_label}`;
    let yes = admitted.get(triple);
    if (yes === undefined)
      admitted.set(
        triple,
        (yes = [e.from_label, ANY_LABEL].some((f) =>
          [e.to_label, ANY_LABEL].some((t) => allowed.has(`${e.label}|${f}|${t}`)),
        )),
      );
    return yes;
  };
  const checkEndpoint = (i: number, id: string, label: string, side: 'from_id' | 'to_id') => {
    const known = labelOf.get(id);
    if (known === undefined ? !existing.has(id) : known !== label) {
      throw new ValidationFailed([
        { loc: ['edges', i, side], msg: `no ${label} vertex ${id} in this import`, type: 'value_error.endpoint' },
      ]);
    }
  };
  command.edges.forEach((e, i) => {
    if (!schema.edgeLabels.has(e.label))
      throw new ValidationFailed([
        { loc: ['edges', i, 'label'], msg: `unknown edge label '${e.label}'`, type: 'value_error.edge_label' },
      ]);
    if (!admits(e))
      throw new ValidationFailed([
        {
          loc: ['edges', i, 'label'],
          msg: `no ${e.label} rule joins ${e.from_label} to ${e.to_label}`,
          type: 'value_error.edge_endpoint',
        },
      ]);
    checkEndpoint(i, e.from_id, e.from_label, 'from_id');
    checkEndpoint(i, e.to_id, e.to_label, 'to_id');
  });
  const { importId, namespace } = command;
  const events: GraphImportEvent[] = [
    {
      type: 'GraphImportStarted',
      data: { importId, namespace, source: command.source, description: command.description },
    },
  ];
  // Vertices first, so an edge never projects before both of its endpoints.
  const vertices = command.vertices.length;
  const items = vertices + command.edges.length;
  for (let start = 0, batch = 0; start < items; start += batchSize, batch++) {
    const end = Math.min(start + batchSize, items);
    const packed = packBatch(
      namespace,
      command.vertices.slice(start, Math.min(end, vertices)),
      command.edges.slice(Math.max(start - vertices, 0), Math.max(end - vertices, 0)),
      command.derivedEdgeIds,
    );
    events.push({ type: 'PackedGraphBatchImported', data: { importId, namespace, batch, ...packed } });
  }
  const byLabel: Record<string, number> = {};
  for (const v of command.vertices) byLabel[v.label] = (byLabel[v.label] ?? 0) + 1;
  for (const e of command.edges) byLabel[e.label] = (byLabel[e.label] ?? 0) + 1;
  events.push({
    type: 'GraphImportCompleted',
    data: { importId, namespace, vertices: command.vertices.length, edges: command.edges.length, byLabel },
  });
  return events;
}

export async function loadImportSchema(knex: PlatformDeps['knex']): Promise<ImportSchema> {
  const [v, e, rules] = await Promise.all([vertexLabels(knex), edgeLabels(knex), listRelationshipRules(knex)]);
  return { vertexLabels: new Set(v), edgeLabels: new Set(e), rules };
}

export interface ImportResult {
  import_id: string;
  namespace: string;
  vertices: number;
  edges: number;
  by_label: Record<string, number>;
  events: number;
  position: Position;
}

/**
 * Appends the import as one stream (events appended a few at a time, each carrying a batch)
 * and waits until the projections hold it, so the graph is queryable when this returns.
 */
export async function importGraph(
  deps: Pick<PlatformDeps, 'store' | 'knex'> & { projections: { waitFor(p: Position, ms: number): Promise<boolean> } },
  actor: GraphActor,
  input: {
    source: string;
    description: string;
    vertices: ImportedVertex[];
    edges: ImportedEdge[];
    importId?: string;
    existing?: Set<string>;
    derivedEdgeIds?: boolean;
  },
  options: { eventsPerAppend?: number; waitMs?: number; schema?: ImportSchema } = {},
): Promise<ImportResult> {
  const importId = input.importId ?? randomUUID();
  const namespace = namespaceOf(actor.tenantId);
  // A feed of many imports (a CSV file in batches) loads the schema once and passes it.
  const schema = options.schema ?? (await loadImportSchema(deps.knex));
  const events = planImport(
    {
      importId,
      namespace,
      source: input.source,
      description: input.description,
      vertices: input.vertices,
      edges: input.edges,
      derivedEdgeIds: input.derivedEdgeIds,
    },
    schema,
    input.existing,
  );
  const stream = importStream(actor.tenantId, importId);
  // A bulk import made by a request (seed, ingestion) carries its request id, like every command.
  const correlationId = currentScope()?.requestId ?? randomUUID();
  const metadata = { tenantId: actor.tenantId, actorId: actor.userId, correlationId, causationId: correlationId };
  const perAppend = options.eventsPerAppend ?? 8;
  let expected: 'no_stream' | bigint = 'no_stream';
  let position: Position | null = null;
  for (let i = 0; i < events.length; i += perAppend) {
    const chunk = events
      .slice(i, i + perAppend)
      .map((e) => ({ id: randomUUID(), type: e.type, data: e.data, metadata }));
    const result = await deps.store.append(stream, chunk, { expectedRevision: expected });
    expected = result.nextRevision;
    position = result.position;
  }
  await deps.projections.waitFor(position!, options.waitMs ?? 600_000);
  const completed = events[events.length - 1] as Extract<GraphImportEvent, { type: 'GraphImportCompleted' }>;
  return {
    import_id: importId,
    namespace,
    vertices: input.vertices.length,
    edges: input.edges.length,
    by_label: completed.data.byLabel,
    events: events.length,
    position: position!,
  };
}
