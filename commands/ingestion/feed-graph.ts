import type { PlatformDeps } from '../../src/platform/context-module';
import type { Position } from '../../src/platform/eventstore/types';
import { derivedUuid } from '../../src/platform/command-handling/idempotency';
import { EDGES, VERTICES } from '../../projections/graph/property-graph';
import { derivedEdge, type ImportedEdge, type ImportedVertex } from '../../streams/graph/graph-import';
import { namespaceOf, vertexStream } from '../../streams/graph/names';
import type { Properties } from '../../streams/graph/properties';
import { commandContext, type GraphActor } from '../graph/actor';
import { importGraph, type ImportSchema } from '../graph/import-graph';
import { type UpdateEntity, updateEntityDecider } from '../graph/update-entity';
import {
  productionChanges,
  type UpdateWellProduction,
  updateWellProductionDecider,
  type WellProduction,
} from '../graph/update-well-production';

/**
 * What ingestion learned, as graph facts keyed by business ids (API number, `P5-…`,
 * lease key…). The knowledge graph is written only through the graph context's own
 * commands: new vertices and edges as one bulk import (GraphImportStarted/GraphBatchImported),
 * changed properties as UpdateEntity, Form PR figures as UpdateWellProduction. Feeding the
 * same facts twice appends nothing: vertex and edge ids derive from the business keys, and
 * only properties that differ from the read model become updates.
 */
export interface EntityFact {
  label: string;
  entityId: string;
  properties: Properties;
  /** Only link to a vertex that already has this `name` (free-text extraction); never create. */
  matchByName?: string;
}

export interface RelationFact {
  label: string;
  from: { label: string; entityId: string };
  to: { label: string; entityId: string };
}

export interface ProductionFact {
  apiNumber: string;
  report: WellProduction;
}

export interface GraphFacts {
  entities: EntityFact[];
  relations: RelationFact[];
  production?: ProductionFact[];
}

export interface FeedResult {
  created: number;
  updated: number;
  unchanged: number;
  edges_created: number;
  production_reports: number;
  skipped: number;
}

export type FeedDeps = Pick<PlatformDeps, 'store' | 'knex' | 'projections' | 'handle'>;

interface KnownVertex {
  id: string;
  label: string;
  entity_id: string;
  properties: Properties;
}

const key = (label: string, entityId: string) => `${label}\u001f${entityId}`;
const LOOKUP_CHUNK = 1000;
/** Graph batch events per append (≈120 kB each): one round trip and one commit for ≈2 MB. */
const EVENTS_PER_APPEND = 16;

/**
 * A feed's edges, one per relation (label, from and to vertex) in the order first stated,
 * found by their endpoints' ids: the same strings the vertex's other edges carry, each hashed
 * once. A key string of label and two uuids per relation (an import states four per row) is a
 * new string, flattened and hashed at every lookup: ~1.2 µs each, 0.5 s per 100,000 rows.
 */
class Relations {
  private readonly edges: Array<ImportedEdge | null> = [];
  /** from id → to id → indexes into `edges` (one per label between the two). */
  private readonly byEnds = new Map<string, Map<string, number[]>>();

  private indexOf(label: string, fromId: string, toId: string): number {
    for (const i of this.byEnds.get(fromId)?.get(toId) ?? []) if (this.edges[i]?.label === label) return i;
    return -1;
  }

  has(label: string, fromId: string, toId: string): boolean {
    return this.indexOf(label, fromId, toId) >= 0;
  }

  add(edge: ImportedEdge): void {
    let to = this.byEnds.get(edge.from_id);
    if (!to) this.byEnds.set(edge.from_id, (to = new Map()));
    const at = to.get(edge.to_id);
    const i = this.edges.push(edge) - 1;
    if (at) at.push(i);
    else to.set(edge.to_id, [i]);
  }

  /** Forgets the edge of the same relation as `edge`, if there is one. */
  delete(edge: Pick<ImportedEdge, 'label' | 'from_id' | 'to_id'>): void {
    const i = this.indexOf(edge.label, edge.from_id, edge.to_id);
    if (i >= 0) this.edges[i] = null;
  }

  values(): ImportedEdge[] {
    return this.edges.filter((e): e is ImportedEdge => e !== null);
  }
}

