import { randomUUID } from 'node:crypto';
import type { startBenchPlatform } from './support';

/**
 * What the HTTP benchmarks stand on: an admin of a fresh tenant posting to the API, and the
 * well the turn asks about.
 */
export async function benchTenant(bench: Awaited<ReturnType<typeof startBenchPlatform>>) {
  const admin = await bench.session({ tenantId: randomUUID(), roles: ['admin'] });
  const post = async (path: string, body: unknown) => {
    const response = await fetch(bench.api + path, {
      method: 'POST',
      headers: admin.headers,
      body: JSON.stringify(body),
    });
    if (response.status >= 300) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return response.json() as Promise<any>;
  };
  const wellApi = '42-501-10001';
  await post('/graph/entities', {
    label: 'Well',
    properties: {
      entity_id: wellApi,
      api_number: wellApi,
      well_type: 'oil',
      production_oil_bbls: 3000,
      production_gas_mcf: 9000,
      latitude: '33.1',
      longitude: '-102.8',
    },
  });
  return { admin, post, wellApi };
}
