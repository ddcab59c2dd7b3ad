import { z, type ApiDescription } from '../../platform/openapi/describe';
import { ExtractBody } from '../../../commands/ingestion/extract-from-text';
import { ScadaBody } from '../../../commands/ingestion/record-scada-readings';
import { RrcScrapeBody } from '../../../commands/ingestion/run-rrc-scrape';
import { RRC_DATA_TYPES } from '../../../commands/ingestion/rrc-simulator';
import { CSV_MAX_BYTES } from './csv-upload';
import { ImportIdParams, ImportListQuery } from './schemas';
import { IMPORT_KINDS, IMPORT_STATUSES } from '../../../projections/ingestion/import-history';
import { ExtractedEdge, ExtractedEntity } from '../../../streams/ingestion/entity-extraction';

/**
 * Ingestion in the API contract: the request schemas are the ones the router and
 * its commands parse with; the responses are what the handlers return (RrcScrapeResult,
 * CsvImportResult, the SCADA batch result, the extraction).
 */
const count = z.number().int().nonnegative();

const GraphFeed = z
  .object({
    created: count,
    updated: count,
    unchanged: count,
    edges_created: count,
    production_reports: count,
    skipped: count,
  })
  .openapi('IngestionGraphFeed', {
    description:
      'What reached the knowledge graph: vertices created, updated or already as given, edges created, Form PR reports, facts skipped.',
  });

const DateRange = z.object({ from: z.string(), to: z.string() });

const RrcScrapeResult = z
  .object({
    scrape_id: z.string().uuid(),
    district: z.string(),
    date_range: DateRange,
    data_types: z.array(z.enum(RRC_DATA_TYPES)),
    counts: z.record(count),
    recorded: z
      .boolean()
      .openapi({ description: 'False when the same scrape was recorded before (nothing appended).' }),
    graph: GraphFeed,
  })
  .openapi('RrcScrapeResult');

const RowRejection = z
  .object({ row: z.number().int().positive(), column: z.string(), reason: z.string() })
  .openapi('CsvRowRejection');

const CsvImportResult = z
  .object({
    import_id: z.string().uuid(),
    filename: z.string(),
    sha256: z.string(),
    size_bytes: count,
    columns: z.array(z.string()),
    rows: count,
    accepted: count,
    rejected: count,
    rejections: z
      .array(RowRejection)
      .openapi({ description: 'At most 1,000 rejections are listed; `rejected` counts all.' }),
    rejections_truncated: z.boolean(),
    recorded: z
      .boolean()
      .openapi({ description: 'False when the same file (same SHA-256 in the tenant) was imported before.' }),
    graph: GraphFeed,
  })
  .openapi('OperatorCsvImportResult');

/** A whole-file refusal with no importable row carries the row report beside the issues. */
const CsvNoRows = z
  .object({
    detail: z.array(z.object({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() })),
    report: z.object({ rows: count, accepted: count, rejected: count, rejections: z.array(RowRejection) }),
  })
  .openapi('CsvNoRowsRefusal');

const ScadaAnomaly = z
  .object({ well_api: z.string(), domain: z.string(), kind: z.string(), detail: z.string(), observed_at: z.string() })
  .openapi('ScadaAnomaly');

const ScadaResult = z
  .object({
    batch_id: z.string().uuid(),
    readings: count,
    wells: count,
    unknown_wells: z.array(z.string()),
    wells_updated: count,
    anomalies: z.array(ScadaAnomaly),
    recorded: z.boolean().openapi({ description: 'False when the same batch was recorded before (nothing changed).' }),
  })
  .openapi('ScadaBatchResult');

const ImportSummary = z
  .object({
    import_id: z.string().uuid(),
    kind: z.enum(IMPORT_KINDS),
    status: z.enum(IMPORT_STATUSES).openapi({
      description:
        '`importing` until a CSV import completes (an interrupted upload stays so until the same file is sent again).',
    }),
    source: z
      .string()
      .openapi({ description: 'The file name; `district 08, 2025-01-01 to 2025-03-31`; or `4 readings of 3 wells`.' }),
    started_by: z.string(),
    started_at: z.string(),
    finished_at: z.string().nullable(),
    rows: count.nullable(),
    accepted: count.nullable(),
    rejected: count.nullable(),
    counts: z.record(count).openapi({
      description: 'CSV: `batches`; scrape: records per data type; SCADA: `readings`, `wells`, `anomalies`.',
    }),
  })
  .openapi('IngestionImportSummary');

const ImportList = z
  .object({ imports: z.array(ImportSummary), total: count, limit: count, offset: count })
  .openapi('IngestionImportList');

const ImportDetail = ImportSummary.extend({
  details: z
    .record(z.unknown())
    .openapi({ description: 'CSV: `sha256`, `size_bytes`, `columns`; scrape: `district`, `date_range`.' }),
  rejections: z
    .array(RowRejection)
    .openapi({ description: "A CSV import's first 1,000 rejected rows, as its upload answered." }),
  rejections_truncated: z.boolean(),
}).openapi('IngestionImport');

const Extraction = z
  .object({ entities: z.array(ExtractedEntity), edges: z.array(ExtractedEdge) })
  .openapi('Extraction');

export const ingestionApi: ApiDescription = {
  tag: 'ingestion',
  public: () => [
    {
      method: 'post',
      path: '/ingest/rrc-scrape',
      summary: 'Scrape (simulated) RRC public data into the graph (ingest.run)',
      description: 'Deterministic: the same request again answers `recorded: false` and appends nothing.',
      body: RrcScrapeBody,
      responses: { 200: RrcScrapeResult },
    },
    {
      method: 'post',
      path: '/ingest/operator/csv',
      summary: 'Import an operator well CSV (ingest.run)',
      description:
        'Multipart part `file`, UTF-8 CSV up to 64 MB. Rows that fail alone are reported and left out; a file that fails as a whole answers 422 and appends nothing.',
      body: 'multipart',
      uploadLimit: CSV_MAX_BYTES,
      responses: { 200: CsvImportResult },
      errorBodies: { 422: CsvNoRows },
    },
    {
      method: 'post',
      path: '/ingest/scada',
      summary: 'Record SCADA readings; Rule 32 anomalies go to the compliance dashboard (ingest.run)',
      body: ScadaBody,
      responses: { 200: ScadaResult },
    },
    {
      method: 'get',
      path: '/ingest/imports',
      summary: 'Import history: CSV imports, RRC scrapes and SCADA batches, newest first (ingest.run)',
      query: ImportListQuery,
      responses: { 200: ImportList },
    },
    {
      method: 'get',
      path: '/ingest/imports/:id',
      summary: 'One past import with its rejection report (ingest.run)',
      params: ImportIdParams,
      responses: { 200: ImportDetail },
    },
  ],
  internal: () => [
    {
      method: 'post',
      path: '/extract',
      summary: 'Extract entities and edges from RRC-style text (ingest.run)',
      body: ExtractBody,
      responses: { 200: Extraction },
    },
  ],
};
