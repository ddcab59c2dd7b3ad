import { expect } from 'chai';
import { seededRandom } from '../../../src/platform/samples/seeded-random';

describe('the seeded random generator of the sample data', () => {
  const draws = (seed: number | string) => {
    const r = seededRandom(seed);
    return Array.from({ length: 50 }, () => r.next());
  };

  it('gives the same sequence for the same seed, number or text, and another for another seed', () => {
    expect(draws(42)).to.deep.equal(draws(42));
    expect(draws('rrc-universe|08')).to.deep.equal(draws('rrc-universe|08'));
    expect(draws(42)).to.not.deep.equal(draws(43));
    expect(draws('rrc-universe|08')).to.not.deep.equal(draws('rrc-universe|8A'));
  });

  it('keeps its draws in range: next in [0, 1), int with both ends included, pick from the list', () => {
    const r = seededRandom(7);
    const ints = new Set(Array.from({ length: 500 }, () => r.int(1, 3)));
    expect([...ints].sort()).to.deep.equal([1, 2, 3]);
    for (let i = 0; i < 500; i++) {
      const x = r.next();
      expect(x).to.be.at.least(0).and.below(1);
    }
    expect(['a', 'b']).to.include(r.pick(['a', 'b']));
    expect(r.chance(0)).to.equal(false);
    expect(r.chance(1)).to.equal(true);
  });
});
