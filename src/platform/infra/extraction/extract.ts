import { truncateToTokens } from '../tokens';
import { assertDeclaredMatches, CONTENT_TYPES, type DeclaredFile, type FileKind, sniff } from './file-type';
import { extractDocx } from './docx';
import { extractPdf } from './pdf';
import { extractXlsx } from './xlsx';
import { UnreadableFile } from './errors';
import type { ZipLimits } from './zip-guard';

/** About 8,000 tokens per attachment or knowledge file, head kept. */
export const EXTRACTED_TOKEN_LIMIT = 8000;
/** Per-file upload limit. */
export const UPLOAD_LIMIT_BYTES = 10 * 1024 * 1024;

export interface ExtractedText {
  kind: FileKind;
  contentType: string;
  text: string;
  tokenEstimate: number;
  truncated: boolean;
}

export interface ExtractionOptions {
  maxTokens?: number;
  zipLimits?: ZipLimits;
  /** Characters a reader collects before it stops; by default 8 per token kept. */
  charBudget?: number;
  /** The client's Content-Type and filename: a mismatch with the bytes is refused (415). */
  declared?: DeclaredFile;
}

/**
 * Characters a reader collects per token kept before it stops: prose runs about four
 * characters a token and tables fewer, so 8 leaves a wide margin and matches the first
 * window `headWithinTokens` tokenizes. Text past the budget is never read at all.
 */
const CHARS_PER_TOKEN_BUDGET = 8;

/** A file's text as its reader left it: at most about the character budget, not yet cut to tokens. */
export interface ReadText {
  kind: FileKind;
  text: string;
  /** False when the reader stopped at its budget: text was left behind. */
  complete: boolean;
}

/**
 * Sniffs the type from the bytes, extracts text with the type's reader and keeps the head
 * within the token limit. Throws UnsupportedMediaType (415) or UnreadableFile (422).
 * Readers stop early once they hold far more text than the limit can keep, so a 10 MB
 * document costs about what its first pages cost.
 */
export async function extractText(bytes: Buffer, options: ExtractionOptions = {}): Promise<ExtractedText> {
  return keepHead(await readText(bytes, options), options.maxTokens);
}

/**
 * The reading half of `extractText` (what the extraction threads run): sniff, refuse, read up
 * to the character budget. Cutting to tokens is left to `keepHead`, so the tokenizer's ranks
 * (~40 MB a thread) live only in the calling process, not in every worker.
 */
export async function readText(bytes: Buffer, options: ExtractionOptions = {}): Promise<ReadText> {
  const maxTokens = options.maxTokens ?? EXTRACTED_TOKEN_LIMIT;
  const charBudget = options.charBudget ?? maxTokens * CHARS_PER_TOKEN_BUDGET;
  const sniffed = await sniff(bytes, options.zipLimits);
  // Before any reader runs: a declaration the bytes contradict costs nothing to refuse
  // (a blank file is reported as blank, whatever it was called).
  if ((sniffed.kind === 'csv' || sniffed.kind === 'txt') && sniffed.text.trim() === '')
    throw new UnreadableFile('empty', 'The file contains no text.');
  if (options.declared) assertDeclaredMatches(sniffed.kind, options.declared);
  let text: string;
  // False when a reader stopped at its budget: text was left behind even if what it read fits.
  let complete = true;
  switch (sniffed.kind) {
    case 'pdf':
      ({ text, complete } = await extractPdf(bytes, charBudget));
      break;
    case 'docx':
      ({ text, complete } = await extractDocx(bytes, charBudget));
      break;
    case 'xlsx':
      ({ text, complete } = await extractXlsx(bytes, charBudget));
      break;
    case 'csv':
    case 'txt':
      text = sniffed.text.replace(/\r\n?/g, '\n');
      if (text.trim() === '') throw new UnreadableFile('empty', 'The file contains no text.');
      break;
  }
  // NUL and other C0 controls cannot live in Postgres text or jsonb and carry no meaning.
  // eslint-disable-next-line no-control-regex
  text = text.replace(/[\u0000-\u0008\u000b\u000e-\u001f]/g, '');
  if (text.trim() === '') throw new UnreadableFile('empty', 'The file contains no text.');
  return { kind: sniffed.kind, text, complete };
}

/** The head of what a reader read, within the token limit (the text is at most about the budget). */
export function keepHead(read: ReadText, maxTokens = EXTRACTED_TOKEN_LIMIT): ExtractedText {
  const head = headWithinTokens(read.text, maxTokens);
  return {
    kind: read.kind,
    contentType: CONTENT_TYPES[read.kind],
    text: head.text,
    tokenEstimate: head.tokens,
    truncated: head.truncated || !read.complete,
  };
}

/**
 * The head of `text` within `maxTokens`, tokenizing only a growing window: encoding a whole
 * 10 MB file to keep its first 8,000 tokens would cost seconds.
 */
export function headWithinTokens(
  text: string,
  maxTokens: number,
): { text: string; tokens: number; truncated: boolean } {
  for (let window = maxTokens * 8; ; window *= 2) {
    let end = Math.min(window, text.length);
    // Never split a surrogate pair at the window's edge.
    if (end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1])) end--;
    const cut = truncateToTokens(text.slice(0, end), maxTokens);
    if (cut.truncated) return cut;
    if (end === text.length) return cut;
  }
}
