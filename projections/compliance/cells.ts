import type { Knex } from 'knex';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { RecordedEvent } from '../../src/platform/eventstore/types';
import type { Projector } from '../../src/platform/projection-runner/projector';
import {
  type AssessedCell,
  assessedEntities,
  cellFingerprint,
  readAssessmentEvent,
} from '../../streams/compliance/assessment';
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

const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const NEEDS_ESCAPE = /[\\\t\n\r]/;
const ESCAPED = new RegExp(NEEDS_ESCAPE.source, 'g');
/**
 * A value in COPY's text format: backslash, tab and line breaks escaped, null as `\N`. Most
 * values have nothing to escape and are used as they are: `replace` made a new string of each
 * (a first assessment copies 107,000 cells of nine values).
 */
const copyValue = (value: string | null) =>
  value === null ? '\\N' : NEEDS_ESCAPE.test(value) ? value.replace(ESCAPED, (c) => COPY_ESCAPES[c]) : value;

const CELL_COLUMNS = [
  'entity_id',
  'domain',
  'fingerprint',
  'color',
  'bucket',
  'due_date',
  'anomaly',
  'reason',
  'facts',
];

/**
 * Streams a run's cells into `table` with COPY (its text format, 2,000 lines per chunk), on the
 * transaction's own connection: the cell columns, then `extra` (the same values on every line).
 */
async function copyCells(
  trx: Knex.Transaction,
  table: string,
  run: CellRun,
  extra: Record<string, string> = {},
): Promise<void> {
  const constant = Object.values(extra)
    .map((v) => `\t${copyValue(v)}`)
    .join('');
  function* chunks() {
    // Each chunk is one string built by concatenation: no array of values per line, no array of lines.
    let chunk = '';
    let lines = 0;
    for (const { entityId, cell, fingerprint } of run.cells) {
      chunk += `${copyValue(entityId)}\t${copyValue(cell.domain)}\t${fingerprint}\t${cell.color}\t${copyValue(cell.bucket)}\t${copyValue(cell.dueDate)}\t${cell.anomaly ? 't' : 'f'}\t${copyValue(cell.reason)}\t${copyValue(JSON.stringify(cell.facts))}${constant}\n`;
      if (++lines === 2000) {
        yield chunk;
        chunk = '';
        lines = 0;
      }
    }
    if (lines > 0) yield chunk;
  }
  // Inside a transaction, knex hands out the transaction's connection (and does not release it).
  const connection = (await trx.client.acquireConnection()) as PoolClient;
  await pipeline(
    Readable.from(chunks()),
    connection.query(copyFrom(`COPY ${table} (${[...CELL_COLUMNS, ...Object.keys(extra)].join(', ')}) FROM STDIN`)),
  );
}

/**
 * Writes a run of assessed cells (a whole assessment, however many batch events it took) with
 * COPY. A tenant without current cells (its first assessment: 100,000 cells for 20,000 wells)
 * gets them copied straight into the table: nothing to compare, nothing to close. Otherwise
 * they are copied into a scratch table, compared with the current versions by fingerprint in
 * one statement, and only the changed ones close their previous version and open a new one.
 * Nothing comes back to Node; a re-assessment that changed nothing has recorded no cells at all.
 */
async function writeCells(trx: Knex.Transaction, run: CellRun): Promise<void> {
  if (run.cells.length === 0) return;
  const { rows } = await trx.raw(
    `SELECT EXISTS (SELECT 1 FROM ${CELLS} WHERE tenant_id = ? AND valid_to IS NULL) AS assessed`,
    [run.tenantId],
  );
  if (!rows[0].assessed) {
    await copyCells(trx, CELLS, run, {
      tenant_id: run.tenantId,
      assessment_id: run.assessmentId,
      valid_from: run.at.toISOString(),
    });
    return;
  }
  await trx.raw(
    `CREATE TEMP TABLE compliance_cells_input (entity_id text, domain text, fingerprint text, color text, bucket text, due_date date, anomaly boolean, reason text, facts text) ON COMMIT DROP`,
  );
  await copyCells(trx, 'compliance_cells_input', run);
  // The planner has no statistics on the scratch table and may pick a nested loop over the
  // current cells, which is quadratic (minutes for 20,000 wells); hash joins are linear.
  await trx.raw('SET LOCAL enable_nestloop = off');
  await trx.raw(
    `WITH changed AS (
        SELECT i.*, cur.id AS previous
          FROM compliance_cells_input i LEFT JOIN ${CELLS} cur ON cur.tenant_id = :tenant AND cur.entity_id = i.entity_id AND cur.domain = i.domain AND cur.valid_to IS NULL
         WHERE cur.id IS NULL OR cur.fingerprint <> i.fingerprint),
      closed AS (UPDATE ${CELLS} c SET valid_to = :at FROM changed ch WHERE c.id = ch.previous)
     INSERT INTO ${CELLS} (tenant_id, entity_id, domain, color, bucket, due_date, anomaly, reason, facts, fingerprint, assessment_id, valid_from)
     SELECT :tenant, entity_id, domain, color, bucket, due_date, anomaly, reason, facts::jsonb, fingerprint, :assessment, :at
       FROM changed`,
    { tenant: run.tenantId, assessment: run.assessmentId, at: run.at },
  );
  await trx.raw('SET LOCAL enable_nestloop = on');
  await trx.raw('DROP TABLE compliance_cells_input');
}

/**
 * The assessed cells' versions (what each verdict said, with its reason and facts, and when),
 * a lane of its own: the 100,000 cell versions of a first assessment are written
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
      if (!run || run.assessmentId !== assessmentId || run.tenantId !== tenantId)
        run = { assessmentId, tenantId, at: event.recordedAt, cells: [] };
      for (const entity of assessedEntities(read))
        for (const cell of entity.cells)
          run.cells.push({ entityId: entity.entityId, cell, fingerprint: cellFingerprint(cell) });
      // Unpacking and fingerprinting a batch is ~20 ms of Node's one thread: let the dashboard
      // lane, which reads the same batches, send its statements in between instead of after.
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (run) await writeCells(trx, run);
  }
}
