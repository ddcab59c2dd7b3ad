import yauzl from 'yauzl';
import { UnreadableFile } from './errors';

/**
 * DOCX and XLSX are zip packages, and the libraries that read them inflate whatever the
 * archive holds. The archive is therefore checked BEFORE any extractor sees it: entry
 * count, declared sizes and compression ratios from the central directory, then every
 * entry is inflated once into a byte counter (yauzl validates actual against declared
 * sizes), so a lying header cannot smuggle a bomb past the declared-size checks.
 */
export interface ZipLimits {
  maxEntries: number;
  maxTotalUncompressedBytes: number;
  /** uncompressed / compressed for one entry; checked once an entry passes `ratioFloorBytes`. */
  maxCompressionRatio: number;
  ratioFloorBytes: number;
}

export const DEFAULT_ZIP_LIMITS: ZipLimits = {
  maxEntries: 5000,
  maxTotalUncompressedBytes: 100 * 1024 * 1024,
  maxCompressionRatio: 100,
  ratioFloorBytes: 1024 * 1024,
};

export interface ZipListing {
  names: string[];
  totalUncompressedBytes: number;
}

function open(bytes: Buffer): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.fromBuffer(
      bytes,
      { lazyEntries: true, validateEntrySizes: true, strictFileNames: false, decodeStrings: true },
      (err, zip) => (err ? reject(err) : resolve(zip)),
    ),
  );
}

const unsafe = (why: string) =>
  new UnreadableFile('unsafe_archive', `The file was refused: its archive ${why} (possible zip bomb).`);

function inflateCount(zip: yauzl.ZipFile, entry: yauzl.Entry, budget: number): Promise<number> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => {
      if (err) return reject(err);
      let count = 0;
      stream.on('data', (chunk: Buffer) => {
        count += chunk.length;
        if (count > budget) {
          stream.destroy();
          reject(unsafe('expands beyond the size limit'));
        }
      });
      stream.on('error', reject);
      stream.on('end', () => resolve(count));
    });
  });
}

/** Lists the archive after proving it is safe to inflate; throws UnreadableFile otherwise. */
export async function inspectZip(bytes: Buffer, limits: ZipLimits = DEFAULT_ZIP_LIMITS): Promise<ZipListing> {
  let zip: yauzl.ZipFile;
  try {
    zip = await open(bytes);
  } catch {
    throw new UnreadableFile('damaged', 'The file looks like an Office document but its archive is damaged.');
  }
  if (zip.entryCount > limits.maxEntries) {
    zip.close();
    throw unsafe(`has too many entries (${zip.entryCount})`);
  }
  const entries: yauzl.Entry[] = [];
  let declaredTotal = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (entry: yauzl.Entry) => {
        declaredTotal += entry.uncompressedSize;
        if (entry.isEncrypted())
          return reject(
            new UnreadableFile(
              'encrypted',
              'The document is password-protected; remove the password and upload it again.',
            ),
          );
        if (declaredTotal > limits.maxTotalUncompressedBytes) return reject(unsafe('expands beyond the size limit'));
        const ratio = entry.uncompressedSize / Math.max(1, entry.compressedSize);
        if (entry.uncompressedSize > limits.ratioFloorBytes && ratio > limits.maxCompressionRatio)
          return reject(unsafe(`has an entry compressed ${Math.round(ratio)}:1`));
        entries.push(entry);
        zip.readEntry();
      });
      zip.on('end', resolve);
      zip.on('error', reject);
      zip.readEntry();
    });
    let inflated = 0;
    for (const entry of entries) {
      if (entry.fileName.endsWith('/')) continue;
      inflated += await inflateCount(zip, entry, limits.maxTotalUncompressedBytes - inflated);
    }
    return { names: entries.map((e) => e.fileName), totalUncompressedBytes: inflated };
  } catch (error) {
    if (error instanceof UnreadableFile) throw error;
    throw new UnreadableFile('damaged', 'The file looks like an Office document but its archive is damaged.');
  } finally {
    zip.close();
  }
}
