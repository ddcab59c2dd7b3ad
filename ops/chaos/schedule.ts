/**
 * The chaos run's fault schedule, decided up front from the seed alone so that a failing
 * schedule can be replayed exactly (`npm run chaos -- --seed S`). Pure: no clock, no I/O.
 */
import { seededRandom } from '../../src/platform/samples/seeded-random';

export type Fault =
  | { kind: 'terminate-backends'; at: number }
  | { kind: 'drop-connections'; at: number; instance: number; mode: 'reset' | 'end' }
  | { kind: 'outage'; at: number; instance: number | 'both'; ms: number }
  | { kind: 'kill-leader'; at: number; restartAfterMs: number };

/**
 * Faults from the first seconds to the run's end, a few seconds apart. Outages run 1 to 30 s
 * (never past the end); a killed leader restarts within seconds. Every kind occurs at least
 * once in a run long enough to hold four faults, so no run tests less than the suite claims.
 */
export function faultSchedule(seed: number, seconds: number): Fault[] {
  const random = seededRandom(seed);
  const endMs = seconds * 1000;
  const faults: Fault[] = [];
  let at = random.int(2_000, 5_000);
  const kinds: Fault['kind'][] = ['outage', 'drop-connections', 'kill-leader', 'terminate-backends'];
  // The first four faults cover every kind, in a seeded order; the rest are drawn freely.
  const order = [...kinds].sort(() => random.next() - 0.5);
  while (at < endMs - 3_000) {
    const kind = order.shift() ?? random.pick(kinds);
    const left = endMs - at;
    if (kind === 'outage') {
      const ms = Math.min(random.int(1_000, 30_000), Math.max(1_000, left - 2_000));
      faults.push({ kind, at, instance: random.pick([0, 1, 'both'] as const), ms });
      at += ms + random.int(2_000, 6_000);
    } else if (kind === 'drop-connections') {
      faults.push({ kind, at, instance: random.int(0, 1), mode: random.pick(['reset', 'end'] as const) });
      at += random.int(2_000, 8_000);
    } else if (kind === 'kill-leader') {
      const restartAfterMs = random.int(500, 3_000);
      faults.push({ kind, at, restartAfterMs });
      at += restartAfterMs + random.int(6_000, 12_000);
    } else {
      faults.push({ kind, at });
      at += random.int(2_000, 8_000);
    }
  }
  return faults;
}
