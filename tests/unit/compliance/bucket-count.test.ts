import { expect } from 'chai';
import { bucketCount } from '../../../src/contexts/compliance/agent-tools';

/** The portfolio tool counts a bucket by what its rows are: a lease is not a well. */
describe('bucketCount', () => {
  it('names each entity type with its count, most first as given, and why a lease is a row', () => {
    const types = [
      { type: 'Lease', count: 20 },
      { type: 'Well', count: 9 },
      { type: 'Operator', count: 2 },
    ];
    expect(bucketCount(31, 'overdue', types)).to.equal(
      '31 overdue: 20 leases (Form PR is filed per oil lease), 9 wells, 2 operators.',
    );
    expect(
      bucketCount(3, 'due_7d', [
        { type: 'Well', count: 2 },
        { type: 'FlaringAuthorization', count: 1 },
      ]),
    ).to.equal('3 due within 7 days: 2 wells, 1 flaring authorization.');
  });

  it('one type reads as a sentence about it', () => {
    expect(bucketCount(9, 'overdue', [{ type: 'Well', count: 9 }])).to.equal('9 wells are overdue.');
    expect(bucketCount(1, 'anomalies', [{ type: 'Lease', count: 1 }])).to.equal('1 lease has open anomalies.');
  });
});
