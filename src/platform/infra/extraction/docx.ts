import { UnreadableFile } from './errors';
import type { PartialText } from './file-type';
import { attribute, localName, XmlScanner } from './xml-scan';
import { openPackage, type OfficePackage, resolvePartName } from './zip-package';

const WORDPROCESSING_NS = new Set([
  'http://schemas.openxmlformats.org/wordprocessingml/2006/main',
  'http://purl.oclc.org/ooxml/wordprocessingml/main',
]);
const OFFICE_DOCUMENT_REL = /\/officeDocument$/;

/**
 * Text of a Word document, paragraph by paragraph (a blank line between paragraphs), read
 * as a stream from the main document part and stopped once `charBudget` characters are
 * held. Runs only after zip-guard has proven the package safe to inflate.
 */
export async function extractDocx(bytes: Buffer, charBudget: number): Promise<PartialText> {
  const pkg = await openPackage(bytes, 'Word document');
  try {
    const reader = new DocumentReader();
    const scanner = new XmlScanner(reader);
    let complete = true;
    for await (const chunk of pkg.chunks(await mainPart(pkg))) {
      scanner.write(chunk);
      if (reader.length >= charBudget) {
        complete = false;
        break;
      }
    }
    const text = reader
      .result()
      .replace(/\n{3,}/g, '\n\n')
      .trim();
    if (text === '') throw new UnreadableFile('empty', 'The Word document contains no text.');
    return { text, complete };
  } finally {
    pkg.close();
  }
}

/** The main document part named by the package relationships; Word itself writes word/document.xml. */
async function mainPart(pkg: OfficePackage): Promise<string> {
  if (pkg.has('_rels/.rels')) {
    for (const match of (await pkg.text('_rels/.rels')).matchAll(/<(?:\w+:)?Relationship\b([^>]*)>/g)) {
      const target = attribute(match[1], 'Target');
      if (target && OFFICE_DOCUMENT_REL.test(attribute(match[1], 'Type') ?? '') && pkg.has(resolvePartName('', target)))
        return resolvePartName('', target);
    }
  }
  if (pkg.has('word/document.xml')) return 'word/document.xml';
  throw new UnreadableFile('damaged', 'The Word document is damaged and could not be read.');
}

/**
 * Collects `w:t` runs, tabs and breaks; a paragraph ends with a blank line. Deleted text
 * (`w:delText`) and field codes (`w:instrText`) are other elements and so never read, and
 * `mc:Fallback` branches are skipped because they repeat their `mc:Choice` (text boxes).
 */
class DocumentReader {
  private prefix: string | null = null;
  private parts: string[] = [];
  private inText = 0;
  private skipping = 0;
  length = 0;

  open(name: string, attributes: string, selfClosing: boolean): void {
    if (this.prefix === null) this.prefix = wordprocessingPrefix(attributes);
    const local = localName(name);
    if (local === 'Fallback') {
      if (!selfClosing) this.skipping++;
      return;
    }
    if (this.skipping > 0 || !this.inWordNamespace(name, local)) return;
    if (local === 't') {
      if (!selfClosing) this.inText++;
    } else if (local === 'tab') this.push('\t');
    else if (local === 'br' || local === 'cr') this.push('\n');
    else if (local === 'noBreakHyphen') this.push('-');
  }

  close(name: string): void {
    const local = localName(name);
    if (local === 'Fallback') {
      this.skipping = Math.max(0, this.skipping - 1);
      return;
    }
    if (this.skipping > 0 || !this.inWordNamespace(name, local)) return;
    if (local === 't') this.inText = Math.max(0, this.inText - 1);
    else if (local === 'p') this.push('\n\n');
  }

  text(text: string): void {
    if (this.inText > 0 && this.skipping === 0) this.push(text);
  }

  result(): string {
    return this.parts.join('');
  }

  private inWordNamespace(name: string, local: string): boolean {
    return this.prefix !== null && name.length === local.length + this.prefix.length && name.startsWith(this.prefix);
  }

  private push(text: string): void {
    this.parts.push(text);
    this.length += text.length;
  }
}

/** `w:` as the root element binds it (with the colon), `''` for a default namespace. */
function wordprocessingPrefix(attributes: string): string {
  for (const match of attributes.matchAll(/xmlns(?::([\w.-]+))?\s*=\s*["']([^"']*)["']/g)) {
    if (WORDPROCESSING_NS.has(match[2])) return match[1] ? `${match[1]}:` : '';
  }
  return 'w:';
}
