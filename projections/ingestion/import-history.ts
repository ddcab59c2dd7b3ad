import type { Knex } from 'knex';
import type { Projector } from '../../src/platform/projection-runner/projector';
import type { RecordedEvent } from '../../src/platform/eventstore/types';
import { COMPLIANCE_ANOMALY_FLAGGED } from '../../src/platform/published/anomaly-flagged';
import { operatorCsvImportAggregate, readOperatorCsvImportEvent } from '../../streams/ingestion/operator-csv-import';
import { readRrcScrapeEvent } from '../../streams/ingestion/rrc-scrape';
import { readScadaBatchEvent, scadaBatchAggregate } from '../../streams/ingestion/scada-batch';

/**
 * The tenant's import history: one row per operator CSV import, RRC scrape and SCADA batch,
 * who started it, when, how it ended and what it counted. A CSV import is `importing` from its
 * start until its completion (an interrupted upload stays so until the same file is sent
 * again); a scrape and a SCADA batch are recorded in one append, so they start completed.
 * The rows of a CSV file and a scrape's records stay in their streams: this table never holds
 * more than an import's counts and its first 1,000 rejections.
 */
export const IMPORTS_TABLE = 'ingestion_imports';

export const IMPORT_KINDS = ['operator-csv', 'rrc-scrape', 'scada'] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];
export const IMPORT_STATUSES = ['importing', 'completed'] as const;

/** The events the history reads; the big ones (CSV row batches, scraped records) are not among them. */
export const IMPORT_HISTORY_EVENT_TYPES = [
  'OperatorCsvImportStarted',
  'OperatorCsvImportCompleted',
  'RrcScrapeCompleted',
  'ScadaReadingsRecorded',
  COMPLIANCE_ANOMALY_FLAGGED,
] as const;

/** SCADA batch streams share their anomaly event type with operational events: only theirs count here. */
const scadaStreamPrefix = scadaBatchAggregate.stream('', '').replace(/-+$/, '-');
const csvStreamPrefix = operatorCsvImportAggregate.stream('', '').replace(/-+$/, '-');

export const importHistoryProjector: Projector = {
  name: 'ingestion_imports',
  version: 1,
  tables: [IMPORTS_TABLE],
  eventTypes: IMPORT_HISTORY_EVENT_TYPES,
  async createTables(knex) {
    await knex.schema.createTable(IMPORTS_TABLE, (t) => {
      t.text('tenant_id').notNullable();
      t.text('import_id').notNullable();
      t.text('kind').notNullable();
      t.text('status').notNullable();
      /** The file name, `district 08, 2025-01-01 to 2025-03-31`, or `n readings of m wells`. */
      t.text('source').notNullable();
      t.text('started_by').notNullable();
      t.timestamp('started_at', { useTz: true }).notNullable();
      t.timestamp('finished_at', { useTz: true });
      t.integer('rows');
      t.integer('accepted');
      t.integer('rejected');
      /** Kind-specific counts: CSV batches, records per scraped data type, readings/wells/anomalies. */
      t.jsonb('counts').notNullable();
      /** Kind-specific facts: a CSV's sha256, size and columns; a scrape's district and range. */
      t.jsonb('details').notNullable();
      t.jsonb('rejections');
      t.primary(['tenant_id', 'import_id']);
      t.index(['tenant_id', 'started_at']);
    });
  },
  async apply(trx, recorded) {
    await applyEvent(trx, recorded);
  },
};

async function applyEvent(trx: Knex.Transaction, recorded: RecordedEvent): Promise<void> {
  const tenantId = recorded.metadata.tenantId;
  const started = { tenant_id: tenantId, started_by: recorded.metadata.actorId, started_at: recorded.recordedAt };
  if (recorded.stream.startsWith(csvStreamPrefix)) {
    const event = readOperatorCsvImportEvent(recorded);
    switch (event.type) {
      case 'OperatorCsvImportStarted': {
        const d = event.data;
        await trx(IMPORTS_TABLE)
          .insert({
            ...started,
            import_id: d.importId,
            kind: 'operator-csv',
            status: 'importing',
            source: d.filename,
            counts: {},
            details: { sha256: d.sha256, size_bytes: d.sizeBytes, columns: d.columns },
          })
          .onConflict(['tenant_id', 'import_id'])
          .ignore();
        return;
      }
      case 'OperatorCsvImportCompleted': {
        const d = event.data;
        await trx(IMPORTS_TABLE)
          .where({ tenant_id: tenantId, import_id: d.importId })
          .update({
            status: 'completed',
            finished_at: recorded.recordedAt,
            rows: d.rows,
            accepted: d.accepted,
            rejected: d.rejected,
            counts: { batches: d.batches },
            rejections: d.rejections ? JSON.stringify(d.rejections) : null,
          });
        return;
      }
      default:
        return;
    }
  }
  if (recorded.type === 'RrcScrapeCompleted') {
    const event = readRrcScrapeEvent(recorded);
    if (event.type !== 'RrcScrapeCompleted') return;
    const d = event.data;
    const records = Object.values(d.counts).reduce((a, b) => a + b, 0);
    await trx(IMPORTS_TABLE)
      .insert({
        ...started,
        import_id: d.scrapeId,
        kind: 'rrc-scrape',
        status: 'completed',
        source: `district ${d.district}, ${d.dateRange.from} to ${d.dateRange.to}`,
        finished_at: recorded.recordedAt,
        rows: records,
        accepted: records,
        rejected: 0,
        counts: d.counts,
        details: { district: d.district, date_range: d.dateRange },
      })
      .onConflict(['tenant_id', 'import_id'])
      .ignore();
    return;
  }
  if (!recorded.stream.startsWith(scadaStreamPrefix)) return;
  const event = readScadaBatchEvent(recorded);
  switch (event.type) {
    case 'ScadaReadingsRecorded': {
      const { batchId, readings } = event.data;
      const wells = new Set(readings.map((r) => r.wellApi)).size;
      await trx(IMPORTS_TABLE)
        .insert({
          ...started,
          import_id: batchId,
          kind: 'scada',
          status: 'completed',
          source: `${readings.length} ${readings.length === 1 ? 'reading' : 'readings'} of ${wells} ${wells === 1 ? 'well' : 'wells'}`,
          finished_at: recorded.recordedAt,
          rows: readings.length,
          accepted: readings.length,
          rejected: 0,
          counts: { readings: readings.length, wells, anomalies: 0 },
          details: {},
        })
        .onConflict(['tenant_id', 'import_id'])
        .ignore();
      return;
    }
    case COMPLIANCE_ANOMALY_FLAGGED: {
      // The anomalies follow their readings in the batch's one append, so the row exists.
      const batchId = recorded.stream.slice(scadaStreamPrefix.length + tenantId.length + 1);
      await trx(IMPORTS_TABLE)
        .where({ tenant_id: tenantId, import_id: batchId })
        .update({
          counts: trx.raw(`jsonb_set(counts, '{anomalies}', to_jsonb(coalesce((counts->>'anomalies')::int, 0) + 1))`),
        });
      return;
    }
  }
}
