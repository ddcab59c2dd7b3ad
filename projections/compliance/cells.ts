import type { Knex } from 'knex';
import type { RecordedEvent } from '../../src/platform/eventstore/types';
import type { Projector } from '../../src/platform/projection-runner/projector';
import { AssessedCell, assessedEntities, cellFingerprint, readAssessmentEvent } from '../../streams/compliance/assessment';
import { CELLS } from './tables';

/**
 * Cell versions: one row per entity, domain and verdict, with `valid_from`/`valid_to`. One
 * index on (tenant, entity, domain) serves both the current cells (few versions per cell) and
 * their history; a second, partial one on the current cells cost a third of a first
 * assessment's insert of 100,000 cells and served nothing the first does not.
 */
async function createTables(knex: Knex): Promise<void> {
  await knex.schema.createTable(CELLS, (t) => {
    t.bigIncrements('id');
    t.text('tenant_id').notNullable();
    t.text('entity_id').notNullable();
    t.text('domain').notNullable();
    t.text('color').notNullable();
    t.text('bucket');
    t.date('due_date');
    t.boolean('anomaly').notNullable();
    t.text('reason').notNullable();
    t.jsonb('facts').notNullable();
    /** `cellFingerprint` of the verdict: a new version opens only when it changes. */
    t.text('fingerprint').notNullable();
    t.uuid('assessment_id').notNullable();
    t.timestamp('valid_from', { useTz: true }).notNullable();
    t.timestamp('valid_to', { useTz: true });
    t.index(['tenant_id', 'entity_id', 'domain'], 'compliance_cells_tenant_entity');
  });
}

/** The cells of consecutive verdict batches (`VerdictsAssessed`, or `EntitiesAssessed` of old) of one assessment, written together. */
interface CellRun {
  assessmentId: string;
  tenantId: string;
  at: Date;
  cells: Array<{ entityId: string; cell: AssessedCell; fingerprint: string }>;
}

const SEP = '\u001f';

/**
 * Writes a run of assessed cells (a whole assessment, however many batch events it took) in
 * at most three statements. First the diff: (entity, domain, fingerprint) of every cell goes as three
 * delimited strings against the current versions, and only the cells whose verdict changed
 * come back; a daily re-assessment of an unchanged portfolio stops there and writes nothing.
 * Then their previous versions close by id, and the changed cells go as one JSON document
 * (unnesting in Postgres is far cheaper than binding 100,000-element arrays from Node; `json`
 * rather than `jsonb`: it is read once, row by row) and open the new versions.
 */
async function writeCells(trx: Knex.Transaction, run: CellRun): Promise<void> {
  if (run.cells.length === 0) return;
  // The planner cannot size the unnested input and picks a nested loop over the current
  // cells, which is quadratic (minutes for 20,000 wells); hash joins are linear.
  await trx.raw('SET LOCAL enable_nestloop = off');
  const { rows: changedRows } = await trx.raw(
    `SELECT i.n::int AS n, cur.id AS previous
       FROM unnest(string_to_array(?, ?), string_to_array(?, ?), string_to_array(?, ?)) WITH ORDINALITY AS i(entity_id, domain, fingerprint, n)
       LEFT JOIN ${CELLS} cur ON cur.tenant_id = ? AND cur.entity_id = i.entity_id AND cur.domain = i.domain AND cur.valid_to IS NULL
      WHERE cur.id IS NULL OR cur.fingerprint <> i.fingerprint`,
    [
      run.cells.map((c) => c.entityId).join(SEP), SEP,
      run.cells.map((c) => c.cell.domain).join(SEP), SEP,
      run.cells.map((c) => c.fingerprint).join(SEP), SEP,
      run.tenantId,
    ],
  );
  if (changedRows.length > 0) {
    const changed = (changedRows as Array<{ n: number }>).map(({ n }) => {
      const { entityId, cell, fingerprint } = run.cells[n - 1];
      return { entity_id: entityId, fingerprint, domain: cell.domain, color: cell.color, bucket: cell.bucket, due_date: cell.dueDate, anomaly: cell.anomaly, reason: cell.reason, facts: cell.facts };
    });
    // The previous versions close by id (none on a tenant's first assessment).
    const previous = (changedRows as Array<{ previous: string | null }>).flatMap((r) => (r.previous === null ? [] : [r.previous]));
    if (previous.length > 0) await trx.raw(`UPDATE ${CELLS} SET valid_to = ? WHERE id = ANY(string_to_array(?, ',')::bigint[])`, [run.at, previous.join(',')]);
    await trx.raw(
      `INSERT INTO ${CELLS} (tenant_id, entity_id, domain, color, bucket, due_date, anomaly, reason, facts, fingerprint, assessment_id, valid_from)
       SELECT ?, entity_id, domain, color, bucket, due_date, anomaly, reason, facts, fingerprint, ?, ?
         FROM json_to_recordset(?::json) AS c(entity_id text, fingerprint text, domain text, color text, bucket text, due_date date, anomaly boolean, reason text, facts jsonb)`,
      [run.tenantId, run.assessmentId, run.at, JSON.stringify(changed)],
    );
  }
  await trx.raw('SET LOCAL enable_nestloop = on');
}

/**
 * The assessed cells' versions (what each verdict said, with its reason and facts, and when),
 * a lane of its own (issue 27 §3): the 100,000 cell versions of a first assessment are written
 * while the dashboard's lane (`complianceDashboardProjector`) refreshes the entity rows from the
 * same events, on another database connection, instead of one after the other. The command
 * waits for both (each handles the verdict events), and the next assessment's plan reads the
 * fingerprints here.
 */
export function complianceCellsProjector(): Projector {
  return {
    name: 'compliance_cells',
    version: 1,
    tables: [CELLS],
    createTables,
    eventTypes: ['VerdictsAssessed', 'EntitiesAssessed'],
    apply: (trx, event) => applyBatch(trx, [event]),
    applyBatch,
  };

  async function applyBatch(trx: Knex.Transaction, events: RecordedEvent[]): Promise<void> {
    // Consecutive batches of one assessment go in one statement.
    let run: CellRun | null = null;
    for (const event of events) {
      const read = readAssessmentEvent(event);
      if (read.type === 'AssessmentRecorded') continue;
      const { assessmentId } = read.data;
      const tenantId = event.metadata.tenantId;
      if (run && (run.assessmentId !== assessmentId || run.tenantId !== tenantId)) await writeCells(trx, run);
      if (!run || run.assessmentId !== assessmentId || run.tenantId !== tenantId) run = { assessmentId, tenantId, at: event.recordedAt, cells: [] };
      for (const entity of assessedEntities(read)) for (const cell of entity.cells) run.cells.push({ entityId: entity.entityId, cell, fingerprint: cellFingerprint(cell) });
    }
    if (run) await writeCells(trx, run);
  }
}
