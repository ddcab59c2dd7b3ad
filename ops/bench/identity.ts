import { type BenchRow, startBenchPlatform } from './support';
import { autocannon, type CannonResult } from './cannon';

const CONNECTIONS = 64;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 12);
const ROUNDS = 3;

type Summary = { requests: { average: number }; latency: { p99: number }; non2xx: number; errors: number };

function summarize(rounds: CannonResult[]): Summary {
  const p99s = rounds.map((r) => r.latency.p99).sort((a, b) => a - b);
  return {
    requests: { average: rounds.reduce((sum, r) => sum + r.requests.average, 0) / rounds.length },
    latency: { p99: p99s[Math.floor(p99s.length / 2)] },
    non2xx: rounds.reduce((n, r) => n + r.non2xx, 0),
    errors: rounds.reduce((n, r) => n + r.errors, 0),
  };
}

/**
 * The gateway's cost: an authenticated GET /api/v1/auth/me (JWT verify, cached resolve,
 * identity headers, a directory read) against the same server's /health, 64 connections,
 * with the rate limit raised out of the way. Target: ≥ 60 % of /health's throughput.
 */
export async function run(): Promise<BenchRow[]> {
  const bench = await startBenchPlatform();
  try {
    const { token } = await bench.session();
    const base = bench.platform.publicUrl!;
    // Warm-up: JIT, connection pools, the resolve cache.
    await autocannon({
      url: `${base}/api/v1/auth/me`,
      connections: CONNECTIONS,
      duration: 2,
      headers: { authorization: `Bearer ${token}` },
    });
    // Alternating rounds, so a change in machine load hits both routes alike.
    const healthRounds: CannonResult[] = [];
    const meRounds: CannonResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      healthRounds.push(
        await autocannon({ url: `${base}/health`, connections: CONNECTIONS, duration: SECONDS / ROUNDS }),
      );
      meRounds.push(
        await autocannon({
          url: `${base}/api/v1/auth/me`,
          connections: CONNECTIONS,
          duration: SECONDS / ROUNDS,
          headers: { authorization: `Bearer ${token}` },
        }),
      );
    }
    const failed = meRounds.reduce((n, r) => n + r.non2xx + r.errors, 0);
    if (failed) throw new Error(`GET /auth/me answered ${failed} non-2xx or errors during the run`);
    const health = summarize(healthRounds);
    const me = summarize(meRounds);
    const share = (100 * me.requests.average) / health.requests.average;
    return [
      { name: 'GET /health, 64 connections', value: Math.round(health.requests.average), unit: 'req/s' },
      { name: 'GET /health p99 (median of rounds)', value: health.latency.p99, unit: 'ms' },
      { name: 'GET /auth/me (authenticated), 64 connections', value: Math.round(me.requests.average), unit: 'req/s' },
      { name: 'GET /auth/me p99 (median of rounds)', value: me.latency.p99, unit: 'ms' },
      { name: 'authenticated share of /health', value: Math.round(share * 10) / 10, unit: '%', target: '>= 60 %' },
    ];
  } finally {
    await bench.close();
  }
}
