import { createHash } from 'node:crypto';
import type { JSONWebKeySet } from 'jose';
import yauzl from 'yauzl';
import { verifyDetached } from './signing';

/**
 * An evidence package checked with nothing but its bytes and a JWKS: the detached signature over
 * manifest.json, then every file the manifest lists against its SHA-256, and no file in the zip
 * the manifest does not list. The platform is not asked anything (docs/filings.md#verify).
 */
export interface Verdict {
  valid: boolean;
  kid: string | null;
  filing_id: string | null;
  checks: Array<{ check: string; passed: boolean; detail: string }>;
}

/** Every entry of a zip, by name; a package is small (the artifacts' 10 MB limit each). */
export async function readZip(bytes: Buffer): Promise<Map<string, Buffer>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(bytes, { lazyEntries: true, validateEntrySizes: true }, (err, file) =>
      err ? reject(err) : resolve(file),
    ),
  );
  const entries = new Map<string, Buffer>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      if (entry.fileName.endsWith('/')) return zip.readEntry();
      zip.openReadStream(entry, (err, stream) => {
        if (err) return reject(err);
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('error', reject);
        stream.on('end', () => {
          entries.set(entry.fileName, Buffer.concat(chunks));
          zip.readEntry();
        });
      });
    });
    zip.on('end', resolve);
    zip.on('error', reject);
    zip.readEntry();
  });
  return entries;
}

const SIGNED = new Set(['manifest.json', 'manifest.jws']);

export async function verifyEvidence(bytes: Buffer, jwks: JSONWebKeySet): Promise<Verdict> {
  const checks: Verdict['checks'] = [];
  let entries: Map<string, Buffer>;
  try {
    entries = await readZip(bytes);
  } catch (error) {
    return {
      valid: false,
      kid: null,
      filing_id: null,
      checks: [{ check: 'zip', passed: false, detail: `not a readable zip: ${(error as Error).message}` }],
    };
  }
  const manifestBytes = entries.get('manifest.json');
  const jws = entries.get('manifest.jws');
  if (!manifestBytes || !jws) {
    return {
      valid: false,
      kid: null,
      filing_id: null,
      checks: [
        { check: 'manifest', passed: false, detail: 'manifest.json and manifest.jws must both be in the package' },
      ],
    };
  }
  const signature = await verifyDetached(jws.toString('utf8'), manifestBytes, jwks);
  checks.push({
    check: 'signature',
    passed: signature.valid,
    detail: signature.valid ? `manifest.json is signed by key ${signature.kid}` : signature.reason,
  });
  let manifest: { filing_id?: string; files?: Array<{ path: string; sha256: string }> };
  try {
    manifest = JSON.parse(manifestBytes.toString('utf8'));
  } catch {
    checks.push({ check: 'manifest', passed: false, detail: 'manifest.json is not JSON' });
    return { valid: false, kid: signature.valid ? signature.kid : null, filing_id: null, checks };
  }
  const listed = new Set<string>();
  for (const file of manifest.files ?? []) {
    listed.add(file.path);
    const content = entries.get(file.path);
    const actual = content ? createHash('sha256').update(content).digest('hex') : null;
    checks.push({
      check: `file ${file.path}`,
      passed: actual === file.sha256,
      detail:
        actual === null
          ? 'listed in the manifest but missing from the package'
          : actual === file.sha256
            ? `sha256 ${actual}`
            : `sha256 ${actual}, the manifest says ${file.sha256}`,
    });
  }
  for (const name of entries.keys()) {
    if (!SIGNED.has(name) && !listed.has(name))
      checks.push({ check: `file ${name}`, passed: false, detail: 'in the package but not listed in the manifest' });
  }
  return {
    valid: checks.every((c) => c.passed),
    kid: signature.valid ? signature.kid : null,
    filing_id: manifest.filing_id ?? null,
    checks,
  };
}
