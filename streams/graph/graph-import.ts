import { derivedUuid } from '../../src/platform/command-handling/idempotency';
import type { Properties } from './properties';

/**
 * Bulk loads (seed data, ingestion) are one stream per import whose events each carry a
 * batch of vertices and edges: one append and one multi-row insert per batch instead of one
 * stream and one transaction per vertex.
 */
export interface ImportedVertex {
  id: string;
  label: string;
  entity_id: string;
  properties: Properties;
}

export interface ImportedEdge {
  id: string;
  label: string;
  from_id: string;
  from_label: string;
  to_id: string;
  to_label: string;
  properties: Properties;
}

/**
 * Vertices of one label in a packed batch: the property names once, then one row per vertex,
 * `[id, entity_id, ...values]` with a value per name (null: the vertex has no such property).
 */
export interface PackedVertices {
  label: string;
  keys: string[];
  rows: Array<Array<string | null>>;
}

/**
 * Edges of one label between two vertex labels: rows `[from_id, to_id, ...values]`. An edge's
 * id is `importedEdgeId(namespace, label, from, to)` unless the group lists `ids` (edges whose
 * ids were chosen otherwise, e.g. the seed's random ones), one per row.
 */
export interface PackedEdges {
  label: string;
  fromLabel: string;
  toLabel: string;
  keys: string[];
  rows: Array<Array<string | null>>;
  ids?: string[];
}

export type GraphBatchData = {
  importId: string;
  namespace: string;
  batch: number;
  vertices: ImportedVertex[];
  edges: ImportedEdge[];
};
export type PackedGraphBatchData = {
  importId: string;
  namespace: string;
  batch: number;
  vertices: PackedVertices[];
  edges: PackedEdges[];
};

/**
 * `GraphBatchImported` (one object per vertex and edge: ≈ 1,070 bytes of JSON for a CSV row's
 * well and its three edges) is still read; imports now write `PackedGraphBatchImported`, the
 * same facts with labels and property names once per group and edge ids derived from their
 * endpoints (≈ 470 bytes for the same row): less to sign, store, compress and read back.
 */
export type GraphImportEvent =
  | { type: 'GraphImportStarted'; data: { importId: string; namespace: string; source: string; description: string } }
  | { type: 'GraphBatchImported'; data: GraphBatchData }
  | { type: 'PackedGraphBatchImported'; data: PackedGraphBatchData }
  | {
      type: 'GraphImportCompleted';
      data: { importId: string; namespace: string; vertices: number; edges: number; byLabel: Record<string, number> };
    };

export const GRAPH_BATCH_TYPES = ['GraphBatchImported', 'PackedGraphBatchImported'] as const;
export const IMPORT_EVENT_TYPES = ['GraphImportStarted', ...GRAPH_BATCH_TYPES, 'GraphImportCompleted'] as const;

/** Vertices and edges per packed batch event (≈ 100 kB): large enough to amortise, small enough to read back. */
export const IMPORT_BATCH_SIZE = 1000;

/** The id of an imported edge no one chose otherwise: a function of its endpoints, so feeding it twice keeps one. */
export const importedEdgeId = (namespace: string, label: string, fromId: string, toId: string) =>
  derivedUuid('graph-edge', namespace, label, fromId, toId);

/**
 * An imported edge whose id is `importedEdgeId`, hashed the first time it is read: a feed
 * compares edges by their endpoints and packs them without ids, so most are never hashed.
 * An instance of a class, its getter on the prototype: an object literal with a getter of its
 * own cost a closure and an accessor pair per edge, 3 µs each (400,000 edges: 1.3 s), against
 * 0.8 µs for this. So the id is not an own property: a copy (`{ ...edge }`) has none.
 */
class DerivedEdge implements ImportedEdge {
  // Private fields: the edge's own properties are an edge's, and nothing else.
  readonly #namespace: string;
  #id: string | undefined;
  readonly properties: Properties = {};
  constructor(
    namespace: string,
    readonly label: string,
    readonly from_id: string,
    readonly from_label: string,
    readonly to_id: string,
    readonly to_label: string,
  ) {
    this.#namespace = namespace;
  }

