import type { Knex } from 'knex';
import type { RecordedEvent } from '../../src/platform/eventstore/types';
import type { Projector } from '../../src/platform/projection-runner/projector';
import { COMPLIANCE_ANOMALY_FLAGGED, ComplianceAnomalyFlaggedData } from '../../src/platform/published/anomaly-flagged';
import { AssessmentEventSchemas, readAssessmentEvent } from '../../streams/compliance/assessment';
import {
  batchVertices,
  GRAPH_BATCH_TYPES,
  type GraphBatchData,
  type PackedGraphBatchData,
} from '../../streams/graph/graph-import';
import { readVertexEvent } from '../../streams/graph/vertex';
import {
  createRowsTables,
  openRows,
  refreshRows,
  summarizeVerdicts,
  type VerdictSummaries,
  writeVerdicts,
} from './dashboard-rows';
import { bucketCounts } from './selectors';
import { ANOMALIES, ASSESSMENTS, COUNTS, DAILY, ENTITIES, ROWS, VERDICTS } from './tables';

async function createTables(knex: Knex): Promise<void> {
  await knex.schema.createTable(ENTITIES, (t) => {
    t.bigIncrements('id');
    t.text('tenant_id').notNullable();
    t.uuid('vertex_id').notNullable();
    t.text('entity_id').notNullable();
    t.text('entity_type').notNullable();
    t.text('name_prop');
    t.text('well_name_prop');
    t.timestamp('valid_from', { useTz: true }).notNullable();
    t.timestamp('valid_to', { useTz: true });
    t.index(['tenant_id', 'entity_id'], 'compliance_entities_tenant_entity');
  });
  await knex.raw(`CREATE INDEX compliance_entities_vertex ON ${ENTITIES} (vertex_id) WHERE valid_to IS NULL`);
  await knex.schema.createTable(ANOMALIES, (t) => {
    t.uuid('event_id').primary();
    t.text('tenant_id').notNullable();
    t.text('entity_id').notNullable();
    t.text('entity_type').notNullable();
    t.text('domain').notNullable();
    t.text('kind').notNullable();
    t.text('detail').notNullable();
    t.text('source').notNullable();
    t.text('stream').notNullable();
    t.timestamp('observed_at', { useTz: true }).notNullable();
    t.timestamp('flagged_at', { useTz: true }).notNullable();
    t.index(['tenant_id', 'flagged_at'], 'compliance_anomalies_tenant');
  });
  await knex.schema.createTable(ASSESSMENTS, (t) => {
    t.uuid('assessment_id').primary();
    t.text('tenant_id').notNullable();
    t.text('scope').notNullable();
    t.text('entity_id');
    t.text('assessed_on').notNullable();
    t.timestamp('assessed_at', { useTz: true }).notNullable();
    t.timestamp('recorded_at', { useTz: true }).notNullable();
    t.text('status').notNullable();
    t.jsonb('domains').notNullable();
    t.jsonb('failed_domains').notNullable();
    t.integer('entities').notNullable();
    t.integer('cells').notNullable();
    t.jsonb('colors').notNullable().defaultTo('{}');
    /** The graph the packs read (GraphMark), for the next assessment's "what changed since". */
    t.jsonb('graph');
    t.index(['tenant_id', 'recorded_at'], 'compliance_assessments_tenant');
  });
  await knex.schema.createTable(DAILY, (t) => {
    t.text('tenant_id').notNullable();
    t.text('day').notNullable();
    t.uuid('assessment_id').notNullable();
    t.timestamp('recorded_at', { useTz: true }).notNullable();
    t.integer('overdue_count').notNullable();
    t.integer('due_7_days_count').notNullable();
    t.integer('due_30_days_count').notNullable();
    t.integer('anomaly_count').notNullable();
    t.integer('entities').notNullable();
    t.jsonb('colors').notNullable();
    t.primary(['tenant_id', 'day']);
  });
  await createRowsTables(knex);
}

/** An assessable entity a graph event opened (created, imported), at the event's recorded time. */
interface OpenedEntity {
  vertexId: string;
  entityId: string;
  label: string;
  name?: string;
  wellName?: string;
  at: Date;
}

/** The entities a creating or importing graph event opens, of the labels the packs assess. */
function openedBy(event: RecordedEvent, labels: ReadonlySet<string>): OpenedEntity[] {
  const at = event.recordedAt;
  if ((GRAPH_BATCH_TYPES as readonly string[]).includes(event.type)) {
    return batchVertices(event.type, event.data as GraphBatchData | PackedGraphBatchData)
      .filter((v) => labels.has(v.label))
      .map((v) => ({
        vertexId: v.id,
        entityId: v.entity_id,
        label: v.label,
        name: v.properties.name,
        wellName: v.properties.well_name,
        at,
      }));
  }
  const vertex = readVertexEvent(event);
  if (vertex.type !== 'VertexCreated' || !labels.has(vertex.data.label)) return [];
  const d = vertex.data;
  return [
    {
      vertexId: d.vertexId,
      entityId: d.entityId,
      label: d.label,
      name: d.properties.name,
      wellName: d.properties.well_name,
      at,
    },
  ];
}

