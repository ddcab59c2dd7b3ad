import { expect } from 'chai';
import fc from 'fast-check';
import { faultSchedule } from '../../../ops/chaos/schedule';

describe('the chaos fault schedule', () => {
  it('is the same for the same seed, so a failing run can be replayed', () => {
    expect(faultSchedule(1234, 90)).to.deep.equal(faultSchedule(1234, 90));
    expect(faultSchedule(1234, 90)).not.to.deep.equal(faultSchedule(1235, 90));
  });

  it('covers every kind of fault in a 90-second run, in order and inside the run', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
        const faults = faultSchedule(seed, 90);
        expect(new Set(faults.map((f) => f.kind))).to.have.keys(
          'outage',
          'drop-connections',
          'kill-leader',
          'terminate-backends',
        );
        for (const [i, fault] of faults.entries()) {
          expect(fault.at).to.be.below(90_000);
          if (i > 0) expect(fault.at).to.be.above(faults[i - 1].at);
          if (fault.kind === 'outage') expect(fault.ms).to.be.within(1_000, 30_000);
        }
      }),
      { numRuns: 200 },
    );
  });
});
