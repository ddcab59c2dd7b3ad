import type { Knex } from 'knex';
import { findVertex } from '../../../queries/graph/entities';
import type { EventStore, Position, RecordedEvent } from '../../platform/eventstore/types';
import { comparePositions, positionToString } from '../../platform/eventstore/types';
import { formPrChecks, type FormPrCheck } from '../../../streams/checklists/form-pr-checks';
import { eachBatchVertex } from '../../../streams/graph/graph-import';
import { importStream, namespaceOf, vertexStream } from '../../../streams/graph/names';
import type { Properties } from '../../../streams/graph/properties';
import { evolveVertex, readVertexEvent, type VertexState } from '../../../streams/graph/vertex';
import { authorizationTerms } from '../../../commands/compliance/packs/rule-32';
import { FIGURE_FIELDS } from '../../../commands/compliance/rules/figures';
import { formPrFigureRows, formPrFigures, loadFormPrContext, loadWellFacts, type FilingPayload } from '../checklists';

/**
 * The log as it stood at one position: a vertex's properties folded from its own stream and the
 * bulk imports that loaded it, the event that last set its production figures, and the chain
 * anchors of the streams read. What an evidence package cites and what `ops evidence replay`
 * recomputes from (docs/filings.md#replay).
 */
export interface EventRef {
  event_id: string;
  type: string;
  stream: string;
  revision: string;
  position: string;
}

export interface Anchor {
  stream: string;
  revision: string;
  /** The HMAC signature of the stream's event at that revision: the head of its signed chain. */
  chain_hash: string;
}

export interface VertexAsOf {
  vertex_id: string;
  label: string;
  entity_id: string;
  properties: Properties;
  /** The last event at or before the position that set a production figure (null: none did). */
  figures_set_by: EventRef | null;
}

const atOrBefore = (e: RecordedEvent, position: Position) => comparePositions(e.position, position) <= 0;
export const eventRef = (e: RecordedEvent): EventRef => ({
  event_id: e.id,
  type: e.type,
  stream: e.stream,
  revision: String(e.revision),
  position: positionToString(e.position),
});
export const anchorOf = (e: RecordedEvent): Anchor => ({
  stream: e.stream,
  revision: String(e.revision),
  chain_hash: e.metadata.signature,
});

const FIGURES = new Set<string>([...FIGURE_FIELDS, 'gas_sold_mcf', 'gas_used_on_lease_mcf']);

/** Collects the anchors of every stream read: the last event read of each. */
export class Anchors {
  private readonly heads = new Map<string, RecordedEvent>();
  add(event: RecordedEvent | undefined): void {
    if (!event) return;
    const known = this.heads.get(event.stream);
    if (!known || known.revision < event.revision) this.heads.set(event.stream, event);
  }
  list(): Anchor[] {
    return [...this.heads.values()].map(anchorOf).sort((a, b) => a.stream.localeCompare(b.stream));
  }
}

interface Imported {
  properties: Properties;
  label: string;
  entityId: string;
  event: RecordedEvent;
}

/** The import batches at or before `position` that carry the vertex (a bulk-loaded vertex has no stream of its own until its first API write). */
async function importedAs(
  store: EventStore,
  tenantId: string,
  vertexId: string,
  position: Position,
  anchors: Anchors,
): Promise<Imported | null> {
  let found: Imported | null = null;
  let from: Position | undefined;
  for (;;) {
    const page = await store.readAll({ from, limit: 500, filter: { streamPrefixes: [importStream(tenantId, '')] } });
    for (const event of page) {
      if (!atOrBefore(event, position)) return found;
      let carried: Imported | null = null;
      eachBatchVertex(event.type, event.data as never, (id, label, entityId, properties) => {
        if (id === vertexId)
          carried = { properties: { ...(found?.properties ?? {}), ...properties }, label, entityId, event };
      });
      if (carried) {
        found = carried;
        anchors.add(event);
      }
    }
    if (page.length < 500) return found;
    from = page[page.length - 1].position;
  }
}