/** A run of opened entities: their versions in one insert, then their rows (`openRows`). */
async function openEntities(
  trx: Knex.Transaction,
  tenantId: string,
  opened: readonly OpenedEntity[],
  domains: readonly string[],
): Promise<void> {
  if (opened.length === 0) return;
  await trx(ENTITIES).insert(
    opened.map((r) => ({
      tenant_id: tenantId,
      vertex_id: r.vertexId,
      entity_id: r.entityId,
      entity_type: r.label,
      name_prop: r.name ?? null,
      well_name_prop: r.wellName ?? null,
      valid_from: r.at,
    })),
  );
  await openRows(trx, tenantId, opened, domains);
}

/**
 * Graph facts the dashboard keeps history of, but the openings (`openedBy`): an assessable
 * entity's new name, its end. Answers the entities whose version changed (their rows follow).
 */
async function applyGraph(trx: Knex.Transaction, event: RecordedEvent): Promise<string[]> {
  const tenantId = event.metadata.tenantId;
  const at = event.recordedAt;
  const vertex = readVertexEvent(event);
  switch (vertex.type) {
    case 'VertexCreated':
      return []; // an opening: `openedBy`, in runs
    case 'VertexImported':
      return []; // opened by its import batch; this only starts the vertex's own stream
    case 'VertexPropertiesUpdated':
    case 'WellProductionReported': {
      const removed = vertex.type === 'VertexPropertiesUpdated' ? vertex.data.removed : [];
      const { set } = vertex.data;
      if (!('name' in set) && !('well_name' in set) && !removed.includes('name') && !removed.includes('well_name'))
        return [];
      const current = await trx(ENTITIES)
        .where({ vertex_id: vertex.data.vertexId, tenant_id: tenantId })
        .whereNull('valid_to')
        .first();
      if (!current) return [];
      const name = 'name' in set ? set.name : removed.includes('name') ? null : current.name_prop;
      const wellName =
        'well_name' in set ? set.well_name : removed.includes('well_name') ? null : current.well_name_prop;
      if (name === current.name_prop && wellName === current.well_name_prop) return [];
      await trx(ENTITIES).where({ id: current.id }).update({ valid_to: at });
      await trx(ENTITIES).insert({
        tenant_id: tenantId,
        vertex_id: current.vertex_id,
        entity_id: current.entity_id,
        entity_type: current.entity_type,
        name_prop: name,
        well_name_prop: wellName,
        valid_from: at,
      });
      return [current.entity_id];
    }
    case 'VertexDeleted': {
      const closed: Array<{ entity_id: string }> = await trx(ENTITIES)
        .where({ vertex_id: vertex.data.vertexId, tenant_id: tenantId })
        .whereNull('valid_to')
        .update({ valid_to: at }, ['entity_id']);
      return closed.map((r) => r.entity_id);
    }
  }
}

/** The assessment row, and the day's snapshot: the bucket counts as the dashboard stood right after it. */
async function applyRecorded(trx: Knex.Transaction, event: RecordedEvent): Promise<void> {
  const e = readAssessmentEvent(event);
  if (e.type !== 'AssessmentRecorded') return;
  const d = e.data;
  const tenantId = event.metadata.tenantId;
  const counts = await bucketCounts(trx, tenantId, event.recordedAt);
  await trx(ASSESSMENTS)
    .insert({
      assessment_id: d.assessmentId,
      tenant_id: tenantId,
      scope: d.scope,
      entity_id: d.entityId,
      assessed_on: d.assessedOn,
      assessed_at: d.assessedAt,
      recorded_at: event.recordedAt,
      status: d.status,
      domains: JSON.stringify(d.domains),
      failed_domains: JSON.stringify(d.failedDomains),
      entities: d.entities,
      cells: d.cells,
      colors: JSON.stringify(counts.colors),
      graph: d.graph ? JSON.stringify(d.graph) : null,
    })
    .onConflict('assessment_id')
    .ignore();
  const row = {
    tenant_id: tenantId,
    day: d.assessedOn,
    assessment_id: d.assessmentId,
    recorded_at: event.recordedAt,
    overdue_count: counts.overdue,
    due_7_days_count: counts.due_7d,
    due_30_days_count: counts.due_30d,
    anomaly_count: counts.anomalies,
    entities: counts.entities,
    colors: JSON.stringify(counts.colors),
  };
  await trx(DAILY).insert(row).onConflict(['tenant_id', 'day']).merge();
}

async function applyAnomaly(trx: Knex.Transaction, event: RecordedEvent): Promise<void> {
  const d = ComplianceAnomalyFlaggedData.parse(event.data);
  await trx(ANOMALIES)
    .insert({
      event_id: event.id,
      tenant_id: event.metadata.tenantId,
      entity_id: d.entityId,
      entity_type: d.entityLabel,
      domain: d.domain,
      kind: d.kind,
      detail: d.detail,
      source: d.source,
      stream: event.stream,
      observed_at: d.observedAt,
      flagged_at: event.recordedAt,
    })
    .onConflict('event_id')
    .ignore();
}