async function knownVertices(
  deps: FeedDeps,
  namespace: string,
  entities: EntityFact[],
): Promise<Map<string, KnownVertex>> {
  const found = new Map<string, KnownVertex>();
  const byKey = entities.filter((e) => !e.matchByName);
  for (let i = 0; i < byKey.length; i += LOOKUP_CHUNK) {
    const chunk = byKey.slice(i, i + LOOKUP_CHUNK);
    // One index probe per key (LATERAL … LIMIT 1): right after a bulk load the table's
    // statistics still describe it as small, and a plain join then sorts the whole namespace.
    const { rows } = (await deps.knex.raw(
      `SELECT v.id, v.label, v.entity_id, v.properties
         FROM unnest(?::text[], ?::text[]) AS k(label, entity_id)
         CROSS JOIN LATERAL (
           SELECT id, label, entity_id, properties FROM ${VERTICES}
            WHERE namespace = ? AND label = k.label AND entity_id = k.entity_id
            ORDER BY created_at LIMIT 1) v`,
      [chunk.map((e) => e.label), chunk.map((e) => e.entityId), namespace],
    )) as { rows: KnownVertex[] };
    for (const row of rows)
      if (!found.has(key(row.label, row.entity_id))) found.set(key(row.label, row.entity_id), row);
  }
  for (const e of entities.filter((x) => x.matchByName)) {
    const row: KnownVertex | undefined = await deps
      .knex(VERTICES)
      .select('id', 'label', 'entity_id', 'properties')
      .where({ namespace, label: e.label })
      .whereRaw(`upper(properties->>'name') = upper(?)`, [e.matchByName!])
      .orderBy('created_at')
      .first();
    if (row) found.set(key(e.label, e.entityId), row);
  }
  return found;
}

/** Later facts about the same entity refine earlier ones within one feed. */
function merged(entities: EntityFact[]): EntityFact[] {
  const out = new Map<string, EntityFact>();
  for (const e of entities) {
    const k = key(e.label, e.entityId);
    const prior = out.get(k);
    // The first fact is copied, so the later ones (a lease named on each of its wells' rows) merge into the copy.
    if (prior) Object.assign(prior.properties, e.properties);
    else out.set(k, { ...e, properties: { ...e.properties } });
  }
  return [...out.values()];
}

export interface FeedOptions {
  /**
   * Wait until the graph projection holds the new vertices before returning (default). A bulk
   * feed of many batches waits only after its last one: ids derive from business keys, so a
   * batch that does not see an earlier one's vertices yet re-declares them with the same ids
   * and the projection keeps one.
   */
  waitForProjection?: boolean;
  /**
   * Shared by the batches of one bulk feed: the keys earlier batches created. They count as
   * existing (same derived id) even before the projection holds them, so an operator or lease
   * named on many rows is created once and counted once.
   */
  createdEarlier?: Set<string>;
  /** Shared by the batches of one bulk feed: the graph schema, loaded once. */
  schema?: ImportSchema;
  /**
   * The plan of the batch still being written while this one is planned (a pipelined bulk
   * feed): what it creates and updates counts as the graph's, exactly as if it had committed.
   */
  inFlight?: FeedPlan;
}

/** What one feed will write, decided from the graph as it stands (and the batch in flight). */
export interface FeedPlan {
  namespace: string;
  newVertices: ImportedVertex[];
  newEdges: ImportedEdge[];
  /** Vertex ids of the graph (not of this plan) the new edges touch. */
  existing: Set<string>;
  updates: UpdateEntity[];
  production: ProductionFact[];
  /** Every vertex this plan creates or changes, as it will stand, by key. */
  written: Map<string, KnownVertex>;
  result: FeedResult;
}

export async function feedGraph(
  deps: FeedDeps,
  actor: GraphActor,
  facts: GraphFacts,
  source: { source: string; description: string },
  options: FeedOptions = {},
): Promise<FeedResult & { position: Position | null }> {
  return commitFeed(deps, actor, await planFeed(deps, actor, facts, options), source, options);
}

