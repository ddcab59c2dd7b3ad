import type { PartialText } from './file-type';
import { UnreadableFile } from './errors';
import { attribute, localName, type XmlHandler, XmlScanner } from './xml-scan';
import { openPackage, type OfficePackage, resolvePartName } from './zip-package';
import { isDateFormat, serialToText } from './xlsx-dates';

/**
 * Text of a workbook: one block per sheet (`## Sheet: name`) in workbook order, one
 * tab-separated line per row. Sheets and shared strings are read as streams and reading
 * stops once `charBudget` characters are held, so a 10 MB workbook costs about as much as
 * its first rows. Runs only after zip-guard has proven the package safe to inflate.
 */
export async function extractXlsx(bytes: Buffer, charBudget: number): Promise<PartialText> {
  const pkg = await openPackage(bytes, 'spreadsheet');
  let strings: SharedStrings | null = null;
  try {
    const book = await readWorkbook(pkg);
    strings = new SharedStrings(pkg, book.sharedStrings);
    const blocks: string[] = [];
    let length = 0;
    let cells = 0;
    let complete = true;
    for (const sheet of book.sheets) {
      if (length >= charBudget) {
        complete = false;
        break;
      }
      const lines: string[] = [];
      const rows = new SheetRows();
      const scanner = new XmlScanner(rows);
      const render = async () => {
        for (const row of rows.take()) {
          await strings!.load(row.maxStringIndex);
          const values: string[] = [];
          for (const cell of row.cells) {
            const text = cellText(cell, strings!, book);
            if (text !== '') cells++;
            values[cell.column] = text;
          }
          const line = Array.from(values, (v) => v ?? '')
            .join('\t')
            .trimEnd();
          if (line === '') continue;
          lines.push(line);
          length += line.length + 1;
          if (length >= charBudget) return;
        }
      };
      for await (const chunk of pkg.chunks(sheet.part)) {
        scanner.write(chunk);
        await render();
        if (length >= charBudget) break;
      }
      if (lines.length > 0) blocks.push(`## Sheet: ${sheet.name}\n${lines.join('\n')}`);
    }
    if (cells === 0) throw new UnreadableFile('empty', 'The spreadsheet contains no cell values.');
    return { text: blocks.join('\n\n'), complete };
  } finally {
    await strings?.dispose();
    pkg.close();
  }
}

interface Workbook {
  sheets: Array<{ name: string; part: string }>;
  sharedStrings: string | null;
  dateStyles: Set<number>;
  date1904: boolean;
}

const REL_TYPE = /\/(worksheet|sharedStrings|styles|officeDocument)$/;

async function relationships(pkg: OfficePackage, part: string): Promise<Map<string, { type: string; part: string }>> {
  const relsPart = resolvePartName(part, `_rels/${part.split('/').pop()}.rels`);
  const rels = new Map<string, { type: string; part: string }>();
  if (!pkg.has(relsPart)) return rels;
  for (const match of (await pkg.text(relsPart)).matchAll(/<(?:\w+:)?Relationship\b([^>]*)>/g)) {
    const [id, type, target] = [
      attribute(match[1], 'Id'),
      REL_TYPE.exec(attribute(match[1], 'Type') ?? '')?.[1],
      attribute(match[1], 'Target'),
    ];
    if (id && type && target && attribute(match[1], 'TargetMode') !== 'External')
      rels.set(id, { type, part: resolvePartName(part, target) });
  }
  return rels;
}

