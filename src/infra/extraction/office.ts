import ExcelJS from 'exceljs';
import mammoth from 'mammoth';
import { UnreadableFile } from './errors';

/** Both run only after zip-guard has proven the package safe to inflate. */

export async function extractDocx(bytes: Buffer): Promise<string> {
  let value: string;
  try {
    ({ value } = await mammoth.extractRawText({ buffer: bytes }));
  } catch {
    throw new UnreadableFile('damaged', 'The Word document is damaged and could not be read.');
  }
  if (value.trim() === '') throw new UnreadableFile('empty', 'The Word document contains no text.');
  return value.replace(/\n{3,}/g, '\n\n').trim();
}

/** One block per sheet (`## Sheet: name`), one tab-separated line per row. */
export async function extractXlsx(bytes: Buffer, charBudget: number): Promise<string> {
  const workbook = new ExcelJS.Workbook();
  try {
    // exceljs' typings predate Buffer<ArrayBufferLike>; the runtime takes any Buffer.
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  } catch {
    throw new UnreadableFile('damaged', 'The spreadsheet is damaged and could not be read.');
  }
  const blocks: string[] = [];
  let length = 0;
  let cells = 0;
  for (const sheet of workbook.worksheets) {
    if (length >= charBudget) break;
    const lines: string[] = [];
    sheet.eachRow({ includeEmpty: false }, (row) => {
      if (length >= charBudget) return;
      const values: string[] = [];
      row.eachCell({ includeEmpty: true }, (cell, column) => {
        const text = cellText(cell);
        if (text !== '') cells++;
        values[column - 1] = text;
      });
      const line = Array.from(values, (v) => v ?? '').join('\t').trimEnd();
      if (line === '') return;
      lines.push(line);
      length += line.length + 1;
    });
    if (lines.length > 0) blocks.push(`## Sheet: ${sheet.name}\n${lines.join('\n')}`);
  }
  if (cells === 0) throw new UnreadableFile('empty', 'The spreadsheet contains no cell values.');
  return blocks.join('\n\n');
}

function cellText(cell: ExcelJS.Cell): string {
  try {
    return (cell.text ?? '').replace(/[\t\r\n]+/g, ' ').trim();
  } catch {
    // A formula whose cached result exceljs cannot render: its source is still informative.
    return cell.formula ? `=${cell.formula}` : '';
  }
}