/** The decide half of a feed: lookups and comparisons, nothing written. */
export async function planFeed(
  deps: FeedDeps,
  actor: GraphActor,
  facts: GraphFacts,
  options: FeedOptions = {},
): Promise<FeedPlan> {
  const namespace = namespaceOf(actor.tenantId);
  const entities = merged(facts.entities);
  const inFlight = options.inFlight?.written;
  const known = await knownVertices(deps, namespace, entities);
  if (inFlight)
    for (const e of entities)
      if (!e.matchByName && inFlight.has(key(e.label, e.entityId)))
        known.set(key(e.label, e.entityId), inFlight.get(key(e.label, e.entityId))!);
  const result: FeedResult = {
    created: 0,
    updated: 0,
    unchanged: 0,
    edges_created: 0,
    production_reports: 0,
    skipped: 0,
  };
  const written = new Map<string, KnownVertex>();

  const idOf = new Map<string, string>();
  const labelOfId = new Map<string, string>();
  const newVertices: ImportedVertex[] = [];
  const updates: UpdateEntity[] = [];
  for (const e of entities) {
    const k = key(e.label, e.entityId);
    const existing = known.get(k);
    if (existing) {
      idOf.set(k, existing.id);
      labelOfId.set(existing.id, existing.label);
      // A name match links to the vertex; it never rewrites what the graph holds.
      const set = e.matchByName
        ? {}
        : Object.fromEntries(
            Object.entries(e.properties).filter(
              ([name, value]) => name !== 'entity_id' && existing.properties[name] !== value,
            ),
          );
      if (Object.keys(set).length === 0) result.unchanged++;
      else {
        updates.push({
          type: 'UpdateEntity',
          vertexId: existing.id,
          namespace,
          set,
          removed: [],
          imported: { label: existing.label, entityId: existing.entity_id, properties: existing.properties },
        });
        written.set(k, { ...existing, properties: { ...existing.properties, ...set } });
      }
    } else if (e.matchByName) {
      result.skipped++;
    } else if (options.createdEarlier?.has(k)) {
      const id = derivedUuid('graph-vertex', namespace, e.label, e.entityId);
      idOf.set(k, id);
      labelOfId.set(id, e.label);
      result.unchanged++;
    } else {
      const id = derivedUuid('graph-vertex', namespace, e.label, e.entityId);
      idOf.set(k, id);
      labelOfId.set(id, e.label);
      // The merged fact's properties are this feed's own copy (`merged`): completed in place
      // rather than copied again (an import creates 100,000 vertices of ~15 properties each).
      e.properties.entity_id = e.entityId;
      const vertex = { id, label: e.label, entity_id: e.entityId, properties: e.properties };
      newVertices.push(vertex);
      written.set(k, vertex);
    }
  }

  // Endpoints outside this feed are looked up too (a production row for a well imported earlier).
  const missing = new Map<string, EntityFact>();
  for (const r of facts.relations) {
    for (const end of [r.from, r.to]) {
      const k = key(end.label, end.entityId);
      if (idOf.has(k)) continue;
      const pending = inFlight?.get(k);
      if (pending) {
        idOf.set(k, pending.id);
        labelOfId.set(pending.id, pending.label);
      } else missing.set(k, { label: end.label, entityId: end.entityId, properties: {} });
    }
  }
  for (const [k, v] of await knownVertices(deps, namespace, [...missing.values()])) {
    idOf.set(k, v.id);
    labelOfId.set(v.id, v.label);
  }
  // By relation (label and endpoints), so the same relation stated again (a CSV names a lease's
  // operator on each of its wells' rows) is one edge. Its id derives from the same three and is
  // hashed only when needed: the batches leave derived ids out.
  const candidateEdges = new Relations();
  for (const r of facts.relations) {
    const fromId = idOf.get(key(r.from.label, r.from.entityId));
    const toId = idOf.get(key(r.to.label, r.to.entityId));
    if (!fromId || !toId) {
      result.skipped++;
      continue;
    }
    if (!candidateEdges.has(r.label, fromId, toId))
      candidateEdges.add(derivedEdge(namespace, r.label, fromId, labelOfId.get(fromId)!, toId, labelOfId.get(toId)!));
  }
  // An edge id derives from its endpoints, so an edge touching a vertex this feed creates
  // cannot be stored yet: only edges between vertices the graph already holds are looked up
  // (and those the batch in flight writes are as good as stored).
  const newIds = new Set(newVertices.map((v) => v.id));
  if (options.inFlight) for (const e of options.inFlight.newEdges) candidateEdges.delete(e);
  const stored = new Map<string, ImportedEdge>();
  for (const e of candidateEdges.values()) if (!newIds.has(e.from_id) && !newIds.has(e.to_id)) stored.set(e.id, e);
  const edgeIds = [...stored.keys()];
  for (let i = 0; i < edgeIds.length; i += LOOKUP_CHUNK) {
    // By primary key only (the ids derive from the namespace already), for the same reason.
    const { rows } = (await deps.knex.raw(`SELECT id, namespace FROM ${EDGES} WHERE id = ANY(?::uuid[])`, [
      edgeIds.slice(i, i + LOOKUP_CHUNK),
    ])) as { rows: Array<{ id: string; namespace: string }> };
    for (const row of rows) if (row.namespace === namespace) candidateEdges.delete(stored.get(row.id)!);
  }
  const newEdges = candidateEdges.values();
  const existing = new Set([...idOf.values()].filter((id) => !newIds.has(id)));
  return { namespace, newVertices, newEdges, existing, updates, production: facts.production ?? [], written, result };
}

