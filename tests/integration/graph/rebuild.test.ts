import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { graphContext } from '../../../src/contexts/graph/module';
import { signIn } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

describe('the property graph is a projection rebuildable from events', () => {
  let t: TestPlatform;
  let auth: Record<string, string>;

  before(async () => {
    t = await startTestPlatform({ contexts: [graphContext] });
    auth = (await signIn(t, { roles: ['admin'], tenantId: randomUUID() })).headers;
  });
  after(() => t.close());

  const snapshot = async () => ({
    vertices: await t.deps.knex('graph_vertices').orderBy('id'),
    edges: await t.deps.knex('graph_edges').orderBy('id'),
    entityTypes: await t.deps.knex('graph_entity_types').orderBy('key'),
    rules: await t.deps.knex('graph_relationship_rules').orderBy('id'),
  });

  it('dropping and replaying the graph projections gives back the same rows', async () => {
    expect((await t.api.post('/graph/seed', { wells: 12 }, auth)).status).to.equal(201);
    const wells = (await t.api.get('/graph/entities/Well?limit=3', auth)).body.entities;
    // Imported vertices changed through the API, one deleted with its edges, a new vertex and edge.
    await t.api.put(
      `/graph/entities/Well/${wells[0].id}`,
      { properties: { status: 'shut_in', lateral_length_ft: null } },
      auth,
    );
    await t.api.put(
      `/graph/entities/Well/${wells[1].id}/production`,
      { reporting_month: '2026-01', oil_bbls: 4321, gas_mcf: 9876 },
      auth,
    );
    await t.api.delete(`/graph/entities/Well/${wells[2].id}`, auth);
    const event = (
      await t.api.post(
        '/graph/entities',
        { label: 'WellEvent', properties: { type: 'workover', date: '2026-01-10' } },
        auth,
      )
    ).body;
    await t.api.post(
      '/graph/edges',
      { from_label: 'Well', from_id: wells[0].id, to_label: 'WellEvent', to_id: event.id, edge_label: 'HAS_EVENT' },
      auth,
    );
    await t.api.post('/entity-types', { key: 'tank', label: 'Tank', display_name: 'Tank' }, auth);
    await t.api.delete('/relationship-rules/oilgas-has_filing-well-filingpackage', auth);

    const before = await snapshot();
    expect(before.vertices.find((v) => v.id === wells[0].id).properties)
      .to.include({ status: 'shut_in' })
      .and.not.have.property('lateral_length_ft');
    expect(before.vertices.find((v) => v.id === wells[2].id)).to.equal(undefined);

    await t.deps.projections.rebuild('graph_property_graph');
    await t.deps.projections.rebuild('graph_schema');
    const after = await snapshot();
    expect(after.vertices).to.deep.equal(before.vertices);
    expect(after.edges).to.deep.equal(before.edges);
    expect(after.entityTypes).to.deep.equal(before.entityTypes);
    expect(after.rules).to.deep.equal(before.rules);
  });
});
