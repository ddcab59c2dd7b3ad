import { parse } from 'csv-parse/sync';
import { UnsupportedMediaType } from '../../domain-errors';
import { UnreadableFile, unsupportedType } from './errors';
import { inspectZip, type ZipLimits } from './zip-guard';

/**
 * The type of an upload is decided from its bytes alone: a client's Content-Type and
 * filename are hints that anyone can forge, so they never choose the extractor.
 */
export type FileKind = 'pdf' | 'docx' | 'xlsx' | 'csv' | 'txt';

export const CONTENT_TYPES: Record<FileKind, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  csv: 'text/csv',
  txt: 'text/plain',
};

/** What a document reader returns. */
export interface PartialText {
  text: string;
  /** False when the reader stopped at its character budget with text left unread. */
  complete: boolean;
}

export type Sniffed = { kind: 'pdf' | 'docx' | 'xlsx' } | { kind: 'csv' | 'txt'; text: string };

const PDF_MAGIC = Buffer.from('%PDF-');
const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
// Encrypted OOXML (and legacy .doc/.xls) are OLE compound files, not zips.
const CFB_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const ENCRYPTED_PACKAGE = Buffer.from('EncryptedPackage', 'utf16le');
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

export async function sniff(bytes: Buffer, zipLimits?: ZipLimits): Promise<Sniffed> {
  if (bytes.length === 0) throw new UnreadableFile('empty', 'The file is empty.');
  // The PDF header may follow a little junk; readers accept it within the first 1 KB.
  if (bytes.subarray(0, 1024).includes(PDF_MAGIC)) return { kind: 'pdf' };
  if (bytes.subarray(0, 4).equals(ZIP_MAGIC)) return { kind: await officeKind(bytes, zipLimits) };
  if (bytes.subarray(0, 8).equals(CFB_MAGIC)) {
    if (bytes.includes(ENCRYPTED_PACKAGE))
      throw new UnreadableFile(
        'encrypted',
        'The document is password-protected; remove the password and upload it again.',
      );
    throw unsupportedType('legacy Office binary format; save it as DOCX or XLSX');
  }
  const text = decodeText(bytes);
  if (text === null) throw unsupportedType('binary content');
  return { kind: looksLikeCsv(text) ? 'csv' : 'txt', text };
}

async function officeKind(bytes: Buffer, zipLimits?: ZipLimits): Promise<'docx' | 'xlsx'> {
  const { names } = await inspectZip(bytes, zipLimits);
  if (names.includes('[Content_Types].xml')) {
    if (names.some((n) => n.startsWith('word/'))) return 'docx';
    if (names.some((n) => n.startsWith('xl/'))) return 'xlsx';
  }
  throw unsupportedType('a zip archive that is neither DOCX nor XLSX');
}

/**
 * UTF-8 (BOM optional), else Windows-1252 when the bytes hold no control characters: old
 * spreadsheet exports are often Latin-1. NUL bytes or many control characters mean binary.
 */
export function decodeText(bytes: Buffer): string | null {
  const body = bytes.subarray(0, 3).equals(UTF8_BOM) ? bytes.subarray(3) : bytes;
  const head = body.subarray(0, 64 * 1024);
  if (head.includes(0)) return null;
  let controls = 0;
  for (const byte of head)
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c) controls++;
  if (controls > head.length / 100) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    return new TextDecoder('windows-1252').decode(body);
  }
}

const DELIMITERS = [',', ';', '\t', '|'];

/** At least two rows of at least two columns, and most rows agreeing on the column count. */
export function looksLikeCsv(text: string): boolean {
  let sample = text.slice(0, 32 * 1024);
  if (sample.length < text.length) sample = sample.slice(0, Math.max(sample.lastIndexOf('\n'), 0));
  for (const delimiter of DELIMITERS) {
    if (!sample.includes(delimiter)) continue;
    let rows: string[][];
    try {
      rows = parse(sample, {
        delimiter,
        relax_column_count: true,
        relax_quotes: true,
        skip_empty_lines: true,
        to: 200,
      });
    } catch {
      continue;
    }
    if (rows.length < 2) continue;
    const width = rows[0].length;
    if (width < 2) continue;
    const agreeing = rows.filter((r) => r.length === width).length;
    if (agreeing / rows.length >= 0.8) return true;
  }
  return false;
}

/** What the client said the file is: its Content-Type and its filename's extension. */
export interface DeclaredFile {
  filename?: string;
  declaredType?: string;
}

export const KIND_NAMES: Record<FileKind, string> = { pdf: 'PDF', docx: 'DOCX', xlsx: 'XLSX', csv: 'CSV', txt: 'TXT' };
const TEXT_KINDS: FileKind[] = ['csv', 'txt'];

const TYPE_CLAIMS: Record<string, FileKind[]> = {
  'application/pdf': ['pdf'],
  'application/x-pdf': ['pdf'],
  [CONTENT_TYPES.docx]: ['docx'],
  [CONTENT_TYPES.xlsx]: ['xlsx'],
  // Windows names a CSV this way; the same label is also used for real spreadsheets.
  'application/vnd.ms-excel': ['csv', 'xlsx'],
  'text/csv': TEXT_KINDS,
  'text/plain': TEXT_KINDS,
  'text/tab-separated-values': TEXT_KINDS,
  'application/csv': TEXT_KINDS,
};

const EXTENSION_CLAIMS: Record<string, FileKind[]> = {
  pdf: ['pdf'],
  docx: ['docx'],
  xlsx: ['xlsx'],
  csv: TEXT_KINDS,
  tsv: TEXT_KINDS,
  txt: TEXT_KINDS,
  text: TEXT_KINDS,
};

/**
 * The formats a declaration names (empty when it names none we know: application/
 * octet-stream, a missing or unknown extension). The bytes still decide the type; a
 * declaration only ever turns a match into a refusal.
 */
export function declaredClaims(declared: DeclaredFile): Array<{ label: string; kinds: FileKind[] }> {
  const claims: Array<{ label: string; kinds: FileKind[] }> = [];
  const type = (declared.declaredType ?? '').split(';')[0].trim().toLowerCase();
  if (TYPE_CLAIMS[type]) claims.push({ label: `declared type ${type}`, kinds: TYPE_CLAIMS[type] });
  const name = declared.filename ?? '';
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
  if (EXTENSION_CLAIMS[extension])
    claims.push({ label: `extension .${extension}`, kinds: EXTENSION_CLAIMS[extension] });
  return claims;
}

/** 415 naming both formats when what the client declared is not what the bytes are. */
export function assertDeclaredMatches(kind: FileKind, declared: DeclaredFile): void {
  for (const claim of declaredClaims(declared)) {
    if (claim.kinds.includes(kind)) continue;
    const named = claim.kinds.map((k) => KIND_NAMES[k]).join(' or ');
    throw new UnsupportedMediaType(
      `The file's ${claim.label} names ${named}, but its bytes are ${KIND_NAMES[kind]}; save it in the format it claims or rename it, then upload it again.`,
    );
  }
}