/** Records in a bulk feed's `createdEarlier` the vertices a plan creates, once they are written. */
export function markCreated(plan: Pick<FeedPlan, 'newVertices'>, createdEarlier: Set<string>): void {
  for (const v of plan.newVertices) createdEarlier.add(key(v.label, v.entity_id));
}

/** The write half: the new vertices and edges as one bulk import, then the updates and Form PR reports. */
export async function commitFeed(
  deps: FeedDeps,
  actor: GraphActor,
  plan: FeedPlan,
  source: { source: string; description: string },
  options: FeedOptions = {},
): Promise<FeedResult & { position: Position | null }> {
  const { namespace, newVertices, newEdges, existing, updates } = plan;
  const result: FeedResult & { position: Position | null } = { ...plan.result, position: null };
  if (newVertices.length > 0 || newEdges.length > 0) {
    const imported = await importGraph(
      deps,
      actor,
      { ...source, vertices: newVertices, edges: newEdges, existing, derivedEdgeIds: true },
      {
        waitMs: options.waitForProjection === false ? 0 : undefined,
        schema: options.schema,
        eventsPerAppend: EVENTS_PER_APPEND,
      },
    );
    result.position = imported.position;
    if (options.createdEarlier) markCreated(plan, options.createdEarlier);
    result.created = newVertices.length;
    result.edges_created = newEdges.length;
  }
  for (const command of updates) {
    await deps.handle(
      updateEntityDecider,
      vertexStream(actor.tenantId, command.vertexId),
      command,
      commandContext(actor),
    );
    result.updated++;
  }
  result.production_reports = await feedProduction(deps, actor, namespace, plan.production);
  return result;
}

/** Wells whose Form PR reports are applied at the same time (each well's months in order). */
const PRODUCTION_CONCURRENCY = 4;

/** Form PR reports through UpdateWellProduction; a report the well already shows is skipped. */
async function feedProduction(
  deps: FeedDeps,
  actor: GraphActor,
  namespace: string,
  reports: ProductionFact[],
): Promise<number> {
  if (reports.length === 0) return 0;
  const byWell = new Map<string, WellProduction[]>();
  for (const { apiNumber, report } of reports) byWell.set(apiNumber, [...(byWell.get(apiNumber) ?? []), report]);
  const wells = await knownVertices(
    deps,
    namespace,
    [...byWell.keys()].map((api) => ({ label: 'Well', entityId: api, properties: {} })),
  );
  const queue = [...byWell.entries()];
  let appended = 0;
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const [apiNumber, months] = next;
      let well = wells.get(key('Well', apiNumber));
      if (!well) continue;
      // Months in order, so the "current" fields end on the newest month.
      for (const report of [...months].sort((a, b) => a.reporting_month.localeCompare(b.reporting_month))) {
        const set = productionChanges(well.properties, report);
        if (Object.entries(set).every(([name, value]) => well!.properties[name] === value)) continue;
        const command: UpdateWellProduction = {
          type: 'UpdateWellProduction',
          vertexId: well.id,
          namespace,
          report,
          imported: { label: well.label, entityId: well.entity_id, properties: well.properties },
        };
        await deps.handle(
          updateWellProductionDecider,
          vertexStream(actor.tenantId, well.id),
          command,
          commandContext(actor),
        );
        well = { ...well, properties: { ...well.properties, ...set } };
        appended++;
      }
    }
  };
  await Promise.all(Array.from({ length: PRODUCTION_CONCURRENCY }, worker));
  return appended;
}