async function readWorkbook(pkg: OfficePackage): Promise<Workbook> {
  const root = [...(await relationships(pkg, '')).values()].find((r) => r.type === 'officeDocument');
  const workbookPart = root && pkg.has(root.part) ? root.part : 'xl/workbook.xml';
  if (!pkg.has(workbookPart)) throw new UnreadableFile('damaged', 'The spreadsheet is damaged and could not be read.');
  const rels = await relationships(pkg, workbookPart);
  const xml = await pkg.text(workbookPart);
  const sheets: Workbook['sheets'] = [];
  for (const match of xml.matchAll(/<(?:\w+:)?sheet\s([^>]*)>/g)) {
    const rel = rels.get(attribute(match[1], 'r:id') ?? attribute(match[1], 'relationships:id') ?? '');
    if (rel?.type === 'worksheet' && pkg.has(rel.part))
      sheets.push({ name: attribute(match[1], 'name') ?? '', part: rel.part });
  }
  const date1904 = /<(?:\w+:)?workbookPr\b[^>]*\bdate1904\s*=\s*["'](1|true)["']/.test(xml);
  const find = (type: string) => [...rels.values()].find((r) => r.type === type && pkg.has(r.part))?.part ?? null;
  const styles = find('styles');
  return {
    sheets,
    sharedStrings: find('sharedStrings'),
    dateStyles: styles ? dateStyles(await pkg.text(styles)) : new Set(),
    date1904,
  };
}

/** Indexes into `cellXfs` whose number format shows a date or time. */
function dateStyles(xml: string): Set<number> {
  const custom = new Map<number, string>();
  for (const match of xml.matchAll(/<(?:\w+:)?numFmt\s([^>]*)>/g))
    custom.set(Number(attribute(match[1], 'numFmtId')), attribute(match[1], 'formatCode') ?? '');
  const result = new Set<number>();
  const cellXfs = /<(?:\w+:)?cellXfs\b[^>]*>([\s\S]*?)<\/(?:\w+:)?cellXfs>/.exec(xml)?.[1] ?? '';
  let index = 0;
  for (const match of cellXfs.matchAll(/<(?:\w+:)?xf\b([^>]*)>/g)) {
    const id = Number(attribute(match[1], 'numFmtId') ?? 0);
    if (isDateFormat(id, custom.get(id))) result.add(index);
    index++;
  }
  return result;
}

interface RawCell {
  column: number;
  type: string;
  style: number;
  value: string;
  formula: string;
}

const MAX_COLUMNS = 16384; // XFD, Excel's last column

/** Collects finished `<row>`s of a sheet's `sheetData`. */
class SheetRows implements XmlHandler {
  private rows: Array<{ cells: RawCell[]; maxStringIndex: number }> = [];
  private row: RawCell[] | null = null;
  private maxStringIndex = -1;
  private cell: RawCell | null = null;
  private into: 'value' | 'formula' | 'inline' | null = null;
  private phonetic = 0;

  open(name: string, attributes: string, selfClosing: boolean): void {
    switch (localName(name)) {
      case 'row':
        this.row = [];
        this.maxStringIndex = -1;
        if (selfClosing) this.close(name);
        break;
      case 'c': {
        if (!this.row) return;
        const previous = this.row.length ? this.row[this.row.length - 1].column : -1;
        const column = columnIndex(attribute(attributes, 'r')) ?? previous + 1;
        this.cell = {
          column,
          type: attribute(attributes, 't') ?? 'n',
          style: Number(attribute(attributes, 's') ?? 0),
          value: '',
          formula: '',
        };
        if (selfClosing) this.close(name);
        break;
      }
      case 'v':
        if (this.cell && !selfClosing) this.into = 'value';
        break;
      case 'f':
        if (this.cell && !selfClosing) this.into = 'formula';
        break;
      case 'rPh':
        if (!selfClosing) this.phonetic++;
        break;
      case 't':
        if (this.cell && !selfClosing && this.phonetic === 0) this.into = 'inline';
        break;
    }
  }

  close(name: string): void {
    switch (localName(name)) {
      case 'v':
      case 'f':
      case 't':
        this.into = null;
        break;
      case 'rPh':
        this.phonetic = Math.max(0, this.phonetic - 1);
        break;
      case 'c':
        if (this.row && this.cell && this.cell.column < MAX_COLUMNS) {
          if (this.cell.type === 's') this.maxStringIndex = Math.max(this.maxStringIndex, Number(this.cell.value) || 0);
          this.row.push(this.cell);
        }
        this.cell = null;
        break;
      case 'row':
        if (this.row) this.rows.push({ cells: this.row, maxStringIndex: this.maxStringIndex });
        this.row = null;
        break;
    }
  }

  text(text: string): void {
    if (!this.cell || this.into === null) return;
    if (this.into === 'formula') this.cell.formula += text;
    else this.cell.value += text;
  }

  take(): Array<{ cells: RawCell[]; maxStringIndex: number }> {
    const rows = this.rows;
    this.rows = [];
    return rows;
  }
}

function columnIndex(reference: string | undefined): number | null {
  const letters = reference && /^\$?([A-Za-z]{1,3})/.exec(reference)?.[1];
  if (!letters) return null;
  let index = 0;
  for (const letter of letters.toUpperCase()) index = index * 26 + (letter.charCodeAt(0) - 64);
  return index - 1;
}

function cellText(cell: RawCell, strings: SharedStrings, book: Workbook): string {
  const value = cell.value;
  let text: string;
  if (value === '' && cell.type !== 'inlineStr') text = cell.formula ? `=${cell.formula}` : '';
  else if (cell.type === 's') text = strings.get(Number(value));
  else if (cell.type === 'b') text = value.trim() === '1' || value.trim() === 'true' ? 'true' : 'false';
  else if (cell.type === 'n') {
    const number = Number(value);
    if (!Number.isFinite(number)) text = value;
    else text = book.dateStyles.has(cell.style) ? serialToText(number, book.date1904) : String(number);
  } else text = value; // str, inlineStr, e (error codes), d (ISO dates)
  return text.replace(/[\t\r\n]+/g, ' ').trim();
}

/**
 * The shared-string table, parsed only as far as the rows read so far need: Excel numbers
 * strings in order of first use, so the first rows rarely need more than the table's head.
 */
class SharedStrings implements XmlHandler {
  private strings: string[] = [];
  private current: string | null = null;
  private inText = false;
  private phonetic = 0;
  private chunks: AsyncGenerator<string> | null;
  private readonly scanner = new XmlScanner(this);

  constructor(pkg: OfficePackage, part: string | null) {
    this.chunks = part ? pkg.chunks(part) : null;
  }

  async load(index: number): Promise<void> {
    while (this.chunks && this.strings.length <= index) {
      const next = await this.chunks.next();
      if (next.done) this.chunks = null;
      else this.scanner.write(next.value);
    }
  }

  get(index: number): string {
    return this.strings[index] ?? '';
  }

  /** Stops inflating the table when the sheets needed no more of it. */
  async dispose(): Promise<void> {
    await this.chunks?.return(undefined);
  }

  open(name: string, _attributes: string, selfClosing: boolean): void {
    const local = localName(name);
    if (local === 'si') {
      this.current = '';
      if (selfClosing) this.close(name);
    } else if (local === 'rPh' && !selfClosing) this.phonetic++;
    else if (local === 't' && !selfClosing && this.phonetic === 0) this.inText = true;
  }

  close(name: string): void {
    const local = localName(name);
    if (local === 'si') {
      this.strings.push(this.current ?? '');
      this.current = null;
    } else if (local === 'rPh') this.phonetic = Math.max(0, this.phonetic - 1);
    else if (local === 't') this.inText = false;
  }

  text(text: string): void {
    if (this.inText && this.current !== null) this.current += text;
  }
}