export async function vertexAsOf(
  store: EventStore,
  tenantId: string,
  vertexId: string,
  position: Position,
  anchors: Anchors,
): Promise<VertexAsOf | null> {
  const own = (await store.readStream(vertexStream(tenantId, vertexId))).filter((e) => atOrBefore(e, position));
  let state: VertexState = { status: 'none' };
  let setBy: RecordedEvent | null = null;
  if (own[0]?.type !== 'VertexCreated') {
    const imported = await importedAs(store, tenantId, vertexId, position, anchors);
    if (imported) {
      state = { status: 'active', label: imported.label, entityId: imported.entityId, properties: imported.properties };
      setBy = imported.event;
    }
  }
  for (const recorded of own) {
    const event = readVertexEvent(recorded);
    state = evolveVertex(state, event);
    const touched =
      event.type === 'VertexCreated' || event.type === 'VertexImported'
        ? Object.keys(event.data.properties)
        : event.type === 'VertexDeleted'
          ? []
          : [...Object.keys(event.data.set), ...('removed' in event.data ? event.data.removed : [])];
    if (event.type === 'WellProductionReported' || touched.some((k) => FIGURES.has(k))) setBy = recorded;
    anchors.add(recorded);
  }
  if (state.status !== 'active') return null;
  return {
    vertex_id: vertexId,
    label: state.label,
    entity_id: state.entityId,
    properties: state.properties,
    figures_set_by: setBy ? eventRef(setBy) : null,
  };
}

export interface FormPrAsOf {
  figures: FilingPayload['figures'];
  validations: FormPrCheck[];
  /** The unit's vertices as of the position (the sources of the figures). */
  vertices: VertexAsOf[];
}

/**
 * A Form PR's figures and validations recomputed from the log at `position`: the filing unit
 * (which wells, which authorizations) is found in today's graph, then every vertex of it is
 * folded as the log stood then. A vertex created after the position counts as absent.
 */
export async function formPrAsOf(
  deps: { knex: Knex; store: EventStore },
  tenantId: string,
  entity: { id: string; label: string },
  period: string,
  position: Position,
  anchors: Anchors,
): Promise<FormPrAsOf> {
  const facts = await loadWellFacts(deps.knex, tenantId, entity.id, entity.label);
  if (!facts)
    throw new Error(`${entity.label} ${entity.id} is no longer in the knowledge graph: its unit cannot be found`);
  const ctx = await loadFormPrContext(deps.knex, tenantId, facts, period, new Date().toISOString().slice(0, 10));
  const namespace = namespaceOf(tenantId);
  const vertices: VertexAsOf[] = [];
  const unitEntity = await vertexAsOf(deps.store, tenantId, ctx.unit.entity.vertexId, position, anchors);
  if (unitEntity) vertices.push(unitEntity);
  const wells: Array<{ entityId: string; properties: Properties }> = [];
  for (const well of ctx.unit.wells) {
    const vertexId =
      well.entityId === ctx.unit.entity.entityId && ctx.unit.entity.label === 'Well'
        ? ctx.unit.entity.vertexId
        : (await findVertex(deps.knex, namespace, 'Well', well.entityId))?.id;
    const asOf = vertexId
      ? vertexId === unitEntity?.vertex_id
        ? unitEntity
        : await vertexAsOf(deps.store, tenantId, vertexId, position, anchors)
      : null;
    if (!asOf) continue;
    if (asOf !== unitEntity) vertices.push(asOf);
    wells.push({ entityId: asOf.entity_id, properties: asOf.properties });
  }
  const unit = { ...ctx.unit, entity: { ...ctx.unit.entity, properties: unitEntity?.properties ?? {} }, wells };
  const figures = formPrFigureRows({ ...ctx, unit }, period);
  const authorizationIds = new Set<string>();
  for (const subject of ctx.flaring)
    for (const a of (subject.facts as { authorizations: Map<string, Array<{ vertexId: string }>> }).authorizations.get(
      subject.entity.vertexId,
    ) ?? [])
      authorizationIds.add(a.vertexId);
  const authorizations = [];
  for (const id of [...authorizationIds].sort()) {
    const asOf = await vertexAsOf(deps.store, tenantId, id, position, anchors);
    if (asOf)
      authorizations.push(
        ...authorizationTerms([{ entityId: asOf.entity_id, properties: asOf.properties }]).map(
          ({ id: authId, from, expires }) => ({ id: authId, from, expires }),
        ),
      );
  }
  const computed = formPrFigures(unit, period);
  const validations = formPrChecks({
    period,
    gasMcf: computed.gasMcf,
    dispositions: computed.dispositions,
    authorizations,
  });
  return { figures, validations, vertices };
}
