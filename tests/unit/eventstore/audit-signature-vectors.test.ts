import { expect } from 'chai';
import { AuditSigner, canonicalJson } from '../../../src/platform/eventstore/audit-signature';

/**
 * Fixed vectors: a known key and event give a known signature, so a change to the canonical
 * form or the signed fields (which would orphan every stored signature) cannot pass unnoticed.
 */
const signer = new AuditSigner('test-vector-key-0123456789abcdef');
const event = {
  stream: 'approvals.approval-00000000-0000-0000-0000-000000000001-a1',
  revision: 0n,
  id: '6f1c0b8e-3c1f-4a57-9b0e-5d2d7f0e9a11',
  type: 'ApprovalRequested',
  data: { checkpointType: 'filing_submission', payload: { filing_type: 'Form PR', entity_id: '42-501-12345' } },
  metadata: { tenantId: '00000000-0000-0000-0000-000000000001', actorId: 'u1', correlationId: 'c1', causationId: 'c1' },
};

describe('audit signature test vectors', () => {
  it('canonical JSON sorts keys at every depth and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: null, y: undefined, x: 'é' }], c: true } })).to.equal(
      '{"a":{"c":true,"d":[2,{"x":"é","z":null}]},"b":1}',
    );
  });

  it('canonical JSON writes arrays of scalars, nested values, dates and bigints exactly as the member-by-member form', () => {
    // The form every stored signature was computed with: each member canonicalised on its own.
    const reference = (value: unknown): string => {
      if (value === null || typeof value !== 'object')
        return typeof value === 'bigint' ? JSON.stringify(value.toString()) : (JSON.stringify(value) ?? 'null');
      if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
      if (value instanceof Date) return JSON.stringify(value.toISOString());
      const entries = Object.keys(value)
        .filter((k) => (value as any)[k] !== undefined)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${reference((value as any)[k])}`);
      return `{${entries.join(',')}}`;
    };
    const samples: unknown[] = [
      [],
      {},
      [1, -0, 2.5e-7, NaN, Infinity, 'a"b\\c\n\u2028', true, false, null, undefined, () => 1],
      [0, 'green', null, '2026-01-01', false, 3, 'a reason', 2, 'x', 1, true, null],
      [[1, 2], [3, [4, { b: 2, a: 1 }]], [new Date('2026-03-03T10:15:00.123Z')], [10n, 'x']],
      {
        z: [1, undefined, 3],
        y: { b: undefined, a: [null] },
        '': 'empty key',
        é: 'é',
        x: new Date(0),
        w: 12345678901234567890n,
      },
      [
        '42-1',
        'Well',
        'Well 1',
        [
          [0, 'red', 'overdue', null, true, 1, 'r', 0],
          [1, 'green', null, null, false, 2, 7, 1, 'extra'],
        ],
      ],
    ];
    for (const sample of samples) expect(canonicalJson(sample)).to.equal(reference(sample));
  });

  it('format 1 (no recorded time): a known event signs to a known HMAC', () => {
    expect(signer.sign(event, null)).to.equal(VECTOR_V1);
  });

  it('format 2 covers the recorded time and chains to the previous signature', () => {
    const v2 = {
      ...event,
      revision: 1n,
      metadata: { ...event.metadata, sigv: 2 },
      recordedAt: new Date('2026-03-03T10:15:00.123Z'),
    };
    expect(signer.sign(v2, VECTOR_V1)).to.equal(VECTOR_V2);
    expect(signer.sign({ ...v2, recordedAt: new Date('2026-03-03T10:15:00.124Z') }, VECTOR_V1)).not.to.equal(VECTOR_V2);
    expect(signer.sign({ ...v2, revision: 2n }, VECTOR_V1)).not.to.equal(VECTOR_V2);
  });

  it('a batch signed at once equals the same events signed one by one (shared metadata canonicalised once)', () => {
    const metadata = { ...event.metadata, sigv: 2 };
    const recordedAt = new Date('2026-03-03T10:15:00.123Z');
    const batch = [0, 1, 2].map((i) => ({ id: `id-${i}`, type: 'T', data: { i, nested: { b: 1, a: [i] } }, metadata }));
    const together = signer.signBatch(event.stream, 5n, batch, recordedAt, VECTOR_V1);
    let previous: string | null = VECTOR_V1;
    const oneByOne = batch.map(
      (e, i) =>
        (previous = signer.sign({ ...e, stream: event.stream, revision: 5n + BigInt(i), recordedAt }, previous)),
    );
    expect(together).to.deep.equal(oneByOne);
  });
});

const VECTOR_V1 = '07cdd7df2fff277bd67c0b20716ed9de27dfc41e231e16c143aa8f89e9e536c8';
const VECTOR_V2 = 'd361d5ac451b9b7396468ffa886eb8d16fff32071d60979df67a5c27b9989063';
