import { StringDecoder } from 'node:string_decoder';
import yauzl from 'yauzl';
import { UnreadableFile } from './errors';

/**
 * Random access to the parts of an Office package that zip-guard has already proven safe
 * to inflate. A part is read as a stream of text chunks, so a reader that has enough can
 * stop and leave the rest of the part compressed.
 */
export interface OfficePackage {
  has(name: string): boolean;
  /** UTF-8 text of the part, chunk by chunk; breaking out of the loop stops inflating. */
  chunks(name: string): AsyncGenerator<string>;
  /** The whole part as text (for small parts: rels, workbook, styles). */
  text(name: string): Promise<string>;
  close(): void;
}

export async function openPackage(bytes: Buffer, what: string): Promise<OfficePackage> {
  const damaged = () => new UnreadableFile('damaged', `The ${what} is damaged and could not be read.`);
  let zip: yauzl.ZipFile;
  try {
    zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
      yauzl.fromBuffer(
        bytes,
        { lazyEntries: true, validateEntrySizes: true, strictFileNames: false, decodeStrings: true },
        (err, file) => (err ? reject(err) : resolve(file)),
      ),
    );
  } catch {
    throw damaged();
  }
  const entries = new Map<string, yauzl.Entry>();
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (entry: yauzl.Entry) => {
        // Part names are case-insensitive in OPC; writers differ in case and leading slash.
        entries.set(normalize(entry.fileName), entry);
        zip.readEntry();
      });
      zip.on('end', resolve);
      zip.on('error', reject);
      zip.readEntry();
    });
  } catch {
    zip.close();
    throw damaged();
  }

  async function* chunks(name: string): AsyncGenerator<string> {
    const entry = entries.get(normalize(name));
    if (!entry) throw damaged();
    let stream: NodeJS.ReadableStream;
    try {
      stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
        zip.openReadStream(entry, (err, s) => (err ? reject(err) : resolve(s))),
      );
    } catch {
      throw damaged();
    }
    const decoder = new StringDecoder('utf8');
    let first = true;
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        let text = decoder.write(chunk);
        // A UTF-8 byte-order mark is legal before the XML declaration.
        if (first && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        first = false;
        if (text) yield text;
      }
    } catch (error) {
      if (error instanceof UnreadableFile) throw error;
      throw damaged();
    } finally {
      (stream as NodeJS.ReadableStream & { destroy(): void }).destroy();
    }
    const tail = decoder.end();
    if (tail) yield tail;
  }

  return {
    has: (name) => entries.has(normalize(name)),
    chunks,
    async text(name) {
      let text = '';
      for await (const chunk of chunks(name)) text += chunk;
      return text;
    },
    close: () => zip.close(),
  };
}

function normalize(name: string): string {
  return name.replace(/^\/+/, '').toLowerCase();
}

/** Resolves a relationship target against the folder of the part that names it. */
export function resolvePartName(fromPart: string, target: string): string {
  if (target.startsWith('/')) return target.slice(1);
  const parts = fromPart.split('/').slice(0, -1);
  for (const segment of target.split('/')) {
    if (segment === '..') parts.pop();
    else if (segment !== '.' && segment !== '') parts.push(segment);
  }
  return parts.join('/');
}
