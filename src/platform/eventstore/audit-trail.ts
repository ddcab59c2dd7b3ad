import { type AuditSigner, type TamperedEntry, type VerifyReport } from './audit-signature';
import { createHash } from 'node:crypto';
import type { StreamHeads } from './postgres/stream-heads';
import { type EventStore, type Position, type RecordedEvent, START } from './types';

export interface VerifyOptions {
  streamPrefix?: string;
  /** Events checked so far and the total expected (when known). */
  onProgress?: (checked: number, total: number | null) => void;
  /** Stream heads of the PostgreSQL store: verify stream by stream against them. */
  heads?: StreamHeads;
}

/**
 * Re-checks every stream's signature chain (`ops audit verify`). With the store's head
 * table it goes stream by stream in bounded memory (one page of a stream at a time) and
 * also proves each stream ends where its head says, so a removed tail is tampering too;
 * without one (EventStoreDB) it walks the log once, keeping one signature per stream.
 */
export async function verifyAuditTrail(
  store: EventStore,
  signer: AuditSigner,
  options: VerifyOptions = {},
): Promise<VerifyReport> {
  if (options.heads) return verifyByHeads(store, signer, options.heads, options);
  const chains = new Map<string, { previous: string; next: bigint }>();
  const tampered: TamperedEntry[] = [];
  let total = 0;
  let from: Position = START;
  for (;;) {
    const batch = await store.readAll({
      from,
      limit: 1000,
      filter: options.streamPrefix ? { streamPrefixes: [options.streamPrefix] } : undefined,
    });
    if (batch.length === 0) break;
    for (const event of batch) {
      total++;
      const chain = chains.get(event.stream) ?? { previous: '', next: 0n };
      const entry = { stream: event.stream, revision: event.revision.toString(), eventId: event.id, type: event.type };
      if (event.revision !== chain.next) tampered.push({ ...entry, reason: 'revision_gap' });
      else if (!signer.matches(event, chain.previous || null))
        tampered.push({ ...entry, reason: 'signature_mismatch' });
      chains.set(event.stream, { previous: String(event.metadata.signature ?? ''), next: event.revision + 1n });
    }
    from = batch[batch.length - 1].position;
    options.onProgress?.(total, null);
  }
  return { streams: chains.size, total, verified: total - tampered.length, tampered };
}

const PAGE = 1000;

async function verifyByHeads(
  store: EventStore,
  signer: AuditSigner,
  heads: StreamHeads,
  options: VerifyOptions,
): Promise<VerifyReport> {
  const tampered: TamperedEntry[] = [];
  const { events: expected } = await heads.totals(options.streamPrefix);
  let total = 0;
  let streams = 0;
  let after: string | null = null;
  for (;;) {
    const page = await heads.page(after, 500, options.streamPrefix);
    if (page.length === 0) break;
    for (const head of page) {
      streams++;
      let previous: string | null = null;
      let next = 0n;
      let last: RecordedEvent | null = null;
      for (;;) {
        const events = await store.readStream(head.stream, { from: next, limit: PAGE });
        for (const event of events) {
          total++;
          const entry = {
            stream: event.stream,
            revision: event.revision.toString(),
            eventId: event.id,
            type: event.type,
          };
          if (event.revision !== next) tampered.push({ ...entry, reason: 'revision_gap' });
          else if (!signer.matches(event, previous)) tampered.push({ ...entry, reason: 'signature_mismatch' });
          previous = String(event.metadata.signature ?? '');
          next = event.revision + 1n;
          last = event;
        }
        if (events.length < PAGE) break;
      }
      if (
        !last ||
        last.revision !== head.revision ||
        (head.signature !== null && String(last.metadata.signature) !== head.signature)
      ) {
        tampered.push({
          stream: head.stream,
          revision: head.revision.toString(),
          eventId: last?.id ?? '',
          type: last?.type ?? '(missing)',
          reason: 'head_mismatch',
        });
      }
      options.onProgress?.(total, expected);
    }
    after = page[page.length - 1].stream;
  }
  for (const stream of await heads.headless(options.streamPrefix)) {
    tampered.push({ stream, revision: '', eventId: '', type: '(stream without head)', reason: 'headless_stream' });
  }
  return {
    streams,
    total,
    verified: total - tampered.filter((t) => t.reason === 'signature_mismatch' || t.reason === 'revision_gap').length,
    tampered,
  };
}

/**
 * An anchor: every stream's head (revision and signature) at one moment, with a digest and an
 * HMAC over it. Kept outside the database, it proves later that nothing up to those heads was
 * rewritten: each head's signature chains every event before it.
 */
export interface AuditAnchor {
  version: 1;
  created_at: string;
  streams: number;
  digest: string;
  signature: string;
  heads: Array<[stream: string, revision: string, signature: string | null]>;
}

export async function createAnchor(heads: StreamHeads, signer: AuditSigner, now: Date): Promise<AuditAnchor> {
  const all: AuditAnchor['heads'] = [];
  const hash = createHash('sha256');
  let after: string | null = null;
  for (;;) {
    const page = await heads.page(after, 5000);
    if (page.length === 0) break;
    for (const h of page) {
      all.push([h.stream, h.revision.toString(), h.signature]);
      hash.update(`${h.stream}\t${h.revision}\t${h.signature ?? ''}\n`);
    }
    after = page[page.length - 1].stream;
  }
  const digest = hash.digest('hex');
  return {
    version: 1,
    created_at: now.toISOString(),
    streams: all.length,
    digest,
    signature: signer.digestSignature(digest),
    heads: all,
  };
}

/** Checks an anchor's own integrity, then that every head it recorded is still in the log as recorded. */
export async function verifyAnchor(
  store: EventStore,
  signer: AuditSigner,
  anchor: AuditAnchor,
  streamPrefix?: string,
): Promise<{ valid: boolean; tampered: TamperedEntry[] }> {
  const hash = createHash('sha256');
  for (const [stream, revision, signature] of anchor.heads) hash.update(`${stream}\t${revision}\t${signature ?? ''}\n`);
  const valid = hash.digest('hex') === anchor.digest && signer.digestSignature(anchor.digest) === anchor.signature;
  const tampered: TamperedEntry[] = [];
  for (const [stream, revision, signature] of anchor.heads) {
    if (streamPrefix && !stream.startsWith(streamPrefix)) continue;
    const [event] = await store.readStream(stream, { from: BigInt(revision), limit: 1 });
    if (
      !event ||
      event.revision !== BigInt(revision) ||
      (signature !== null && String(event.metadata.signature) !== signature)
    ) {
      tampered.push({
        stream,
        revision,
        eventId: event?.id ?? '',
        type: event?.type ?? '(missing)',
        reason: 'anchor_mismatch',
      });
    }
  }
  return { valid, tampered };
}
