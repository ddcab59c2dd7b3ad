import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { graphContext } from '../../../src/contexts/graph/module';
import { signIn } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

describe('graph entities and edges', () => {
  let t: TestPlatform;
  let auth: Record<string, string>;
  let other: Record<string, string>;

  before(async () => {
    t = await startTestPlatform({ contexts: [graphContext] });
    auth = (await signIn(t, { roles: ['operator'], tenantId: randomUUID() })).headers;
    other = (await signIn(t, { roles: ['admin'], tenantId: randomUUID() })).headers;
  });
  after(() => t.close());

  const create = (label: string, properties: Record<string, unknown>, headers = auth) =>
    t.api.post('/graph/entities', { label, properties }, headers);
  const api = () => `42-329-${String(Math.floor(Math.random() * 99999)).padStart(5, '0')}`;

  it('creating a vertex answers 201 with {id, label, entity_id, properties}, values stored as strings and nested ones as JSON text', async () => {
    const created = await create('Well', {
      entity_id: 'W-1',
      api_number: '42-329-30001',
      oil_bbls: 1200,
      active: true,
      history: [{ period: '2025-12', oil_bbls: 10 }],
    });
    expect(created.status).to.equal(201);
    expect(created.body).to.have.keys('id', 'label', 'entity_id', 'properties');
    expect(created.body).to.include({ label: 'Well', entity_id: 'W-1' });
    expect(created.body.properties).to.deep.equal({
      entity_id: 'W-1',
      api_number: '42-329-30001',
      oil_bbls: '1200',
      active: 'true',
      history: JSON.stringify([{ period: '2025-12', oil_bbls: 10 }]),
    });
    const read = await t.api.get(`/graph/entities/Well/${created.body.id}`, auth);
    expect(read.status).to.equal(200);
    expect(read.body).to.deep.equal(created.body);
  });

  it('an unknown label answers 422 naming body.label and stores nothing', async () => {
    const before = await t.deps.knex('events').count<{ count: string }[]>('* as count');
    const response = await create('Spaceship', { name: 'x' });
    expect(response.status).to.equal(422);
    expect(response.body.detail[0].loc).to.deep.equal(['body', 'label']);
    const after = await t.deps.knex('events').count<{ count: string }[]>('* as count');
    expect(after[0].count).to.equal(before[0].count);
  });

  it('a vertex is found by its uuid or its entity_id; an unknown one answers 404, an unknown label 422', async () => {
    const { body } = await create('Operator', {
      entity_id: `P5-${randomUUID().slice(0, 6)}`,
      name: 'PECOS BASIN LLC',
      p5_number: '123456',
    });
    expect((await t.api.get(`/graph/entities/Operator/${body.entity_id}`, auth)).body.id).to.equal(body.id);
    expect((await t.api.get(`/graph/entities/Operator/${body.id}`, auth)).body.entity_id).to.equal(body.entity_id);
    expect((await t.api.get('/graph/entities/Operator/no-such-operator', auth)).status).to.equal(404);
    const badLabel = await t.api.get('/graph/entities/Spaceship/x', auth);
    expect(badLabel.status).to.equal(422);
    expect(badLabel.body.detail[0].loc).to.deep.equal(['path', 'label']);
  });

  it('twenty concurrent creates of one entity_id: exactly one 201, the rest 409, one vertex stored', async () => {
    const entityId = `W-race-${randomUUID()}`;
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => create('Well', { entity_id: entityId, api_number: api() })),
    );
    expect(responses.map((r) => r.status).sort()).to.deep.equal([201, ...Array(19).fill(409)]);
    const stored = await t.deps
      .knex('events')
      .where({ type: 'VertexCreated' })
      .whereRaw(`data->>'entityId' = ?`, [entityId])
      .count<{ count: string }[]>('* as count');
    expect(stored[0].count).to.equal('1');
  });

  it('deleting a vertex frees its entity_id for a new one', async () => {
    const entityId = `W-again-${randomUUID()}`;
    const first = await create('Well', { entity_id: entityId });
    expect((await t.api.delete(`/graph/entities/Well/${first.body.id}`, auth)).status).to.equal(200);
    expect((await create('Well', { entity_id: entityId })).status).to.equal(201);
  });

  it('a second vertex with the same label and entity_id answers 409', async () => {
    const entityId = `L-${randomUUID()}`;
    expect((await create('Lease', { entity_id: entityId, name: 'JONES 97' })).status).to.equal(201);
    expect((await create('Lease', { entity_id: entityId, name: 'JONES 98' })).status).to.equal(409);
  });

  it('lists vertices of a label with a limit', async () => {
    for (let i = 0; i < 3; i++) await create('Formation', { name: `Wolfcamp ${i}` });
    const listed = await t.api.get('/graph/entities/Formation?limit=2', auth);
    expect(listed.status).to.equal(200);
    expect(listed.body.entities).to.have.length(2);
    expect(listed.body.entities[0]).to.have.keys('id', 'label', 'entity_id', 'properties');
    expect((await t.api.get('/graph/entities/Formation?limit=0', auth)).status).to.equal(422);
  });

  it('updating sets the given properties, keeps the others and removes those sent as null; entity_id cannot change', async () => {
    const { body } = await create('Lease', { name: 'HALEY 12', county: 'Loving', district: '08' });
    const updated = await t.api.put(
      `/graph/entities/Lease/${body.id}`,
      { properties: { county: 'Reeves', acres: 640, district: null } },
      auth,
    );
    expect(updated.status).to.equal(200);
    expect(updated.body.properties).to.deep.equal({
      entity_id: body.entity_id,
      name: 'HALEY 12',
      county: 'Reeves',
      acres: '640',
    });
    expect((await t.api.get(`/graph/entities/Lease/${body.id}`, auth)).body.properties).to.deep.equal(
      updated.body.properties,
    );
    const renamed = await t.api.put(`/graph/entities/Lease/${body.id}`, { properties: { entity_id: 'other' } }, auth);
    expect(renamed.status).to.equal(422);
    expect(renamed.body.detail[0].loc).to.deep.equal(['body', 'properties', 'entity_id']);
    expect((await t.api.put(`/graph/entities/Lease/${randomUUID()}`, { properties: { a: 1 } }, auth)).status).to.equal(
      404,
    );
  });

  it('a production update stores the Form PR fields and keeps a 12-month history, newest month current', async () => {
    const { body } = await create('Well', { api_number: api() });
    const path = `/graph/entities/Well/${body.id}/production`;
    const march = await t.api.put(
      path,
      {
        reporting_month: '2025-03',
        oil_bbls: 9000,
        gas_mcf: 15000,
        water_bbls: 20000,
        disposition_code_10_mcf: 300,
        disposition_code_11_mcf: 12,
      },
      auth,
    );
    expect(march.status).to.equal(200);
    expect(march.body.properties).to.include({
      production_oil_bbls: '9000',
      production_gas_mcf: '15000',
      production_water_bbls: '20000',
      gas_flared_mcf: '300',
      gas_vented_mcf: '12',
      form_pr_period: '2025-03',
      reporting_month: '2025-03',
    });
    await t.api.put(path, { reporting_month: '2025-02', oil_bbls: 9500 }, auth);
    const read = await t.api.get(`/graph/entities/Well/${body.id}`, auth);
    expect(read.body.properties.production_oil_bbls).to.equal('9000');
    const history = JSON.parse(read.body.properties.production_history_12m);
    expect(history.map((h: { period: string }) => h.period)).to.deep.equal(['2025-02', '2025-03']);
    expect(history[0].oil_bbls).to.equal(9500);
    const bad = await t.api.put(path, { reporting_month: '2025-13', oil_bbls: -1 }, auth);
    expect(bad.status).to.equal(422);
    expect(bad.body.detail.map((d: { loc: string[] }) => d.loc[1])).to.have.members(['reporting_month', 'oil_bbls']);
    const { body: lease } = await create('Lease', { name: 'NOT A WELL' });
    expect(
      (await t.api.put(`/graph/entities/Well/${lease.id}/production`, { reporting_month: '2025-03' }, auth)).status,
    ).to.equal(404);
  });

  describe('edges', () => {
    let well: any;
    let operator: any;
    let lease: any;
    before(async () => {
      well = (await create('Well', { api_number: api() })).body;
      operator = (await create('Operator', { name: 'LLANO ENERGY LP', p5_number: '654321' })).body;
      lease = (await create('Lease', { name: 'UNIVERSITY 7' })).body;
    });

    const edge = (body: Record<string, unknown>) => t.api.post('/graph/edges', body, auth);

    it('creating an edge answers 201 with the edge; endpoints may be addressed by entity_id', async () => {
      const created = await edge({
        from_label: 'Well',
        from_id: well.entity_id,
        to_label: 'Operator',
        to_id: operator.id,
        edge_label: 'OPERATED_BY',
        properties: { since: 2019 },
      });
      expect(created.status).to.equal(201);
      expect(created.body).to.deep.include({
        edge_label: 'OPERATED_BY',
        from_id: well.id,
        from_label: 'Well',
        to_id: operator.id,
        to_label: 'Operator',
        properties: { since: '2019' },
      });
      expect(created.body.id).to.match(/^[0-9a-f-]{36}$/);
    });

    it('edge endpoint rules answer 422 naming the bad field', async () => {
      const wrongFrom = await edge({
        from_label: 'Operator',
        from_id: operator.id,
        to_label: 'Operator',
        to_id: operator.id,
        edge_label: 'OPERATED_BY',
      });
      expect(wrongFrom.status).to.equal(422);
      expect(wrongFrom.body.detail.map((d: { loc: string[] }) => d.loc.join('.'))).to.deep.equal(['body.from_label']);
      const wrongTo = await edge({
        from_label: 'Well',
        from_id: well.id,
        to_label: 'Lease',
        to_id: lease.id,
        edge_label: 'OPERATED_BY',
      });
      expect(wrongTo.status).to.equal(422);
      expect(wrongTo.body.detail[0].loc).to.deep.equal(['body', 'to_label']);
      const unknownEdge = await edge({
        from_label: 'Well',
        from_id: well.id,
        to_label: 'Lease',
        to_id: lease.id,
        edge_label: 'OWNS',
      });
      expect(unknownEdge.status).to.equal(422);
      expect(unknownEdge.body.detail[0].loc).to.deep.equal(['body', 'edge_label']);
      const unknownLabel = await edge({
        from_label: 'Rocket',
        from_id: well.id,
        to_label: 'Lease',
        to_id: lease.id,
        edge_label: 'LOCATED_IN',
      });
      expect(unknownLabel.body.detail[0].loc).to.deep.equal(['body', 'from_label']);
    });

    it('an edge to an unknown vertex answers 404', async () => {
      const response = await edge({
        from_label: 'Well',
        from_id: well.id,
        to_label: 'Lease',
        to_id: randomUUID(),
        edge_label: 'LOCATED_IN',
      });
      expect(response.status).to.equal(404);
    });

    it('PART_OF joins any two labels', async () => {
      const project = (await create('Project', { name: 'Q3 flaring review' })).body;
      expect(
        (
          await edge({
            from_label: 'Lease',
            from_id: lease.id,
            to_label: 'Project',
            to_id: project.id,
            edge_label: 'PART_OF',
          })
        ).status,
      ).to.equal(201);
    });

    it('lists the edges of a vertex filtered by edge_label and direction', async () => {
      await edge({
        from_label: 'Well',
        from_id: well.id,
        to_label: 'Lease',
        to_id: lease.id,
        edge_label: 'LOCATED_IN',
      });
      const all = await t.api.get(`/graph/edges/Well/${well.id}`, auth);
      expect(all.status).to.equal(200);
      expect(all.body.edges.map((e: { edge_label: string }) => e.edge_label).sort()).to.deep.equal([
        'LOCATED_IN',
        'OPERATED_BY',
      ]);
      expect(all.body.edges[0]).to.include.keys(
        'id',
        'edge_label',
        'direction',
        'from_id',
        'to_id',
        'properties',
        'neighbor',
      );
      const located = await t.api.get(`/graph/edges/Well/${well.id}?edge_label=LOCATED_IN`, auth);
      expect(located.body.edges).to.have.length(1);
      expect(located.body.edges[0].neighbor).to.include({ id: lease.id, label: 'Lease' });
      expect((await t.api.get(`/graph/edges/Operator/${operator.id}?direction=out`, auth)).body.edges).to.have.length(
        0,
      );
      const inbound = await t.api.get(`/graph/edges/Operator/${operator.id}?direction=in`, auth);
      expect(inbound.body.edges.map((e: { from_id: string }) => e.from_id)).to.deep.equal([well.id]);
      expect((await t.api.get(`/graph/edges/Operator/${operator.id}?direction=sideways`, auth)).status).to.equal(422);
    });

    it('deleting a vertex deletes its edges', async () => {
      const doomed = (await create('Well', { api_number: api() })).body;
      await edge({
        from_label: 'Well',
        from_id: doomed.id,
        to_label: 'Lease',
        to_id: lease.id,
        edge_label: 'LOCATED_IN',
      });
      await edge({ from_label: 'Well', from_id: doomed.id, to_label: 'Well', to_id: well.id, edge_label: 'OFFSET_TO' });
      const deleted = await t.api.delete(`/graph/entities/Well/${doomed.id}`, auth);
      expect(deleted.status).to.equal(200);
      expect(deleted.body).to.include({ id: doomed.id, deleted: true, edges_deleted: 2 });
      expect((await t.api.get(`/graph/entities/Well/${doomed.id}`, auth)).status).to.equal(404);
      expect(
        await t.deps.knex('graph_edges').where({ from_id: doomed.id }).orWhere({ to_id: doomed.id }),
      ).to.have.length(0);
      expect((await t.api.delete(`/graph/entities/Well/${doomed.id}`, auth)).status).to.equal(404);
    });
  });

  it('another tenant sees none of it: 404 on get, empty lists', async () => {
    const { body } = await create('Field', { name: 'SPRABERRY (TREND AREA)' });
    expect((await t.api.get(`/graph/entities/Field/${body.id}`, other)).status).to.equal(404);
    expect((await t.api.get('/graph/entities/Field', other)).body.entities).to.deep.equal([]);
    expect((await t.api.put(`/graph/entities/Field/${body.id}`, { properties: { name: 'x' } }, other)).status).to.equal(
      404,
    );
  });

  it('entity routes need authentication', async () => {
    expect((await t.api.get('/graph/entities/Well')).status).to.equal(401);
    expect((await t.api.post('/graph/entities', { label: 'Well', properties: {} })).status).to.equal(401);
  });

  it('/graph/query answers 404 (raw query text is not reachable)', async () => {
    expect((await t.api.post('/graph/query', { query: 'MATCH (n) RETURN n' }, auth)).status).to.equal(404);
    expect((await t.api.get('/graph/query', auth)).status).to.equal(404);
  });
});
