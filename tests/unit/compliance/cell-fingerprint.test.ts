import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { type AssessedCell, cellFingerprint, fingerprintText } from '../../../streams/compliance/assessment';

/** The fingerprint as it was first written: recorded fingerprints must stay equal. */
function asFirstWritten(cell: AssessedCell): string {
  const facts = Object.keys(cell.facts)
    .sort()
    .map((k) => [k, cell.facts[k]]);
  return JSON.stringify([cell.domain, cell.color, cell.bucket, cell.dueDate, cell.anomaly, cell.reason, facts]);
}

const cell = (over: Partial<AssessedCell>): AssessedCell => ({
  domain: 'production',
  color: 'red',
  bucket: 'overdue',
  dueDate: '2026-07-31',
  anomaly: false,
  reason: 'SWR 58: Form PR late',
  facts: {},
  ...over,
});

describe('a verdict cell fingerprint', () => {
  const awkward: AssessedCell[] = [
    cell({}),
    cell({ bucket: null, dueDate: null, anomaly: true }),
    cell({
      reason: 'quote " backslash \\ tab \t line \n é 𝄞 \u0001',
      facts: { 'z key': 'a\\b"c', a: 1.5, Á: null, B: true, b: -0, _: 1e21, '10': 'ten', '9': 'nine' },
    }),
    // A fact no one set is null in the array form (JSON writes undefined members as null).
    cell({
      facts: { filed: undefined as unknown as null, wells: 2, ratio: Number.NaN, big: Number.POSITIVE_INFINITY },
    }),
    cell({
      domain: 'rule_32',
      color: 'grey',
      facts: { source: 'graph:Well/42-001-00001', 'offset wells': 3, c: 'x', a: 'y', b: 'z', d: 0, e: '' },
    }),
  ];

  it('hashes the same text as the array form it was first written from, whatever the facts', () => {
    for (const c of awkward) {
      expect(fingerprintText(c)).to.equal(asFirstWritten(c));
      expect(cellFingerprint(c)).to.equal(createHash('md5').update(asFirstWritten(c)).digest('hex'));
    }
  });

  it('does not depend on the order the facts were written in', () => {
    const forward = cell({ facts: { a: 1, b: 'two', c: null } });
    const backward = cell({ facts: { c: null, b: 'two', a: 1 } });
    expect(cellFingerprint(backward)).to.equal(cellFingerprint(forward));
    expect(cellFingerprint(cell({ facts: { a: 1, b: 'two', c: false } }))).to.not.equal(cellFingerprint(forward));
  });
});
