import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { PDFDocument, StandardFonts } from 'pdf-lib';

/**
 * Real files built in memory for upload and extraction tests: each is what the named
 * program would write, so the extractors are exercised on honest input.
 */

export async function pdfWithText(pages: string[][]): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = doc.addPage([612, 792]);
    lines.forEach((line, i) => page.drawText(line, { x: 50, y: 740 - i * 16, size: 11, font }));
  }
  return Buffer.from(await doc.save());
}

/** Text pages followed by one large scanned-looking page: a realistic ~`megabytes` PDF. */
export async function scannedReportPdf(megabytes: number, textPages: string[][]): Promise<Buffer> {
  const doc = await PDFDocument.load(await pdfWithText(textPages));
  const side = Math.floor(Math.sqrt(megabytes * 1024 * 1024 * 0.97));
  const image = await doc.embedPng(grayscalePng(side, side, 'noise'));
  doc.addPage([612, 792]).drawImage(image, { x: 0, y: 0, width: 612, height: 792 });
  return Buffer.from(await doc.save());
}

/** A page that holds only a raster image (a "scan"): no text layer at all. */
export async function imageOnlyPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const image = await doc.embedPng(grayscalePng(120, 80));
  const page = doc.addPage([612, 792]);
  page.drawImage(image, { x: 50, y: 400, width: 480, height: 320 });
  return Buffer.from(await doc.save());
}

/**
 * pdf-lib cannot encrypt, so this PDF is written by hand with a Standard security handler
 * (RC4, revision 2) whose /U entry matches no password: pdfjs tries the empty user
 * password, fails, and reports the document as password-protected, as it would for a
 * PDF that really needs a password to open.
 */
export function encryptedPdf(): Buffer {
  const content = 'BT /F1 12 Tf 72 712 Td (ciphertext) Tj ET';
  const hex = (n: number) => randomBytes(n).toString('hex');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Filter /Standard /V 1 /R 2 /O <${hex(32)}> /U <${hex(32)}> /P -44 >>`,
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(Buffer.byteLength(body, 'latin1'));
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = Buffer.byteLength(body, 'latin1');
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  const id = hex(16);
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Encrypt 6 0 R /ID [<${id}> <${id}>] >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

/**
 * An 8-bit grayscale PNG encoded by hand (signature, IHDR, IDAT, IEND): a gradient, or
 * incompressible noise when a large file is wanted.
 */
export function grayscalePng(width: number, height: number, fill: 'gradient' | 'noise' = 'gradient'): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(typed) >>> 0);
    return Buffer.concat([length, typed, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(0, 9); // grayscale
  const raw = Buffer.alloc((width + 1) * height);
  const noise = fill === 'noise' ? randomBytes(width * height) : null;
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) raw[y * (width + 1) + 1 + x] = noise ? noise[y * width + x] : (x * 2 + y) & 0xff;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export async function xlsxWithSheets(sheets: Record<string, unknown[][]>): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  for (const [name, rows] of Object.entries(sheets)) {
    const sheet = workbook.addWorksheet(name);
    for (const row of rows) sheet.addRow(row);
  }
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

const CONTENT_TYPES_XML =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
  '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
  '<Default Extension="xml" ContentType="application/xml"/>' +
  '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
  '</Types>';
const RELS_XML =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
  '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
  '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>' +
  '</Relationships>';

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The smallest valid WordprocessingML package: content types, package rels, one document part. */
export async function docxWithParagraphs(paragraphs: string[]): Promise<Buffer> {
  const body = paragraphs.map((p) => `<w:p><w:r><w:t xml:space="preserve">${escapeXml(p)}</w:t></w:r></w:p>`).join('');
  const zip = new JSZip();
  zip.file('[Content_Types].xml', CONTENT_TYPES_XML);
  zip.file('_rels/.rels', RELS_XML);
  zip.file(
    'word/document.xml',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`,
  );
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

/**
 * A zip bomb dressed as a Word document (correct package parts, `.docx` name): its document
 * part is `inflatedMb` of one repeated character, which deflates about a thousand to one.
 */
export async function zipBombDocx(inflatedMb = 40): Promise<Buffer> {
  const zip = new JSZip();
  zip.file('[Content_Types].xml', CONTENT_TYPES_XML);
  zip.file('_rels/.rels', RELS_XML);
  zip.file('word/document.xml', Buffer.alloc(inflatedMb * 1024 * 1024, 0x41));
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', compressionOptions: { level: 9 } });
}

export function csvOf(rows: (string | number)[][]): Buffer {
  const cell = (v: string | number) =>
    typeof v === 'string' && /[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : String(v);
  return Buffer.from(rows.map((r) => r.map(cell).join(',')).join('\n') + '\n');
}

/** Readable ASCII text of exactly `bytes` bytes (for size-limit and throughput tests). */
export function textOfSize(bytes: number): Buffer {
  const line = 'Well 42-123-45678 produced 1250 bbl of oil and 3400 mcf of gas in March.\n';
  const out = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i += line.length) out.write(line, i, 'latin1');
  return out;
}

export interface UploadPart {
  bytes: Buffer;
  filename: string;
  contentType?: string;
}

/** A multipart/form-data body with one `file` part, as browsers send it. */
export function multipartBody(part: UploadPart, field = 'file'): { body: Buffer; contentType: string } {
  const boundary = `----platform-test-${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${part.filename}"\r\nContent-Type: ${part.contentType ?? 'application/octet-stream'}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { body: Buffer.concat([head, part.bytes, tail]), contentType: `multipart/form-data; boundary=${boundary}` };
}

/**
 * Uploads through fetch. `chunked` streams the body without a Content-Length (transfer
 * encoding chunked), the way a client streaming from disk does.
 */
export async function upload(
  url: string,
  part: UploadPart,
  options: { headers?: Record<string, string>; chunked?: boolean; field?: string } = {},
) {
  const { body, contentType } = multipartBody(part, options.field);
  const init: RequestInit & { duplex?: 'half' } = {
    method: 'POST',
    headers: { ...options.headers, 'content-type': contentType },
  };
  if (options.chunked) {
    let offset = 0;
    init.body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= body.length) return controller.close();
        controller.enqueue(body.subarray(offset, offset + 64 * 1024));
        offset += 64 * 1024;
      },
    });
    init.duplex = 'half';
  } else init.body = new Uint8Array(body.buffer, body.byteOffset, body.byteLength) as Uint8Array<ArrayBuffer>;
  const response = await fetch(url, init);
  const text = await response.text();
  let json: any = text;
  if ((response.headers.get('content-type') ?? '').includes('json') && text) json = JSON.parse(text);
  return { status: response.status, body: json, headers: response.headers };
}