  get id(): string {
    return (this.#id ??= importedEdgeId(this.#namespace, this.label, this.from_id, this.to_id));
  }
}

export function derivedEdge(
  namespace: string,
  label: string,
  fromId: string,
  fromLabel: string,
  toId: string,
  toLabel: string,
): ImportedEdge {
  return new DerivedEdge(namespace, label, fromId, fromLabel, toId, toLabel);
}

function keysOf(items: Array<{ properties: Properties }>): string[] {
  const keys = new Set<string>();
  for (const item of items) for (const name in item.properties) keys.add(name);
  return [...keys];
}

function groupBy<T>(items: T[], keyOf: (item: T) => string): T[][] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = keyOf(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return [...groups.values()];
}

const valuesOf = (keys: string[], properties: Properties) => keys.map((k) => properties[k] ?? null);

/**
 * One batch packed: vertices grouped by label, edges by label and endpoint labels, order kept
 * within a group. `derivedEdgeIds`: the caller made every edge id with `importedEdgeId`, so
 * none is checked (a hash per edge) and none is written.
 */
export function packBatch(
  namespace: string,
  vertices: ImportedVertex[],
  edges: ImportedEdge[],
  derivedEdgeIds = false,
): Pick<PackedGraphBatchData, 'vertices' | 'edges'> {
  return {
    vertices: groupBy(vertices, (v) => v.label).map((group) => {
      const keys = keysOf(group);
      return {
        label: group[0].label,
        keys,
        rows: group.map((v) => [v.id, v.entity_id, ...valuesOf(keys, v.properties)]),
      };
    }),
    edges: groupBy(edges, (e) => `${e.label}\u001f${e.from_label}\u001f${e.to_label}`).map((group) => {
      const keys = keysOf(group);
      const { label, from_label: fromLabel, to_label: toLabel } = group[0];
      const packed: PackedEdges = {
        label,
        fromLabel,
        toLabel,
        keys,
        rows: group.map((e) => [e.from_id, e.to_id, ...valuesOf(keys, e.properties)]),
      };
      if (!derivedEdgeIds && group.some((e) => e.id !== importedEdgeId(namespace, label, e.from_id, e.to_id)))
        packed.ids = group.map((e) => e.id);
      return packed;
    }),
  };
}

function propertiesOf(keys: string[], row: Array<string | null>, offset: number): Properties {
  const properties: Properties = {};
  for (let i = 0; i < keys.length; i++) {
    const value = row[offset + i];
    if (value !== null && value !== undefined) properties[keys[i]] = value;
  }
  return properties;
}

/**
 * Each vertex of a batch event of either form, handed over field by field: a bulk reader (the
 * graph projection) keeps columns and builds no object per vertex.
 */
export function eachBatchVertex(
  type: string,
  data: GraphBatchData | PackedGraphBatchData,
  visit: (id: string, label: string, entityId: string, properties: Properties) => void,
): void {
  if (type !== 'PackedGraphBatchImported') {
    for (const v of (data as GraphBatchData).vertices) visit(v.id, v.label, v.entity_id, v.properties);
    return;
  }
  for (const group of (data as PackedGraphBatchData).vertices)
    for (const row of group.rows) visit(row[0]!, group.label, row[1]!, propertiesOf(group.keys, row, 2));
}

/** Each edge of a batch event of either form, field by field; `properties` is null for an edge without any. */
export function eachBatchEdge(
  type: string,
  data: GraphBatchData | PackedGraphBatchData,
  visit: (
    id: string,
    label: string,
    fromId: string,
    fromLabel: string,
    toId: string,
    toLabel: string,
    properties: Properties | null,
  ) => void,
): void {
  if (type !== 'PackedGraphBatchImported') {
    for (const e of (data as GraphBatchData).edges)
      visit(
        e.id,
        e.label,
        e.from_id,
        e.from_label,
        e.to_id,
        e.to_label,
        Object.keys(e.properties).length === 0 ? null : e.properties,
      );
    return;
  }
  const { namespace } = data as PackedGraphBatchData;
  for (const group of (data as PackedGraphBatchData).edges) {
    group.rows.forEach((row, i) =>
      visit(
        group.ids?.[i] ?? importedEdgeId(namespace, group.label, row[0]!, row[1]!),
        group.label,
        row[0]!,
        group.fromLabel,
        row[1]!,
        group.toLabel,
        group.keys.length === 0 ? null : propertiesOf(group.keys, row, 2),
      ),
    );
  }
}

/** The vertices of a batch event of either form. */
export function batchVertices(type: string, data: GraphBatchData | PackedGraphBatchData): ImportedVertex[] {
  const vertices: ImportedVertex[] = [];
  eachBatchVertex(type, data, (id, label, entity_id, properties) =>
    vertices.push({ id, label, entity_id, properties }),
  );
  return vertices;
}

/** The edges of a batch event of either form. */
export function batchEdges(type: string, data: GraphBatchData | PackedGraphBatchData): ImportedEdge[] {
  const edges: ImportedEdge[] = [];
  eachBatchEdge(type, data, (id, label, from_id, from_label, to_id, to_label, properties) =>
    edges.push({ id, label, from_id, from_label, to_id, to_label, properties: properties ?? {} }),
  );
  return edges;
}
