import { expect } from 'chai';
import { projectionSpec } from '../../support/specs';
import { importHistoryProjector, IMPORTS_TABLE } from '../../../projections/ingestion/import-history';

const TENANT = 'tenant-spec';
const CSV = '00000000-0000-8000-8000-0000000000c1';
const SCRAPE = '00000000-0000-8000-8000-0000000000d1';
const BATCH = '00000000-0000-8000-8000-0000000000e1';
const csvStream = `ingestion.csv-import-${TENANT}-${CSV}`;
const scadaStream = `ingestion.scada-${TENANT}-${BATCH}`;
const at = (minute: number) => new Date(`2026-03-03T10:${String(minute).padStart(2, '0')}:00Z`);

const csvStarted = {
  stream: csvStream,
  type: 'OperatorCsvImportStarted',
  data: {
    importId: CSV,
    filename: 'wells.csv',
    sha256: 'ab'.repeat(32),
    sizeBytes: 1200,
    columns: ['api_number', 'latitude'],
  },
  recordedAt: at(0),
  metadata: { actorId: 'ann' },
};
const csvBatch = {
  stream: csvStream,
  type: 'OperatorWellsImported',
  data: { importId: CSV, batch: 0, wells: [{ apiNumber: '42-329-00001', row: 1, values: {} }] },
  recordedAt: at(1),
};
const rejection = { row: 2, column: 'latitude', reason: '51.9 lies outside Texas (25.8 to 36.6)' };
const csvCompleted = {
  stream: csvStream,
  type: 'OperatorCsvImportCompleted',
  data: { importId: CSV, rows: 2, accepted: 1, rejected: 1, batches: 1, rejections: [rejection] },
  recordedAt: at(2),
};
const anomaly = (stream: string) => ({
  stream,
  type: 'ComplianceAnomalyFlagged',
  data: {
    entityId: '42-389-31001',
    entityLabel: 'Well',
    domain: 'rule_32',
    kind: 'flared_above_authorization',
    detail: 'd',
    observedAt: '2026-03-02T06:00:00.000Z',
    source: 'scada',
  },
});

describe('import history projection (given events → rows)', () => {
  it('a CSV import is importing from its start and completed with its counts and rejections, started by its actor', async () => {
    await projectionSpec(importHistoryProjector)
      .given([csvStarted, csvBatch])
      .then(async (knex) => {
        const [row] = await knex(IMPORTS_TABLE).select('kind', 'status', 'source', 'started_by', 'finished_at');
        expect(row).to.deep.equal({
          kind: 'operator-csv',
          status: 'importing',
          source: 'wells.csv',
          started_by: 'ann',
          finished_at: null,
        });
      });
    await projectionSpec(importHistoryProjector)
      .given([csvStarted, csvBatch, csvCompleted])
      .then(async (knex) => {
        const row = await knex(IMPORTS_TABLE).where({ tenant_id: TENANT, import_id: CSV }).first();
        expect(row).to.include({ status: 'completed', rows: 2, accepted: 1, rejected: 1 });
        expect(row.started_at.toISOString()).to.equal(at(0).toISOString());
        expect(row.finished_at.toISOString()).to.equal(at(2).toISOString());
        expect(row.counts).to.deep.equal({ batches: 1 });
        expect(row.details).to.deep.equal({
          sha256: 'ab'.repeat(32),
          size_bytes: 1200,
          columns: ['api_number', 'latitude'],
        });
        expect(row.rejections).to.deep.equal([rejection]);
      });
  });

  it('a completion recorded before rejections were kept leaves the report empty', async () => {
    const { rejections: _dropped, ...older } = csvCompleted.data;
    await projectionSpec(importHistoryProjector)
      .given([csvStarted, { ...csvCompleted, data: older }])
      .then(async (knex) => {
        const row = await knex(IMPORTS_TABLE).first();
        expect(row).to.include({ status: 'completed', rejected: 1, rejections: null });
      });
  });

  it('a scrape is one completed row naming its district and range, with records per data type', async () => {
    await projectionSpec(importHistoryProjector)
      .given([
        {
          stream: `ingestion.rrc-scrape-${TENANT}-${SCRAPE}`,
          type: 'RrcDataScraped',
          data: {
            scrapeId: SCRAPE,
            dataType: 'wells',
            district: '08',
            dateRange: { from: '2025-01-01', to: '2025-03-31' },
            records: [{}],
          },
        },
        {
          stream: `ingestion.rrc-scrape-${TENANT}-${SCRAPE}`,
          type: 'RrcScrapeCompleted',
          data: {
            scrapeId: SCRAPE,
            district: '08',
            dateRange: { from: '2025-01-01', to: '2025-03-31' },
            counts: { wells: 36, operators: 6 },
          },
        },
      ])
      .then(async (knex) => {
        const rows = await knex(IMPORTS_TABLE).select(
          'import_id',
          'kind',
          'status',
          'source',
          'rows',
          'accepted',
          'rejected',
          'counts',
          'details',
        );
        expect(rows).to.deep.equal([
          {
            import_id: SCRAPE,
            kind: 'rrc-scrape',
            status: 'completed',
            source: 'district 08, 2025-01-01 to 2025-03-31',
            rows: 42,
            accepted: 42,
            rejected: 0,
            counts: { wells: 36, operators: 6 },
            details: { district: '08', date_range: { from: '2025-01-01', to: '2025-03-31' } },
          },
        ]);
      });
  });

  it('a SCADA batch counts its readings, wells and its own anomalies, not those of operational events', async () => {
    const readings = [
      { wellApi: '42-389-31001', timestamp: '2026-03-02T06:00:00Z', metrics: { flared_mcf: 140 } },
      { wellApi: '42-389-31001', timestamp: '2026-03-02T07:00:00Z', metrics: { flared_mcf: 150 } },
      { wellApi: '42-389-31002', timestamp: '2026-03-02T06:00:00Z', metrics: { oil_bbl: 10 } },
    ];
    await projectionSpec(importHistoryProjector)
      .given([
        { stream: scadaStream, type: 'ScadaReadingsRecorded', data: { batchId: BATCH, readings } },
        anomaly(scadaStream),
        anomaly(scadaStream),
        anomaly(`events.log-${TENANT}-x`),
      ])
      .then(async (knex) => {
        const rows = await knex(IMPORTS_TABLE).select('kind', 'source', 'rows', 'counts');
        expect(rows).to.deep.equal([
          { kind: 'scada', source: '3 readings of 2 wells', rows: 3, counts: { readings: 3, wells: 2, anomalies: 2 } },
        ]);
      });
  });
});
