import { randomUUID } from 'node:crypto';
import { reserveTurnBudget } from '../../commands/agents/reserve-turn-budget';
import { settleTurnBudget } from '../../commands/agents/settle-turn-budget';
import { Conflict, RateLimited } from '../../src/platform/domain-errors';
import { type BenchRow, startBenchPlatform } from './support';

/**
 * Daily budgets on the write side: what a turn's reservation (and its settlement) costs as the
 * tenant's day stream grows, and how a burst of concurrent turns of one user is decided
 * against a cap (each one run or 429, never a 409).
 */
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];
const NO_CAPS = { maxTokensPerDay: null, maxCostUsdPerDay: null };

export async function run(): Promise<BenchRow[]> {
  const bench = await startBenchPlatform();
  try {
    const deps = bench.platform.deps;
    const tenantId = randomUUID();
    const context = { tenantId, actorId: 'bench' };
    const rows: BenchRow[] = [];

    // Sequential turns of different users: reserve, then settle (4 events per turn on the tenant's day).
    const turns = 300;
    const reserve: number[] = [];
    const settle: number[] = [];
    for (let i = 0; i < turns; i++) {
      const executionId = randomUUID();
      const userId = `user-${i % 20}`;
      let started = performance.now();
      const day = await reserveTurnBudget(deps, context, {
        type: 'ReserveTurnBudget',
        executionId,
        userId,
        tokens: 1000,
        costUsd: 0.1,
        tenantCaps: { maxTokensPerDay: 10_000_000, maxCostUsdPerDay: null },
        userCaps: null,
      });
      reserve.push(performance.now() - started);
      started = performance.now();
      await settleTurnBudget(deps, context, {
        type: 'SettleTurnBudget',
        executionId,
        userId,
        day,
        tokensUsed: 400,
        costUsd: 0.02,
      });
      settle.push(performance.now() - started);
    }
    rows.push({ name: `reserve p50, ${turns} turns of a tenant-day`, value: percentile(reserve, 50), unit: 'ms' });
    rows.push({ name: `reserve p95, ${turns} turns of a tenant-day`, value: percentile(reserve, 95), unit: 'ms' });
    rows.push({
      name: `reserve, last 20 turns (day stream ~${turns * 2} events)`,
      value: reserve.slice(-20).reduce((a, b) => a + b, 0) / 20,
      unit: 'ms',
    });
    rows.push({ name: `settle p50, ${turns} turns of a tenant-day`, value: percentile(settle, 50), unit: 'ms' });

    // A burst: 32 turns of one user at once against a cap of 8 reservations.
    const burstTenant = randomUUID();
    const burst = 32;
    const started = performance.now();
    const outcomes = await Promise.all(
      Array.from({ length: burst }, () =>
        reserveTurnBudget(
          deps,
          { tenantId: burstTenant, actorId: 'bench' },
          {
            type: 'ReserveTurnBudget',
            executionId: randomUUID(),
            userId: 'burst-user',
            tokens: 1000,
            costUsd: 0,
            tenantCaps: NO_CAPS,
            userCaps: { maxTokensPerDay: 8000, maxCostUsdPerDay: null },
          },
        ).then(
          () => 'run',
          (err) => (err instanceof RateLimited ? '429' : err instanceof Conflict ? '409' : 'error'),
        ),
      ),
    );
    rows.push({ name: `burst of ${burst}, cap 8 turns: all decided`, value: performance.now() - started, unit: 'ms' });
    rows.push({
      name: `burst of ${burst}, cap 8 turns: admitted`,
      value: outcomes.filter((o) => o === 'run').length,
      unit: 'turns',
      target: '= 8',
    });
    rows.push({
      name: `burst of ${burst}, cap 8 turns: 409 (retries exhausted)`,
      value: outcomes.filter((o) => o === '409').length,
      unit: 'answers',
      target: '= 0',
    });
    return rows;
  } finally {
    await bench.close();
  }
}
