import type { PartialText } from './file-type';
import { UnreadableFile } from './errors';

/**
 * pdfjs-dist 5 ships only ES modules. This codebase is CommonJS, and TypeScript (module
 * nodenext) rewrites a literal `import()` in CommonJS output into `require()`, which cannot
 * load an .mjs file; a Function-built import keeps the real dynamic import at run time.
 */
const importModule = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<unknown>;

interface PdfTextItem {
  str?: string;
  hasEOL?: boolean;
}
interface PdfPage {
  getTextContent(): Promise<{ items: PdfTextItem[] }>;
  getOperatorList(): Promise<{ fnArray: number[] }>;
  cleanup(): void;
}
interface PdfDocument {
  numPages: number;
  getPage(n: number): Promise<PdfPage>;
  destroy(): Promise<void>;
}
interface Pdfjs {
  getDocument(options: Record<string, unknown>): { promise: Promise<PdfDocument>; destroy(): Promise<void> };
  OPS: Record<string, number>;
  VerbosityLevel: { ERRORS: number };
}

let pdfjs: Promise<Pdfjs> | null = null;
const loadPdfjs = () => (pdfjs ??= importModule('pdfjs-dist/legacy/build/pdf.mjs') as Promise<Pdfjs>);

const MAX_PAGES = 2000;

/**
 * Text of a PDF, page by page, stopping once `charBudget` characters are collected (the
 * caller keeps only the head anyway). Server-side there is no worker thread, no eval'd
 * font programs, no font faces and no fetching of font data: text positions suffice.
 */
export async function extractPdf(bytes: Buffer, charBudget: number): Promise<PartialText> {
  const lib = await loadPdfjs();
  const task = lib.getDocument({
    data: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength).slice(),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    useWorkerFetch: false,
    disableAutoFetch: true,
    disableStream: true,
    stopAtErrors: false,
    verbosity: lib.VerbosityLevel.ERRORS,
  });
  let doc: PdfDocument;
  try {
    doc = await task.promise;
  } catch (error) {
    await task.destroy().catch(() => undefined);
    if ((error as Error)?.name === 'PasswordException') {
      throw new UnreadableFile('encrypted', 'The PDF is password-protected; remove the password and upload it again.');
    }
    throw new UnreadableFile('damaged', 'The PDF is damaged and could not be read.');
  }
  try {
    const parts: string[] = [];
    let length = 0;
    const pages = Math.min(doc.numPages, MAX_PAGES);
    let read = 0;
    // A page with no text layer adds nothing, so image-only detection sees every page read.
    for (let n = 1; n <= pages && length < charBudget; n++, read++) {
      const page = await doc.getPage(n);
      const { items } = await page.getTextContent();
      let text = '';
      for (const item of items) text += (item.str ?? '') + (item.hasEOL ? '\n' : '');
      page.cleanup();
      parts.push(text.trim());
      length += text.length;
    }
    const text = parts.filter(Boolean).join('\n\n');
    if (text.trim() === '') {
      if (await hasImages(lib, doc, pages)) {
        throw new UnreadableFile(
          'image_only',
          'The PDF holds only scanned images and no text layer; run OCR on it or upload a text PDF.',
        );
      }
      throw new UnreadableFile('empty', 'The PDF contains no text.');
    }
    return { text, complete: read === doc.numPages };
  } finally {
    await doc.destroy().catch(() => undefined);
  }
}

async function hasImages(lib: Pdfjs, doc: PdfDocument, pages: number): Promise<boolean> {
  const imageOps = new Set(
    [
      lib.OPS.paintImageXObject,
      lib.OPS.paintInlineImageXObject,
      lib.OPS.paintImageMaskXObject,
      lib.OPS.paintImageXObjectRepeat,
    ].filter((op) => op !== undefined),
  );
  for (let n = 1; n <= Math.min(pages, 20); n++) {
    const page = await doc.getPage(n);
    const { fnArray } = await page.getOperatorList();
    page.cleanup();
    if (fnArray.some((op) => imageOps.has(op))) return true;
  }
  return false;
}
