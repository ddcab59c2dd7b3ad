import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';
import type { EventMetadata, RecordedEvent } from './types';

/**
 * Signed, chained audit metadata. Each event's signature is an HMAC-SHA256 over
 * its canonical content and the previous event's signature in the same stream, so altering,
 * removing or reordering any stored event breaks every signature after it.
 */

/**
 * JSON with sorted keys: jsonb reorders keys, so signatures must not depend on key order.
 * An array of scalars is JSON.stringify's own output (the same bytes, undefined as null): an
 * assessment's packed verdicts are mostly such arrays, and element by element they cost three
 * times as much.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'bigint') return JSON.stringify(value.toString());
    return JSON.stringify(value) ?? 'null';
  }
  if (Array.isArray(value)) {
    if (value.every(isScalar)) return JSON.stringify(value);
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + canonicalJson(value[i]);
    return `${out}]`;
  }
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  const record = value as Record<string, unknown>;
  let out = '';
  for (const key of Object.keys(record).sort()) {
    const member = record[key];
    if (member === undefined) continue;
    out += `${out === '' ? '' : ','}${JSON.stringify(key)}:${canonicalJson(member)}`;
  }
  return `{${out}}`;
}

/** What JSON.stringify writes inside an array exactly as canonicalJson would (no object, no bigint). */
const isScalar = (v: unknown) => v === null || (typeof v !== 'object' && typeof v !== 'bigint');

export interface SignableEvent {
  stream: string;
  revision: bigint;
  id: string;
  type: string;
  data: unknown;
  metadata: EventMetadata;
  /** Signed from format 2 on (`metadata.sigv === 2`): moving an event in time is tampering too. */
  recordedAt?: Date;
}

/** The signature format new appends use; format 1 (no recorded time) still verifies. */
export const SIGNATURE_VERSION = 2;

function recordedAtOf(event: SignableEvent): string {
  if (!event.recordedAt) throw new Error(`format ${SIGNATURE_VERSION} signatures cover the recorded time; none given`);
  return event.recordedAt.toISOString();
}

export class AuditSigner {
  private readonly keyObject: KeyObject;

  constructor(key: string) {
    this.keyObject = createSecretKey(Buffer.from(key));
  }

  sign(event: SignableEvent, previousSignature: string | null): string {
    const { signature: _ignored, ...metadata } = event.metadata as EventMetadata & { signature?: string };
    return this.signCanonical(event, canonicalJson(metadata), metadata.sigv === SIGNATURE_VERSION, previousSignature);
  }

  /**
   * A batch's events usually share one metadata object: its canonical form is computed once.
   * The content is byte for byte what `sign` hashes (keys in sorted order), so both verify alike.
   */
  signBatch(
    stream: string,
    firstRevision: bigint,
    events: Array<{ id: string; type: string; data: unknown; metadata: EventMetadata }>,
    recordedAt: Date,
    previousSignature: string | null,
  ): string[] {
    const canonical = new Map<EventMetadata, string>();
    const signatures: string[] = [];
    const time = JSON.stringify(recordedAt.toISOString());
    let previous = previousSignature;
    events.forEach((event, i) => {
      let meta = canonical.get(event.metadata);
      if (meta === undefined) {
        const { signature: _ignored, ...metadata } = event.metadata as EventMetadata & { signature?: string };
        meta = canonicalJson(metadata);
        canonical.set(event.metadata, meta);
      }
      previous = this.signCanonical(
        { stream, revision: firstRevision + BigInt(i), id: event.id, type: event.type, data: event.data, recordedAt },
        meta,
        event.metadata.sigv === SIGNATURE_VERSION,
        previous,
        time,
      );
      signatures.push(previous);
    });
    return signatures;
  }

  private signCanonical(
    event: Omit<SignableEvent, 'metadata'>,
    canonicalMetadata: string,
    withTime: boolean,
    previousSignature: string | null,
    time?: string,
  ): string {
    // canonicalJson's key order: data, id, metadata, [recordedAt], revision, stream, type.
    const content =
      `{"data":${canonicalJson(event.data)},"id":${JSON.stringify(event.id)},"metadata":${canonicalMetadata},` +
      (withTime ? `"recordedAt":${time ?? JSON.stringify(recordedAtOf(event as SignableEvent))},` : '') +
      `"revision":${JSON.stringify(event.revision.toString())},"stream":${JSON.stringify(event.stream)},"type":${JSON.stringify(event.type)}}`;
    return createHmac('sha256', this.keyObject)
      .update(previousSignature ?? '')
      .update('\n')
      .update(content)
      .digest('hex');
  }

  /** The HMAC of an anchor's digest, so an anchor file cannot be forged without the key. */
  digestSignature(digest: string): string {
    return createHmac('sha256', this.keyObject).update('anchor\n').update(digest).digest('hex');
  }

  matches(event: RecordedEvent, previousSignature: string | null): boolean {
    const expected = Buffer.from(this.sign(event, previousSignature), 'hex');
    const actual = Buffer.from(String(event.metadata.signature ?? ''), 'hex');
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }
}

export interface TamperedEntry {
  stream: string;
  revision: string;
  eventId: string;
  type: string;
  /**
   * `head_mismatch`: the log ends elsewhere than the stream's recorded head (a removed tail);
   * `headless_stream`: events whose head row is gone; `anchor_mismatch`: the event an anchor
   * recorded as a head is missing or signed differently (history rewritten since).
   */
  reason: 'signature_mismatch' | 'revision_gap' | 'head_mismatch' | 'headless_stream' | 'anchor_mismatch';
}

export interface VerifyReport {
  streams: number;
  total: number;
  verified: number;
  tampered: TamperedEntry[];
}

/**
 * Checks a stream's chain. A mismatch taints only the altered entry: the chain continues
 * from the stored signature, so one edited row is reported once, not with every later row.
 */
export function verifyStreamChain(signer: AuditSigner, events: RecordedEvent[]): TamperedEntry[] {
  const tampered: TamperedEntry[] = [];
  let previous: string | null = null;
  let expectedRevision = 0n;
  for (const event of events) {
    const entry = { stream: event.stream, revision: event.revision.toString(), eventId: event.id, type: event.type };
    if (event.revision !== expectedRevision) tampered.push({ ...entry, reason: 'revision_gap' });
    else if (!signer.matches(event, previous)) tampered.push({ ...entry, reason: 'signature_mismatch' });
    previous = String(event.metadata.signature ?? '');
    expectedRevision = event.revision + 1n;
  }
  return tampered;
}
