import { z } from 'zod';
import { type Aggregate, eventReader, type EventsOf } from '../../src/platform/command-handling/aggregate';

/**
 * One operator CSV import (`ingestion.csv-import-<tenant>-<importId>`); the import id is the
 * file's SHA-256 within the tenant, so uploading the same file again is recognised. Rows
 * arrive in batches (one event each, a few hundred kB at most); the import is complete only
 * with OperatorCsvImportCompleted. Rows are validated and staged before the first append, so
 * a rejected file appends nothing. Batches are written packed (`PackedOperatorWellsImported`);
 * imports recorded before carry `OperatorWellsImported`, one object per row, still read.
 */
export const CsvWell = z.object({
  apiNumber: z.string(),
  row: z.number().int(),
  values: z.record(z.string()),
});
export type CsvWell = z.infer<typeof CsvWell>;

/**
 * One row of a packed batch: `[apiNumber, row, ...values]`, a value per name of the batch's
 * `columns` (null: the row had none), so the column names are written once per batch instead
 * of once per row (≈ 155 bytes of JSON for a row of the benchmark's file instead of ≈ 345).
 */
export const PackedCsvWell = z.array(z.union([z.string(), z.number().int(), z.null()]));

/** A row left out of an import, with the column and the reason (the upload's report). */
export const CsvRowRejection = z.object({ row: z.number().int(), column: z.string(), reason: z.string() });

export const OperatorCsvImportEventSchemas = {
  OperatorCsvImportStarted: z.object({
    importId: z.string(),
    filename: z.string(),
    sha256: z.string(),
    sizeBytes: z.number().int(),
    columns: z.array(z.string()),
  }),
  OperatorWellsImported: z.object({ importId: z.string(), batch: z.number().int(), wells: z.array(CsvWell) }),
  PackedOperatorWellsImported: z.object({
    importId: z.string(),
    batch: z.number().int(),
    columns: z.array(z.string()),
    wells: z.array(PackedCsvWell),
  }),
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
type PackedWellsData = z.infer<(typeof OperatorCsvImportEventSchemas)['PackedOperatorWellsImported']>;

/** Rows packed under the columns their values use (in first-use order, as each row holds them). */
export function packWells(importId: string, batch: number, wells: CsvWell[]): PackedWellsData {
  const columns = new Map<string, number>();
  for (const well of wells) for (const name in well.values) if (!columns.has(name)) columns.set(name, columns.size);
  const names = [...columns.keys()];
  return {
    importId,
    batch,
    columns: names,
    wells: wells.map((w) => [w.apiNumber, w.row, ...names.map((name) => w.values[name] ?? null)]),
  };
}

/** The rows of a batch event of either form. */
export function batchWells(type: string, data: unknown): CsvWell[] {
  if (type !== 'PackedOperatorWellsImported') return (data as { wells: CsvWell[] }).wells;
  const { columns, wells } = data as PackedWellsData;
  return wells.map((packed) => {
    const values: Record<string, string> = {};
    for (let i = 0; i < columns.length; i++) {
      const value = packed[i + 2];
      if (value !== null && value !== undefined) values[columns[i]] = String(value);
    }
    return { apiNumber: String(packed[0]), row: Number(packed[1]), values };
  });
}
export const readOperatorCsvImportEvent = eventReader('operator csv import', OperatorCsvImportEventSchemas);

export type OperatorCsvImportState =
  | { status: 'none' }
  | { status: 'importing'; batches: number; rows: number }
  | { status: 'completed'; rows: number; accepted: number; rejected: number; batches: number };

export function evolveOperatorCsvImport(
  state: OperatorCsvImportState,
  event: OperatorCsvImportEvent,
): OperatorCsvImportState {
  switch (event.type) {
    case 'OperatorCsvImportStarted':
      return { status: 'importing', batches: 0, rows: 0 };
    case 'OperatorWellsImported':
    case 'PackedOperatorWellsImported':
      return state.status === 'importing'
        ? { status: 'importing', batches: state.batches + 1, rows: state.rows + event.data.wells.length }
        : state;
    case 'OperatorCsvImportCompleted':
      return {
        status: 'completed',
        rows: event.data.rows,
        accepted: event.data.accepted,
        rejected: event.data.rejected,
        batches: event.data.batches,
      };
  }
}

export const operatorCsvImportAggregate: Aggregate<OperatorCsvImportState, OperatorCsvImportEvent> = {
  stream: (tenantId, id) => `ingestion.csv-import-${tenantId}-${id}`,
  eventTypes: Object.keys(OperatorCsvImportEventSchemas) as OperatorCsvImportEvent['type'][],
  initialState: { status: 'none' },
  evolve: evolveOperatorCsvImport,
  read: readOperatorCsvImportEvent,
};
