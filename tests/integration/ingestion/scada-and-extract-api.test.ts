import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { COMPLIANCE_ANOMALY_FLAGGED } from '../../../src/platform/published/anomaly-flagged';
import { signIn, type Session } from '../../support/auth';
import { httpClient } from '../../support/http';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { postCsv } from './support';

/** Ingestion: POST /ingest/scada and the internal-only POST /extract. */
describe('SCADA readings and entity extraction API', () => {
  let t: TestPlatform;
  before(async () => {
    t = await startTestPlatform();
  });
  after(() => t.close());

  async function tenantWithFlaringWell(): Promise<Session> {
    const user = await signIn(t, { roles: ['power_user'], tenantId: randomUUID() });
    await postCsv(t.api, 'API_NO,WELL_NAME\n42-389-31001,HOEFS 1H\n42-389-31002,HOEFS 2H\n', user.headers);
    await t.api.post(
      '/graph/entities',
      {
        label: 'FlaringAuthorization',
        properties: {
          entity_id: 'R32-100001',
          auth_number: 'R32-100001',
          authorized_mcf: 100,
          issued_date: '2026-01-01',
          expiry_date: '2026-06-30',
        },
      },
      user.headers,
    );
    await t.api.post(
      '/graph/entities',
      {
        label: 'FlaringAuthorization',
        properties: {
          entity_id: 'R32-100002',
          auth_number: 'R32-100002',
          authorized_mcf: 250,
          issued_date: '2025-01-01',
          expiry_date: '2025-06-30',
        },
      },
      user.headers,
    );
    await t.api.post(
      '/graph/edges',
      {
        from_label: 'FlaringAuthorization',
        from_id: 'R32-100001',
        to_label: 'Well',
        to_id: '42-389-31001',
        edge_label: 'FLARES_AT',
      },
      user.headers,
    );
    await t.api.post(
      '/graph/edges',
      {
        from_label: 'FlaringAuthorization',
        from_id: 'R32-100002',
        to_label: 'Well',
        to_id: '42-389-31002',
        edge_label: 'FLARES_AT',
      },
      user.headers,
    );
    return user;
  }

  it('records readings, sets the latest values on the well and flags Rule 32 and unknown-well anomalies for compliance', async () => {
    const user = await tenantWithFlaringWell();
    const readings = [
      {
        well_api: '42-389-31001',
        timestamp: '2026-03-01T06:00:00Z',
        metrics: { flared_mcf: 80, tubing_pressure_psi: 410 },
      },
      {
        well_api: '42-389-31001',
        timestamp: '2026-03-02T06:00:00Z',
        metrics: { flared_mcf: 140, tubing_pressure_psi: 395 },
      },
      { well_api: '4238931002', timestamp: '2026-03-02T06:00:00Z', metrics: { flared_mcf: 20 } },
      { well_api: '42-389-39999', timestamp: '2026-03-02T06:00:00Z', metrics: { oil_bbls: 12 } },
    ];
    const response = await t.api.post('/ingest/scada', { readings }, user.headers);
    expect(response.status).to.equal(200);
    expect(response.body).to.include({ readings: 4, wells: 3, wells_updated: 2, recorded: true });
    expect(response.body.unknown_wells).to.deep.equal(['42-389-39999']);
    expect(
      response.body.anomalies.map((a: { well_api: string; kind: string }) => `${a.well_api}:${a.kind}`),
    ).to.deep.equal([
      '42-389-31001:flared_above_authorization',
      '42-389-31002:flared_after_authorization_expiry',
      '42-389-39999:unknown_well',
    ]);
    const well = await t.api.get('/graph/entities/Well/42-389-31001', user.headers);
    expect(well.body.properties).to.include({
      scada_flared_mcf: '140',
      scada_tubing_pressure_psi: '395',
      scada_last_reading_at: '2026-03-02T06:00:00.000Z',
    });

    const flagged = (await t.deps.store.readAll({ filter: { eventTypes: [COMPLIANCE_ANOMALY_FLAGGED] } })).filter(
      (e) => e.metadata.tenantId === user.tenantId,
    );
    expect(flagged).to.have.length(3);
    expect(flagged[0].data).to.include({
      entityId: '42-389-31001',
      entityLabel: 'Well',
      domain: 'rule_32',
      source: 'scada',
    });

    const again = await t.api.post('/ingest/scada', { readings }, user.headers);
    expect(again.body).to.include({ recorded: false, wells_updated: 0 });
  });

  it('an older reading never replaces newer latest values', async () => {
    const user = await tenantWithFlaringWell();
    await t.api.post(
      '/ingest/scada',
      {
        readings: [
          { well_api: '42-389-31001', timestamp: '2026-03-05T00:00:00Z', metrics: { casing_pressure_psi: 300 } },
        ],
      },
      user.headers,
    );
    await t.api.post(
      '/ingest/scada',
      {
        readings: [
          { well_api: '42-389-31001', timestamp: '2026-03-04T00:00:00Z', metrics: { casing_pressure_psi: 200 } },
        ],
      },
      user.headers,
    );
    const well = await t.api.get('/graph/entities/Well/42-389-31001', user.headers);
    expect(well.body.properties.scada_casing_pressure_psi).to.equal('300');
  });

  it('answers 422 naming the reading and the metric', async () => {
    const user = await signIn(t, { roles: ['admin'], tenantId: randomUUID() });
    const response = await t.api.post(
      '/ingest/scada',
      {
        readings: [
          { well_api: '42-389-31001', timestamp: '2026-03-01T00:00:00Z', metrics: { oil_bbls: 3 } },
          { well_api: '42-389-31001', timestamp: '2026-03-01T00:00:00Z', metrics: { flared_mcf: -5 } },
        ],
      },
      user.headers,
    );
    expect(response.status).to.equal(422);
    expect(response.body.detail[0].loc).to.deep.equal(['body', 'readings', 1, 'metrics', 'flared_mcf']);
    const notANumber = await t.api.post(
      '/ingest/scada',
      { readings: [{ well_api: '42-389-31001', timestamp: '2026-03-01T00:00:00Z', metrics: { oil_bbls: 'lots' } }] },
      user.headers,
    );
    expect(notANumber.body.detail[0].loc).to.deep.equal(['body', 'readings', 0, 'metrics', 'oil_bbls']);
  });

  describe('POST /extract', () => {
    const prose =
      'PECOS BASIN RESOURCES LLC (P-5 No. 654321) has applied for W-1 Drilling Permit No. 876543 for the JONES 97 Lease, Well No. 4H, API No. 42-329-39876, in the SPRABERRY (TREND AREA) Field, Midland County, District 08. ' +
      'The operator reports that well 42-317-41234 on the UNIVERSITY 7 Lease in Martin County flared 120 mcf/d.';

    it('is not routed through the gateway (404)', async () => {
      const user = await signIn(t, { roles: ['power_user'], tenantId: randomUUID() });
      const response = await t.api.post('/extract', { text: prose }, user.headers);
      expect(response.status).to.equal(404);
    });

    it('extracts wells, operators, leases, permits, fields and counties with their edges on the internal listener', async () => {
      const tenantId = randomUUID();
      const user = await signIn(t, { roles: ['power_user'], tenantId });
      const internal = httpClient(`${t.internalUrl}/api/v1`, {
        'x-user-id': user.userId,
        'x-tenant-id': tenantId,
        'x-permissions': 'ingest.run',
      });
      const response = await internal.post('/extract', { text: prose });
      expect(response.status).to.equal(200);
      const names = response.body.entities.map((e: { type: string; name: string }) => `${e.type}:${e.name}`);
      expect(names).to.include.members([
        'operator:PECOS BASIN RESOURCES LLC',
        'permit:876543',
        'lease:JONES 97',
        'well:42-329-39876',
        'field:SPRABERRY (TREND AREA)',
        'county:Midland County',
        'well:42-317-41234',
        'lease:UNIVERSITY 7',
        'county:Martin County',
      ]);
      expect(response.body.entities.find((e: { name: string }) => e.name === '42-329-39876').api_number).to.equal(
        '42-329-39876',
      );
      expect(response.body.edges).to.deep.include({
        from: '42-329-39876',
        to: 'PECOS BASIN RESOURCES LLC',
        type: 'OPERATED_BY',
      });
      expect(response.body.edges).to.deep.include({ from: '876543', to: '42-329-39876', type: 'PART_OF' });
      expect(response.body.edges).to.deep.include({ from: '42-317-41234', to: 'UNIVERSITY 7', type: 'LOCATED_IN' });
      // Wells and permits reach the graph, linked.
      const well = await t.api.get('/graph/edges/Well/42-329-39876', user.headers);
      expect(well.status).to.equal(200);
      expect(well.body.edges.map((e: { neighbor: { entity_id: string } }) => e.neighbor.entity_id)).to.include(
        'W1-876543',
      );
    });

    it('enforces the ingestion roles: a caller without ingest.run gets 403', async () => {
      const internal = httpClient(`${t.internalUrl}/api/v1`, {
        'x-user-id': randomUUID(),
        'x-tenant-id': randomUUID(),
        'x-permissions': 'conversations.use',
      });
      const response = await internal.post('/extract', { text: prose });
      expect(response.status).to.equal(403);
    });
  });
});
