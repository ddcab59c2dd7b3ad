import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { type Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';
import type { CsvWell } from '../../streams/ingestion/operator-csv-import';
import { RRC_DISTRICTS } from './rrc-simulator';

/**
 * An operator's well list as CSV (columns for well identification, location and
 * operational data). Header names are normalised (case, spaces,
 * punctuation) and mapped from the RRC PDQ-style names (API_NO, OPERATOR_NO, LEASE_NAME,
 * COUNTY, FIELD_NAME, SURFACE_LAT/LONG …) to one vocabulary; each row is validated on its
 * own and a rejected row is reported with its row number, column and reason.
 */
export const COLUMN_ALIASES: Record<string, string[]> = {
  api_number: [
    'api_no',
    'api',
    'api_number',
    'api_num',
    'apino',
    'api_nbr',
    'well_api',
    'api_14',
    'api_10',
    'api_well_no',
  ],
  operator_number: [
    'operator_no',
    'operator_number',
    'operator_nbr',
    'p5',
    'p5_no',
    'p5_number',
    'operator_p5',
    'oper_no',
  ],
  operator_name: ['operator_name', 'operator', 'oper_name'],
  lease_name: ['lease_name', 'lease'],
  lease_number: ['lease_no', 'lease_number', 'lease_nbr', 'lease_id', 'oil_lease_no', 'gas_well_id'],
  well_number: ['well_no', 'well_number', 'well_nbr', 'well_num'],
  well_name: ['well_name'],
  county: ['county', 'county_name', 'cnty'],
  district: ['district', 'dist', 'rrc_district', 'district_no'],
  field_name: ['field_name', 'field'],
  field_number: ['field_no', 'field_number', 'field_nbr'],
  latitude: ['surface_lat', 'surface_latitude', 'latitude', 'lat', 'lat_nad83', 'surf_lat'],
  longitude: [
    'surface_long',
    'surface_lon',
    'surface_longitude',
    'longitude',
    'long',
    'lon',
    'lng',
    'long_nad83',
    'surf_long',
  ],
  status: ['status', 'well_status'],
  well_type: ['well_type', 'type', 'oil_gas_code', 'og_code'],
  spud_date: ['spud_date', 'spud_dt', 'spud'],
  completion_date: ['completion_date', 'completion_dt', 'comp_date'],
  total_depth: ['total_depth', 'td', 'depth', 'total_depth_ft'],
};

export const normaliseHeader = (name: string) =>
  name
    .replace(/^\uFEFF/, '')
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');

const ALIAS_TO_COLUMN = new Map(
  Object.entries(COLUMN_ALIASES).flatMap(([column, aliases]) => aliases.map((a) => [a, column] as const)),
);

/** Column index → canonical name; unknown headers are kept under their normalised name. */
export function mapHeader(headers: string[]): { columns: string[]; missing: string[] } {
  const columns = headers.map((h) => {
    const n = normaliseHeader(h);
    return ALIAS_TO_COLUMN.get(n) ?? n;
  });
  return { columns, missing: columns.includes('api_number') ? [] : ['api_number'] };
}

export interface RowRejection {
  row: number;
  column: string;
  reason: string;
}

/**
 * `42-CCC-UUUUU` from 10 digits (dashes optional) or the 14-digit form with sidetrack and
 * event suffixes; the county code must be one of Texas's odd codes 001–507.
 */
export function normaliseApiNumber(raw: string): string | null {
  const digits = raw.replace(/[\s-]/g, '');
  if (!/^\d{8,14}$/.test(digits)) return null;
  // Spreadsheets drop the leading "42" state code or pad the 14-digit form: 8 digits = county + unique.
  const full = digits.length === 8 ? `42${digits}` : digits;
  if (full.length !== 10 && full.length !== 12 && full.length !== 14) return null;
  if (!full.startsWith('42')) return null;
  const county = Number(full.slice(2, 5));
  if (county < 1 || county > 507 || county % 2 === 0) return null;
  return `42-${full.slice(2, 5)}-${full.slice(5, 10)}`;
}

const TEXAS = { lat: [25.8, 36.6], lon: [-106.7, -93.5] };

function isoDate(raw: string): string | null {
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw);
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(raw);
  const compact = /^(\d{4})(\d{2})(\d{2})$/.exec(raw);
  const [y, m, d] = iso
    ? [iso[1], iso[2], iso[3]]
    : us
      ? [us[3], us[1], us[2]]
      : compact
        ? [compact[1], compact[2], compact[3]]
        : [];
  if (!y) return null;
  const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  if (date.getUTCMonth() !== Number(m) - 1 || date.getUTCDate() !== Number(d)) return null;
  return date.toISOString().slice(0, 10);
}

