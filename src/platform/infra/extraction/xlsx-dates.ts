/**
 * Spreadsheet dates are numbers (days since the workbook's epoch) that only their cell's
 * number format marks as dates. Compliance workbooks are full of report months and due
 * dates, so they are written out as ISO dates rather than as serials like 46082.
 */

// Built-in number formats that show dates or times (ECMA-376 §18.8.30, plus the East Asian ones).
const BUILT_IN_DATE_FORMATS = new Set([
  14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56,
  57, 58,
]);

export function isDateFormat(id: number, code: string | undefined): boolean {
  if (code === undefined) return BUILT_IN_DATE_FORMATS.has(id);
  // Quoted literals, escaped characters and [colour]/[$-locale] sections say nothing about dates.
  const bare = code
    .replace(/"[^"]*"/g, '')
    .replace(/\\./g, '')
    .replace(/\[(?![hms]+\])[^\]]*\]/gi, '');
  if (/^general$/i.test(bare.trim())) return false;
  return /[dmyhs]/i.test(bare);
}

const DAY_MS = 86_400_000;
// Day 0 of the 1900 system is 1899-12-31, but Excel counts a 29 February 1900 that never
// was; counting from 1899-12-30 gives the right date for every serial after it.
const EPOCH_1900 = Date.UTC(1899, 11, 30);
const EPOCH_1904 = Date.UTC(1904, 0, 1);

export function serialToText(serial: number, date1904: boolean): string {
  if (serial < 0 || serial > 2_958_465) return String(serial); // outside 1900-01-01…9999-12-31
  const iso = new Date((date1904 ? EPOCH_1904 : EPOCH_1900) + Math.round(serial * DAY_MS)).toISOString();
  const hasTime = Math.abs(serial - Math.round(serial)) * DAY_MS >= 1000;
  if (serial < 1 && hasTime) return iso.slice(11, 19);
  return hasTime ? `${iso.slice(0, 10)} ${iso.slice(11, 19)}` : iso.slice(0, 10);
}