/** The most entity openings written by one set of statements (their ids travel as arrays). */
const MAX_OPENINGS_PER_RUN = 20_000;

/** One entity's graph facts, as the graph's own routes write them. */
const VERTEX_TYPES = ['VertexCreated', 'VertexPropertiesUpdated', 'WellProductionReported', 'VertexDeleted'] as const;
const GRAPH_TYPES = [...GRAPH_BATCH_TYPES, ...VERTEX_TYPES] as const;

/**
 * The compliance dashboard read model (one projector, so the daily snapshot computed on
 * `AssessmentRecorded` sees entities, verdicts and anomalies at exactly that point of the log):
 * entity versions from the graph events of the labels the packs assess, each entity's current
 * verdicts (color, bucket, due date, anomaly per domain) and its dashboard rows from
 * assessments, flagged anomalies from any stream, assessments and daily snapshots. The cell
 * versions themselves (reasons, facts, history) are `complianceCellsProjector`'s, a lane of
 * their own written in parallel with this one.
 */
export function complianceDashboardProjector(
  packs: ReadonlyArray<{ domain: string; appliesTo: readonly string[] }>,
): Projector {
  const labels = new Set(packs.flatMap((p) => p.appliesTo));
  const domains = packs.map((p) => p.domain);
  return {
    name: 'compliance_dashboard',
    // 2: Lease and Operator entities are assessed too; a rebuild collects them from the log.
    // 3: per-entity dashboard rows and bucket counts kept by the projector.
    // 4: verdicts recorded packed (`VerdictsAssessed`).
    // 5: rows refreshed from the entities' current verdicts kept here; cell versions in their own lane.
    // 6: dashboard rows without a surrogate key (one index fewer per row version).
    // 7: no index on the lower-cased entity type (the matrix filters by the packs' labels).
    // 8: the severity indexes carry next_due (the matrix sorts by severity, then due date).
    version: 8,
    tables: [COUNTS, ROWS, VERDICTS, DAILY, ASSESSMENTS, ANOMALIES, ENTITIES],
    createTables,
    eventTypes: [...GRAPH_TYPES, ...Object.keys(AssessmentEventSchemas), COMPLIANCE_ANOMALY_FLAGGED],
    // One entity's change shows here within a lane batch: the graph's own routes do not wait
    // for the dashboard (dashboards stay off a command's path). An import (batch
    // events) answers once the dashboard holds it, as documented; an assessment, which colors
    // the rows, waits too, and so sees every graph change before it.
    eventualFor: VERTEX_TYPES,
    apply: (trx, event) => applyBatch(trx, [event]),
    applyBatch,
  };

  async function applyBatch(trx: Knex.Transaction, events: RecordedEvent[]): Promise<void> {
    // Consecutive batches of one assessment go in one statement, consecutive openings of one
    // tenant's entities (creations, imports) in a few; anything else applies in log order.
    let run: { assessmentId: string; tenantId: string; at: Date; summaries: VerdictSummaries } | null = null;
    let openings: { tenantId: string; opened: OpenedEntity[] } | null = null;
    for (const event of events) {
      const tenantId = event.metadata.tenantId;
      if (event.type === 'VerdictsAssessed' || event.type === 'EntitiesAssessed') {
        await flushOpenings();
        const read = readAssessmentEvent(event);
        const { assessmentId } = read.data;
        if (run && (run.assessmentId !== assessmentId || run.tenantId !== tenantId)) await flush();
        run ??= { assessmentId, tenantId, at: event.recordedAt, summaries: {} };
        summarizeVerdicts(read, run.summaries);
        continue;
      }
      if (event.type === 'VertexCreated' || (GRAPH_BATCH_TYPES as readonly string[]).includes(event.type)) {
        await flush();
        if (openings && openings.tenantId !== tenantId) await flushOpenings();
        openings ??= { tenantId, opened: [] };
        for (const opened of openedBy(event, labels)) openings.opened.push(opened);
        // A rebuild meets thousands of import batches in a row: one statement's worth at a time.
        if (openings.opened.length >= MAX_OPENINGS_PER_RUN) await flushOpenings();
        continue;
      }
      await flush();
      await flushOpenings();
      if (event.type === COMPLIANCE_ANOMALY_FLAGGED) await applyAnomaly(trx, event);
      else if (event.type === 'AssessmentRecorded') await applyRecorded(trx, event);
      else await refreshRows(trx, tenantId, event.recordedAt, await applyGraph(trx, event), domains);
    }
    await flush();
    await flushOpenings();

    async function flush() {
      if (!run) return;
      const { tenantId, at, summaries } = run;
      run = null;
      const ids = await writeVerdicts(trx, tenantId, summaries);
      await refreshRows(trx, tenantId, at, ids, domains);
    }

    async function flushOpenings() {
      if (!openings) return;
      const { tenantId, opened } = openings;
      openings = null;
      await openEntities(trx, tenantId, opened, domains);
    }
  }
}