/** The row's values, normalised, or the first reason it cannot be imported. */
export function validateRow(
  columns: string[],
  record: string[],
  row: number,
): { well: CsvWell } | { rejection: RowRejection } {
  const values: Record<string, string> = {};
  for (let i = 0; i < columns.length; i++) {
    const raw = record[i];
    if (raw === undefined) continue;
    const column = columns[i];
    if (/[\r\n]/.test(raw))
      return {
        rejection: { row, column, reason: 'a line break inside the field (a quoted newline); one value per cell' },
      };
    const value = raw.trim().replace(/\s+/g, ' ');
    if (value !== '' && !(column in values)) values[column] = value;
  }
  if (record.length > columns.length && record.slice(columns.length).some((v) => v.trim() !== '')) {
    return {
      rejection: { row, column: '*', reason: `${record.length} fields where the header has ${columns.length}` },
    };
  }
  if (!values.api_number) return { rejection: { row, column: 'api_number', reason: 'the API number is empty' } };
  const api = normaliseApiNumber(values.api_number);
  if (!api)
    return {
      rejection: {
        row,
        column: 'api_number',
        reason: `'${values.api_number.slice(0, 40)}' is not a Texas API number (42-CCC-UUUUU)`,
      },
    };
  values.api_number = api;
  if (values.operator_number !== undefined) {
    if (!/^\d{1,6}$/.test(values.operator_number))
      return { rejection: { row, column: 'operator_number', reason: 'a P-5 operator number has 6 digits' } };
    values.operator_number = values.operator_number.padStart(6, '0');
  }
  if (values.district !== undefined) {
    const d = values.district
      .toUpperCase()
      .replace(/^(\d)([A-Z]?)$/, '0$1$2')
      .replace(/^0(\d[A-Z])$/, '$1');
    if (!(RRC_DISTRICTS as readonly string[]).includes(d))
      return {
        rejection: {
          row,
          column: 'district',
          reason: `'${values.district}' is not an RRC district (${RRC_DISTRICTS.join(', ')})`,
        },
      };
    values.district = d;
  }
  for (const [column, [min, max]] of [
    ['latitude', TEXAS.lat],
    ['longitude', TEXAS.lon],
  ] as const) {
    if (values[column] === undefined) continue;
    const n = Number(values[column]);
    if (!Number.isFinite(n)) return { rejection: { row, column, reason: `'${values[column]}' is not a number` } };
    if (n < min || n > max) return { rejection: { row, column, reason: `${n} lies outside Texas (${min} to ${max})` } };
    values[column] = String(n);
  }
  for (const column of ['spud_date', 'completion_date']) {
    if (values[column] === undefined) continue;
    const date = isoDate(values[column]);
    if (!date)
      return { rejection: { row, column, reason: `'${values[column]}' is not a date (YYYY-MM-DD or MM/DD/YYYY)` } };
    values[column] = date;
  }
  if (values.total_depth !== undefined && !/^\d{1,6}(\.\d+)?$/.test(values.total_depth))
    return { rejection: { row, column: 'total_depth', reason: 'the total depth is not a number of feet' } };
  if (values.well_type !== undefined) {
    const t = values.well_type.toLowerCase();
    values.well_type = t === 'o' || t === 'oil' ? 'oil' : t === 'g' || t === 'gas' ? 'gas' : t;
  }
  const { api_number: _api, ...rest } = values;
  return { well: { apiNumber: api, row, values: rest } };
}

export class CsvFileRejected extends Error {
  constructor(
    readonly column: string,
    readonly reason: string,
    readonly kind: string,
    readonly row?: number,
  ) {
    super(reason);
  }
}

export interface StagedCsv {
  /** NDJSON of accepted rows, in file order; delete with `discard()`. */
  path: string;
  sha256: string;
  sizeBytes: number;
  columns: string[];
  rows: number;
  accepted: number;
  rejected: number;
  /** The first `maxReported` rejections; `rejected` counts all of them. */
  rejections: RowRejection[];
  discard(): Promise<void>;
}

