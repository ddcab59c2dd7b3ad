import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { previousMonth } from '../../../commands/checklists/assessment/working-days';
import type { Session } from '../../support/auth';
import type { TestPlatform } from '../../support/platform';

/**
 * An oil well with a month of production, dispositions, a Rule 32 authorization and a
 * flaring event, created through the graph API (the knowledge graph the assessment reads).
 */
export interface WellFixture {
  api: string;
  period: string;
  authorizedMcfPerDay: number;
}

export async function createWell(
  t: TestPlatform,
  admin: Session,
  options: { flaredMcf?: number; authorizedMcf?: number; remark?: string; wellType?: 'oil' | 'gas' } = {},
): Promise<WellFixture> {
  const serial = String(Math.floor(Math.random() * 90000) + 10000);
  const api = `42-501-${serial}`;
  const period = previousMonth(new Date());
  const flared = options.flaredMcf ?? 900;
  const history = Array.from({ length: 12 }, (_, k) => {
    const d = new Date(Date.UTC(Number(period.slice(0, 4)), Number(period.slice(5, 7)) - 1 - (11 - k), 1));
    return {
      period: `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`,
      oil_bbls: 3000 + k * 10,
      gas_mcf: 9000 + k * 30,
    };
  });
  const entity = async (label: string, properties: Record<string, unknown>) => {
    const response = await t.api.post('/graph/entities', { label, properties }, admin.headers);
    expect(response.status, JSON.stringify(response.body)).to.equal(201);
  };
  const edge = async (from_label: string, from_id: string, edge_label: string, to_label: string, to_id: string) => {
    const response = await t.api.post(
      '/graph/edges',
      { from_label, from_id, to_label, to_id, edge_label },
      admin.headers,
    );
    expect(response.status, JSON.stringify(response.body)).to.equal(201);
  };
  await entity('Well', {
    entity_id: api,
    api_number: api,
    name: `JONES 97 ${serial}`,
    well_number: '1H',
    well_type: options.wellType ?? 'oil',
    county: 'YOAKUM',
    status: 'producing',
    operator: 'PERMIAN TEST OPERATING LLC',
    field: 'SPRABERRY (TREND AREA)',
    lease: 'JONES 97',
    district: '08',
    latitude: '33.17',
    longitude: '-102.83',
    spud_date: '2020-03-01',
    form_pr_period: period,
    production_oil_bbls: 3110,
    production_gas_mcf: 9330,
    gas_used_on_lease_mcf: 280,
    gas_sold_mcf: 9330 - 280 - flared,
    gas_flared_mcf: flared,
    gas_vented_mcf: 0,
    producing_days: 30,
    production_history_12m: JSON.stringify(history),
  });
  const auth = `R32-${randomUUID().slice(0, 8)}`;
  await entity('FlaringAuthorization', {
    entity_id: auth,
    auth_number: auth,
    authorized_mcf: options.authorizedMcf ?? 50,
    expiry_date: '2099-12-31',
    status: 'active',
    form: 'R-32',
  });
  await edge('FlaringAuthorization', auth, 'FLARES_AT', 'Well', api);
  const event = `FE-${api}-${period}`;
  await entity('FlaringEvent', {
    entity_id: event,
    disposition_code: '10',
    volume_mcf: flared,
    date: `${period}-28`,
    authority_remark: options.remark ?? 'AR',
  });
  await edge('FlaringEvent', event, 'FLARES_AT', 'Well', api);
  return { api, period, authorizedMcfPerDay: options.authorizedMcf ?? 50 };
}
