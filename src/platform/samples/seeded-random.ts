import { createHash } from 'node:crypto';

/** Draws of a deterministic generator: the same seed gives the same sequence on every machine. */
export interface SeededRandom {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both included. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

/**
 * Mulberry32 for the sample-data generators (the graph's Texas portfolio, the RRC simulator),
 * whose output must be reproducible: not for anything secret. A text seed is hashed to its
 * first 32 bits.
 */
export function seededRandom(seed: number | string): SeededRandom {
  let a = typeof seed === 'string' ? createHash('sha256').update(seed).digest().readUInt32BE(0) : seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)],
    chance: (p) => next() < p,
  };
}