/** Fails on the first byte sequence that is not UTF-8, with its offset; hashes as it goes. */
class Utf8Guard extends Transform {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private readonly hash = createHash('sha256');
  bytes = 0;
  private sawText = false;
  _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (
      this.bytes === 0 &&
      chunk.length >= 2 &&
      ((chunk[0] === 0xff && chunk[1] === 0xfe) || (chunk[0] === 0xfe && chunk[1] === 0xff))
    ) {
      callback(new CsvFileRejected('file', 'the file is UTF-16; save it as UTF-8 CSV', 'value_error.encoding'));
      return;
    }
    try {
      this.decoder.decode(chunk, { stream: true });
    } catch {
      callback(
        new CsvFileRejected(
          'file',
          `the file is not UTF-8 text (invalid byte sequence near byte ${this.bytes}); save it as UTF-8 CSV`,
          'value_error.encoding',
        ),
      );
      return;
    }
    if (!this.sawText && chunk.includes(0)) {
      callback(
        new CsvFileRejected(
          'file',
          `the file holds binary data (a NUL byte near byte ${this.bytes}), not CSV text`,
          'value_error.encoding',
        ),
      );
      return;
    }
    this.sawText = true;
    this.bytes += chunk.length;
    this.hash.update(chunk);
    callback(null, chunk);
  }
  _flush(callback: TransformCallback): void {
    try {
      this.decoder.decode();
    } catch {
      callback(new CsvFileRejected('file', 'the file ends in the middle of a UTF-8 character', 'value_error.encoding'));
      return;
    }
    callback();
  }
  digest(): string {
    return this.hash.digest('hex');
  }
}

export interface StageOptions {
  maxReported?: number;
  /** Called every `progressEvery` rows with the rows read so far. */
  onProgress?: (rows: number) => void;
  progressEvery?: number;
}

/**
 * Streams the upload through the UTF-8 guard and csv-parse, validates each row and writes
 * accepted rows to a staging file: memory holds one record, the API numbers seen (to refuse
 * a second row for the same well) and the reported rejections. A file-level problem
 * (encoding, no API column, broken quoting) rejects the whole file and leaves nothing.
 */
export async function stageCsv(input: Readable, options: StageOptions = {}): Promise<StagedCsv> {
  const maxReported = options.maxReported ?? 1000;
  const dir = await mkdtemp(join(tmpdir(), 'ingest-csv-'));
  const path = join(dir, 'rows.ndjson');
  const discard = () => rm(dir, { recursive: true, force: true });
  const guard = new Utf8Guard();
  const out = createWriteStream(path);
  const seen = new Map<string, number>();
  const staged: Omit<StagedCsv, 'sha256' | 'sizeBytes' | 'path' | 'discard'> = {
    columns: [],
    rows: 0,
    accepted: 0,
    rejected: 0,
    rejections: [],
  };
  const reject = (r: RowRejection) => {
    staged.rejected++;
    if (staged.rejections.length < maxReported) staged.rejections.push(r);
  };
  let columns: string[] | null = null;
  const rowsToNdjson = new Transform({
    objectMode: true,
    transform(record: string[], _encoding, callback) {
      if (!columns) {
        const mapped = mapHeader(record);
        if (mapped.missing.length > 0) {
          const seenHeaders = record
            .slice(0, 12)
            .map((h) => h.slice(0, 40))
            .join(', ');
          callback(
            new CsvFileRejected(
              'header',
              `no API number column (expected one of ${COLUMN_ALIASES.api_number
                .slice(0, 4)
                .map((a) => a.toUpperCase())
                .join(', ')}…); the header reads: ${seenHeaders}`,
              'value_error.missing_column',
              1,
            ),
          );
          return;
        }
        columns = mapped.columns;
        staged.columns = columns;
        callback();
        return;
      }
      staged.rows++;
      const row = staged.rows;
      if (options.onProgress && row % (options.progressEvery ?? 10_000) === 0) options.onProgress(row);
      const result = validateRow(columns, record, row);
      if ('rejection' in result) {
        reject(result.rejection);
        callback();
        return;
      }
      const first = seen.get(result.well.apiNumber);
      if (first !== undefined) {
        reject({ row, column: 'api_number', reason: `${result.well.apiNumber} appears already in row ${first}` });
        callback();
        return;
      }
      seen.set(result.well.apiNumber, row);
      staged.accepted++;
      callback(null, JSON.stringify(result.well) + '\n');
    },
  });
  try {
    await pipeline(
      input,
      guard,
      parse({ bom: true, relax_column_count: true, skip_empty_lines: true, max_record_size: 64 * 1024 }),
      rowsToNdjson,
      out,
    );
  } catch (error) {
    await discard();
    if (error instanceof CsvFileRejected) throw error;
    const e = error as { code?: string; message?: string; lines?: number };
    if (e.code && e.code.startsWith('CSV_')) {
      throw new CsvFileRejected('file', `the file is not valid CSV: ${e.message}`, 'value_error.csv', staged.rows + 1);
    }
    throw error;
  }
  if (!columns) {
    await discard();
    throw new CsvFileRejected('file', 'the file is empty (no header row)', 'value_error.empty');
  }
  return { ...staged, path, sha256: guard.digest(), sizeBytes: guard.bytes, discard };
}

/** The staged rows again, `size` at a time. */
export async function* stagedBatches(path: string, size: number): AsyncGenerator<CsvWell[]> {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  let batch: CsvWell[] = [];
  for await (const line of lines) {
    if (!line) continue;
    batch.push(JSON.parse(line) as CsvWell);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
