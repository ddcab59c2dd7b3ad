import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { signIn, type Session } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

/** Ingestion: POST /ingest/rrc-scrape, the simulated Railroad Commission scrape. */
describe('RRC scrape API', () => {
  let t: TestPlatform;
  before(async () => {
    t = await startTestPlatform();
  });
  after(() => t.close());

  const powerUser = (): Promise<Session> => signIn(t, { roles: ['power_user'], tenantId: randomUUID() });
  const request = {
    data_types: ['operators', 'leases', 'wells', 'permits', 'production', 'flaring'],
    district: '08',
    date_range: { from: '2025-01-01', to: '2025-03-31' },
  };

  it('loads wells, operators, leases, permits, production and flaring into the graph and reports counts per type', async () => {
    const user = await powerUser();
    const response = await t.api.post('/ingest/rrc-scrape', request, user.headers);
    expect(response.status).to.equal(200);
    const { counts, graph } = response.body;
    expect(counts.wells).to.equal(36);
    expect(counts.operators).to.equal(6);
    expect(counts.leases).to.equal(12);
    expect(counts.production).to.be.greaterThan(36);
    expect(counts.flaring).to.be.greaterThan(0);
    expect(graph.created).to.be.greaterThan(50);
    expect(graph.production_reports).to.equal(counts.production);

    const wells = await t.api.get('/graph/entities/Well?limit=1000', user.headers);
    expect(wells.body.entities).to.have.length(36);
    const well = wells.body.entities[0];
    expect(well.entity_id).to.match(/^42-(329|389|301|475|135|003)-\d{5}$/);
    expect(well.properties.form_pr_period).to.equal('2025-03');
    const edges = await t.api.get(`/graph/edges/Well/${well.entity_id}`, user.headers);
    const labels = edges.body.edges.map(
      (e: { edge_label: string; neighbor: { label: string } }) => `${e.edge_label}:${e.neighbor.label}`,
    );
    expect(labels).to.include.members(['OPERATED_BY:Operator', 'LOCATED_IN:Lease', 'LOCATED_IN:Field']);
  });

  it('re-running the same request changes nothing', async () => {
    const user = await powerUser();
    await t.api.post('/ingest/rrc-scrape', request, user.headers);
    const before = await t.deps.store.headPosition();
    const again = await t.api.post('/ingest/rrc-scrape', request, user.headers);
    expect(again.status).to.equal(200);
    expect(again.body.recorded).to.equal(false);
    expect(again.body.graph).to.include({ created: 0, updated: 0, edges_created: 0, production_reports: 0 });
    expect(await t.deps.store.headPosition()).to.deep.equal(before);
  });

  it('refuses an unknown data type and a reversed date range with 422', async () => {
    const user = await powerUser();
    const bad = await t.api.post('/ingest/rrc-scrape', { data_types: ['wells', 'gossip'] }, user.headers);
    expect(bad.status).to.equal(422);
    expect(bad.body.detail[0].loc).to.deep.equal(['body', 'data_types', 1]);
    const reversed = await t.api.post(
      '/ingest/rrc-scrape',
      { data_types: ['wells'], date_range: { from: '2025-03-01', to: '2025-01-01' } },
      user.headers,
    );
    expect(reversed.status).to.equal(422);
  });

  it('is closed to operators (403) like every /ingest route', async () => {
    const operator = await signIn(t, { roles: ['operator'], tenantId: randomUUID() });
    const response = await t.api.post('/ingest/rrc-scrape', request, operator.headers);
    expect(response.status).to.equal(403);
  });
});
