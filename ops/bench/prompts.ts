import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { resolvePrompt } from '../../queries/prompts/resolve-prompt';
import { createMemoryCache } from '../../src/platform/infra/cache';
import { promptResolveCache, type TemplateResolution } from '../../commands/prompts/resolve-cache';
import { type BenchRow, perSecond } from './support';

/**
 * The resolve hot path from the in-process cache (what every agent turn pays): 1,000
 * templates, 500 callers with mixed role sets, a third of them targeted by pre-production.
 * The knex handed in throws, so a cache miss would fail the run.
 */
export async function run(): Promise<BenchRow[]> {
  const deps = {
    knex: (() => {
      throw new Error('cache miss in bench');
    }) as never,
    cache: createMemoryCache(),
    logger: pino({ level: 'silent' }),
  };
  const cache = promptResolveCache(deps);
  const tenantId = randomUUID();
  const refs: string[] = [];
  const users = Array.from({ length: 500 }, (_, i) => ({
    userId: randomUUID(),
    roles: [['operator'], ['reviewer', 'operator'], ['power_user', 'admin']][i % 3],
  }));
  for (let i = 0; i < 1000; i++) {
    const ref = `agents:template-${i}`;
    const version = (status: 'active' | 'pre_production', n: number) => ({
      versionId: randomUUID(),
      versionNumber: n,
      status,
      body: `You are assistant ${i}. {{ well }}`,
      tokenEstimate: 12,
      variablesExpected: ['well'],
    });
    const resolution: TemplateResolution = {
      templateId: randomUUID(),
      active: version('active', 1),
      preProduction: {
        ...version('pre_production', 2),
        targetUsers: new Set(users.filter((_, u) => u % 3 === 0).map((u) => u.userId)),
        targetRoles: ['reviewer'],
      },
    };
    cache.store(tenantId, ref, resolution, cache.currentEpoch);
    refs.push(ref);
  }

  const total = 300_000;
  const samples = new Float64Array(total);
  // Warm-up: fills the per-caller answers, as a running platform's would be.
  for (let i = 0; i < 50_000; i++)
    await resolvePrompt(deps, { tenantId, ...users[i % users.length], ref: refs[i % refs.length] });
  const started = process.hrtime.bigint();
  for (let i = 0; i < total; i++) {
    const t0 = process.hrtime.bigint();
    const user = users[(i * 7) % users.length];
    const answer = await resolvePrompt(deps, {
      tenantId,
      userId: user.userId,
      roles: user.roles,
      ref: refs[(i * 13) % refs.length],
    });
    samples[i] = Number(process.hrtime.bigint() - t0) / 1e6;
    if (!answer) throw new Error('resolve returned nothing');
  }
  const rate = perSecond(total, started);
  samples.sort();
  const at = (q: number) => samples[Math.min(total - 1, Math.floor(q * total))];
  return [
    { name: 'resolve from cache', value: rate, unit: 'ops/s', target: '>= 20,000' },
    { name: 'resolve from cache p50', value: Math.round(at(0.5) * 1000), unit: 'µs' },
    { name: 'resolve from cache p99', value: Math.round(at(0.99) * 1000), unit: 'µs', target: '<= 2,000 (2 ms)' },
  ];
}
