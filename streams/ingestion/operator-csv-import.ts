import { z } from 'zod';
import { Aggregate, eventReader, EventsOf } from '../../src/platform/command-handling/aggregate';

/**
 * One operator CSV import (`ingestion.csv-import-<tenant>-<importId>`); the import id is the
 * file's SHA-256 within the tenant, so uploading the same file again is recognised. Rows
 * arrive in batches (one event each, a few hundred kB at most); the import is complete only
 * with OperatorCsvImportCompleted. Rows are validated and staged before the first append, so
 * a rejected file appends nothing.
 */
export const CsvWell = z.object({
  apiNumber: z.string(),
  row: z.number().int(),
  values: z.record(z.string()),
});
export type CsvWell = z.infer<typeof CsvWell>;

/** A row left out of an import, with the column and the reason (the upload's report). */
export const CsvRowRejection = z.object({ row: z.number().int(), column: z.string(), reason: z.string() });

export const OperatorCsvImportEventSchemas = {
  OperatorCsvImportStarted: z.object({ importId: z.string(), filename: z.string(), sha256: z.string(), sizeBytes: z.number().int(), columns: z.array(z.string()) }),
  OperatorWellsImported: z.object({ importId: z.string(), batch: z.number().int(), wells: z.array(CsvWell) }),
  /**
   * `rejections` (the first 1,000, as the upload answered) keeps the report re-readable in
   * the import history; imports recorded before it was added have none.
   */
  OperatorCsvImportCompleted: z.object({
    importId: z.string(),
    rows: z.number().int(),
    accepted: z.number().int(),
    rejected: z.number().int(),
    batches: z.number().int(),
    rejections: z.array(CsvRowRejection).optional(),
  }),
};

export type OperatorCsvImportEvent = EventsOf<typeof OperatorCsvImportEventSchemas>;
export const readOperatorCsvImportEvent = eventReader('operator csv import', OperatorCsvImportEventSchemas);

export type OperatorCsvImportState =
  | { status: 'none' }
  | { status: 'importing'; batches: number }
  | { status: 'completed'; rows: number; accepted: number; rejected: number; batches: number };

export function evolveOperatorCsvImport(state: OperatorCsvImportState, event: OperatorCsvImportEvent): OperatorCsvImportState {
  switch (event.type) {
    case 'OperatorCsvImportStarted':
      return { status: 'importing', batches: 0 };
    case 'OperatorWellsImported':
      return state.status === 'importing' ? { status: 'importing', batches: state.batches + 1 } : state;
    case 'OperatorCsvImportCompleted':
      return { status: 'completed', rows: event.data.rows, accepted: event.data.accepted, rejected: event.data.rejected, batches: event.data.batches };
  }
}

export const operatorCsvImportAggregate: Aggregate<OperatorCsvImportState, OperatorCsvImportEvent> = {
  stream: (tenantId, id) => `ingestion.csv-import-${tenantId}-${id}`,
  eventTypes: Object.keys(OperatorCsvImportEventSchemas) as OperatorCsvImportEvent['type'][],
  initialState: { status: 'none' },
  evolve: evolveOperatorCsvImport,
  read: readOperatorCsvImportEvent,
};
