import { randomUUID } from 'node:crypto';
import { type BenchRow, perSecond, startBenchPlatform } from './support';

/**
 * Operational events over HTTP on the whole platform: POST /events through validation,
 * a published guard rule, one duplication rule (a remembered-key stream per event) and the
 * atomic multi-stream append; then GET /events pages over what was logged.
 */
export async function run(): Promise<BenchRow[]> {
  const bench = await startBenchPlatform();
  try {
    const tenantId = randomUUID();
    const power = await bench.session({ tenantId, roles: ['power_user'] });
    const post = async (
      path: string,
      body: unknown,
      headers: Record<string, string> = power.headers,
      base = bench.api,
    ) => {
      const response = await fetch(base + path, { method: 'POST', headers, body: JSON.stringify(body) });
      if (response.status >= 300) throw new Error(`${path}: ${response.status} ${await response.text()}`);
      return response.json();
    };
    const type = await post('/event-types', {
      name: 'SCADA alarm',
      fields: [
        {
          name: 'metric',
          type: 'select',
          options: ['casing_pressure', 'tubing_pressure', 'flow_rate'],
          required: true,
        },
        { name: 'value', type: 'number', required: true },
        { name: 'note', type: 'text' },
        { name: 'acknowledged', type: 'boolean' },
        { name: 'reading_at', type: 'datetime' },
      ],
    });
    const guard = await post(`/event-types/${type.id}/guard-rules`, {
      name: 'Plausible value',
      field: 'value',
      operator: 'lte',
      value: 100_000,
    });
    await post(`/event-types/${type.id}/guard-rules/${guard.id}/publish`, {});
    await post(`/event-types/${type.id}/transition`, { status: 'active' });
    await post(
      '/duplication-rules',
      {
        name: 'Same alarm per well',
        event_type_id: type.id,
        match_fields: ['entity_id', 'metric'],
        window_seconds: 60,
      },
      { 'content-type': 'application/json', 'x-tenant-id': tenantId },
      `${bench.platform.internalUrl}/api/v1`,
    );

    const total = 400;
    const concurrency = 8;
    const latencies: number[] = [];
    let next = 0;
    const started = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < total) {
          const i = next++;
          const t0 = process.hrtime.bigint();
          await post('/events', {
            event_type_id: type.id,
            entity_id: `42-329-${String(i % 50).padStart(5, '0')}`,
            entity_type: 'Well',
            occurred_at: new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString(),
            fields: {
              metric: 'casing_pressure',
              value: 800 + i,
              acknowledged: false,
              reading_at: '2026-01-01T00:00:00Z',
            },
          });
          latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        }
      }),
    );
    const rate = perSecond(total, started);
    latencies.sort((a, b) => a - b);

    const pages = 100;
    const t1 = process.hrtime.bigint();
    for (let i = 0; i < pages; i++) {
      const response = await fetch(`${bench.api}/events?entity_id=42-329-${String(i % 50).padStart(5, '0')}&limit=50`, {
        headers: power.headers,
      });
      await response.json();
    }
    const pageRate = perSecond(pages, t1);
    return [
      { name: `POST /events, ${concurrency} in flight`, value: rate, unit: 'events/s', target: '>= 150' },
      { name: 'POST /events p50', value: latencies[Math.floor(total * 0.5)], unit: 'ms' },
      { name: 'POST /events p95', value: latencies[Math.floor(total * 0.95)], unit: 'ms', target: '<= 150' },
      { name: 'GET /events by entity, page of 50', value: pageRate, unit: 'req/s', target: '>= 200' },
    ];
  } finally {
    await bench.close();
  }
}
