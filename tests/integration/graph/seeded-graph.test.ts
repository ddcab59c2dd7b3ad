import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { graphContext } from '../../../src/contexts/graph/module';
import { countTokens } from '../../../src/platform/infra/tokens';
import { signIn } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

describe('a seeded graph: templates, context assembly, impact', () => {
  let t: TestPlatform;
  let auth: Record<string, string>;
  let tenantId: string;
  let seeded: any;
  let operator: any;
  let well: any;

  before(async () => {
    t = await startTestPlatform({ contexts: [graphContext] });
    const session = await signIn(t, { roles: ['operator'], tenantId: randomUUID() });
    auth = session.headers;
    tenantId = session.tenantId;
    seeded = await t.api.post('/graph/seed', { wells: 20 }, auth);
    // The busiest operator and a producing well with offsets, flaring and a facility.
    const rows = await t.deps.knex.raw(
      `SELECT o.entity_id, count(*) AS n FROM graph_edges e JOIN graph_vertices o ON o.id = e.to_id
        WHERE e.namespace = ? AND e.label = 'OPERATED_BY' AND e.from_label = 'Well' GROUP BY o.entity_id ORDER BY n DESC LIMIT 1`,
      [`${tenantId.replace(/-/g, '')}_oilgas`],
    );
    operator = rows.rows[0];
    const wells = await t.api.get('/graph/entities/Well?limit=100', auth);
    const withOffsets = [];
    for (const w of wells.body.entities) {
      const edges = await t.api.get(`/graph/edges/Well/${w.id}`, auth);
      withOffsets.push({ w, n: edges.body.count });
    }
    well = withOffsets.sort((a, b) => b.n - a.n)[0].w;
  });
  after(() => t.close());

  it('POST /graph/seed loads a Texas portfolio of the requested size and reports what it loaded', () => {
    expect(seeded.status).to.equal(201);
    expect(seeded.body).to.include({ wells: 20, namespace: `${tenantId.replace(/-/g, '')}_oilgas` });
    expect(seeded.body.by_label.Well).to.equal(20);
    for (const label of [
      'Operator',
      'Field',
      'Lease',
      'Permit',
      'FlaringAuthorization',
      'FlaringEvent',
      'Facility',
      'PipelineRoute',
      'Regulation',
      'ComplianceDeadline',
      'OPERATED_BY',
      'OFFSET_TO',
    ]) {
      expect(seeded.body.by_label[label], label).to.be.greaterThan(0);
    }
    expect(seeded.body.entities).to.equal(seeded.body.vertices + seeded.body.edges);
  });

  it('seeded wells carry Texas API numbers, RRC districts and P-5 operators', async () => {
    expect(well.properties.api_number).to.match(/^42-\d{3}-\d{5}$/);
    expect(Number(well.properties.api_number.slice(3, 6)) % 2).to.equal(1);
    expect(['01', '02', '03', '04', '05', '06', '6E', '7B', '7C', '08', '8A', '8B', '09', '10']).to.include(
      well.properties.district,
    );
    const op = await t.api.get(`/graph/entities/Operator/${operator.entity_id}`, auth);
    expect(op.body.properties.p5_number).to.match(/^\d{6}$/);
  });

  it('seeding a graph that holds vertices answers 409', async () => {
    expect((await t.api.post('/graph/seed', { wells: 5 }, auth)).status).to.equal(409);
  });

  describe('query templates', () => {
    const run = (body: unknown, query = '') => t.api.post(`/graph/query-template${query}`, body, auth);

    it('operator_wells returns rows keyed by the column w', async () => {
      const response = await run({ template_id: 'operator_wells', params: { operator_id: operator.entity_id } });
      expect(response.status).to.equal(200);
      expect(response.body.count).to.equal(Number(operator.n));
      expect(response.body.results[0]).to.have.keys('w');
      expect(response.body.results[0].w).to.include({ label: 'Well' });
    });

    it('operator_permits, operator_flaring_auths and the via-lease variant answer with their columns', async () => {
      for (const [template, column] of [
        ['operator_permits', 'p'],
        ['operator_flaring_auths', 'fa'],
        ['operator_flaring_auths_via_lease', 'fa'],
      ]) {
        const response = await run({ template_id: template, params: { operator_id: operator.entity_id } });
        expect(response.status, template).to.equal(200);
        expect(response.body.count).to.equal(response.body.results.length);
        for (const row of response.body.results) expect(Object.keys(row)).to.deep.equal([column]);
      }
      const total = await t.deps
        .knex('graph_vertices')
        .where({ label: 'FlaringAuthorization' })
        .count<{ count: string }[]>('* as count');
      let found = 0;
      const operators = await t.api.get('/graph/entities/Operator', auth);
      for (const o of operators.body.entities)
        found += (await run({ template_id: 'operator_flaring_auths_via_lease', params: { operator_id: o.entity_id } }))
          .body.count;
      expect(found).to.equal(Number(total[0].count));
    });

    it('edge_usage counts an edge label by source and target label', async () => {
      const response = await run({ template_id: 'edge_usage', params: { edge_label: 'LOCATED_IN' } });
      expect(response.status).to.equal(200);
      expect(response.body.results).to.deep.include.members([
        { source: 'Well', target: 'Field', cnt: 20 },
        { source: 'Well', target: 'Lease', cnt: 20 },
      ]);
    });

    it('an unknown template, a wrong parameter set or a non-whitelisted label answers 400', async () => {
      expect((await run({ template_id: 'all_vertices', params: {} })).status).to.equal(400);
      expect((await run({ template_id: 'operator_wells', params: {} })).status).to.equal(400);
      expect((await run({ template_id: 'operator_wells', params: { operator_id: 'x', extra: 1 } })).status).to.equal(
        400,
      );
      expect(
        (await run({ template_id: 'edge_usage', params: { edge_label: "LOCATED_IN' OR 1=1 --" } })).status,
      ).to.equal(400);
      expect((await run({ template_id: 'edge_usage', params: { edge_label: 'Well' } })).status).to.equal(400);
    });

    it('values are bound, never spliced: a quote in operator_id matches nothing and breaks nothing', async () => {
      const response = await run({ template_id: 'operator_wells', params: { operator_id: "x' OR '1'='1" } });
      expect(response.status).to.equal(200);
      expect(response.body).to.deep.equal({ results: [], count: 0 });
    });

    it("tenant_id may name only the caller's own tenant", async () => {
      const own = await run(
        { template_id: 'operator_wells', params: { operator_id: operator.entity_id } },
        `?tenant_id=${tenantId}`,
      );
      expect(own.status).to.equal(200);
      const foreign = await run(
        { template_id: 'operator_wells', params: { operator_id: operator.entity_id } },
        `?tenant_id=${randomUUID()}`,
      );
      expect(foreign.status).to.equal(403);
    });
  });

  describe('managed context', () => {
    const context = (id: string, query: string) => t.api.get(`/graph/context/managed/${id}?${query}`, auth);

    it('answers structured context and model-facing text with every top-level field', async () => {
      const response = await context(well.entity_id, 'entity_type_key=well');
      expect(response.status).to.equal(200);
      expect(response.body).to.include.keys(
        'structured',
        'context_text',
        'fields_highlighted',
        'detection_results_included',
        'token_estimate',
        'entities_referenced',
        'truncation_occurred',
        'relationships_truncated',
      );
      expect(response.body.structured.entity.id).to.equal(well.id);
      expect(
        response.body.structured.relationships.LOCATED_IN.map((r: { label: string }) => r.label).sort(),
      ).to.deep.equal(['Field', 'Lease']);
      expect(response.body.context_text).to.contain(well.properties.api_number);
      expect(response.body.context_text).to.match(/^Key fields: /m);
      expect(response.body.context_text).to.match(/^Other fields: /m);
      expect(response.body.fields_highlighted).to.include('api_number');
      expect(response.body.token_estimate).to.equal(countTokens(response.body.context_text));
      expect(response.body.entities_referenced.map((e: { id: string }) => e.id)).to.include(well.id);
      const byUuid = await context(well.id, 'entity_type_key=Well');
      expect(byUuid.body.structured.entity.entity_id).to.equal(well.entity_id);
    });

    it("domain tags select the spec's sections: spacing keeps offsets and regulations, drops facilities", async () => {
      const spacing = await context(well.id, 'entity_type_key=well&domain_tags=spacing');
      expect(spacing.body.context_text).not.to.contain('## PRODUCES_TO');
      expect(spacing.body.context_text).to.contain('## OPERATED_BY');
      if (spacing.body.structured.relationships.OFFSET_TO) expect(spacing.body.context_text).to.contain('## OFFSET_TO');
      const production = await context(well.id, 'entity_type_key=well&domain_tags=production');
      expect(production.body.context_text).to.contain('## PRODUCES_TO');
      expect(production.body.context_text).not.to.contain('## OFFSET_TO');
      // structured stays complete whatever the tags
      expect(production.body.structured.relationships).to.have.property('PRODUCES_TO');
      const unknown = await context(well.id, 'entity_type_key=well&domain_tags=astrology');
      expect(unknown.status).to.equal(422);
      expect(unknown.body.detail[0].loc).to.deep.equal(['query', 'domain_tags']);
    });

    it('caps each relationship in the text with an explicit overflow marker', async () => {
      const field = (await t.api.get('/graph/entities/Field?limit=100', auth)).body.entities;
      let busiest = null;
      for (const f of field) {
        const edges = (await t.api.get(`/graph/edges/Field/${f.id}`, auth)).body.count;
        if (!busiest || edges > busiest.n) busiest = { f, n: edges };
      }
      const response = await context(busiest!.f.id, 'entity_type_key=field&max_per_relationship=1');
      expect(response.body.structured.relationships.LOCATED_IN).to.have.length(busiest!.n);
      if (busiest!.n > 1) {
        expect(response.body.context_text).to.contain(`${busiest!.n - 1} more LOCATED_IN relationships not shown`);
        expect(response.body.relationships_truncated.LOCATED_IN).to.deep.equal({ total: busiest!.n, included: 1 });
        expect(response.body.truncation_occurred).to.equal(true);
      }
    });

    it('keeps the text within max_tokens measured with the tokenizer, and says so', async () => {
      const response = await context(well.id, 'entity_type_key=well&max_tokens=120&depth=2');
      expect(response.body.token_estimate).to.be.at.most(120);
      expect(countTokens(response.body.context_text)).to.be.at.most(120);
      expect(response.body.truncation_occurred).to.equal(true);
      expect(response.body.context_text).to.contain('context truncated at the 120-token limit');
    });

    it('entity_type_key is required; unknown ids answer 404; a foreign tenant_id 403', async () => {
      expect((await context(well.id, '')).status).to.equal(422);
      expect((await context(randomUUID(), 'entity_type_key=well')).status).to.equal(404);
      expect((await context(well.id, `entity_type_key=well&tenant_id=${randomUUID()}`)).status).to.equal(403);
    });
  });

  it('the legacy well-number route maps the walk into its sections', async () => {
    const response = await t.api.get(`/graph/context/${well.properties.api_number}`, auth);
    expect(response.status).to.equal(200);
    expect(response.body).to.have.keys(
      'well',
      'lease',
      'field',
      'offset_wells',
      'flaring_authorizations',
      'compliance_deadlines',
      'infrastructure',
    );
    expect(response.body.well.api_number).to.equal(well.properties.api_number);
    expect(response.body.lease.label).to.equal('Lease');
    expect(response.body.field.label).to.equal('Field');
    expect(response.body.infrastructure.map((v: { label: string }) => v.label)).to.include.members([
      'Facility',
      'PipelineRoute',
    ]);
    expect((await t.api.get('/graph/context/42-999-99999', auth)).status).to.equal(404);
  });

  describe('impact analysis', () => {
    it('bidirectional impact of a facility reaches its wells and prices their production', async () => {
      const facility = (await t.api.get('/graph/entities/Facility?limit=1', auth)).body.entities[0];
      const response = await t.api.get(
        `/impact/Facility/${facility.id}?max_depth=1&wti_price=80&henry_hub_price=2.5`,
        auth,
      );
      expect(response.status).to.equal(200);
      const wells = response.body.affected.filter((a: { label: string }) => a.label === 'Well');
      expect(wells.length).to.be.greaterThan(0);
      expect(response.body.summary.wells_affected).to.equal(wells.length);
      let oil = 0;
      let gas = 0;
      for (const w of wells) {
        const p = (await t.api.get(`/graph/entities/Well/${w.id}`, auth)).body.properties;
        oil += Number(p.production_oil_bbls);
        gas += Number(p.production_gas_mcf);
      }
      const e = response.body.economic_impact;
      expect(e).to.include({
        wti_price: 80,
        henry_hub_price: 2.5,
        mmbtu_per_mcf: 1.037,
        oil_bbls_per_month: oil,
        gas_mcf_per_month: gas,
      });
      expect(e.total_value_usd_per_month).to.be.closeTo(oil * 80 + gas * 1.037 * 2.5, 0.01);
    });

    it('outward follows edges downstream, inward upstream, and max_depth bounds the walk', async () => {
      const outward = await t.api.get(`/impact/outward/Well/${well.id}?max_depth=2`, auth);
      expect(outward.status).to.equal(200);
      expect(outward.body.affected.every((a: { direction: string }) => a.direction === 'out')).to.equal(true);
      expect(outward.body.affected.map((a: { label: string }) => a.label)).to.include('PipelineRoute');
      const inward = await t.api.get(`/impact/inward/Operator/${operator.entity_id}?max_depth=1`, auth);
      expect(inward.body.affected.filter((a: { label: string }) => a.label === 'Well')).to.have.length(
        Number(operator.n),
      );
      expect(inward.body.affected.every((a: { depth: number }) => a.depth === 1)).to.equal(true);
      expect((await t.api.get(`/impact/Well/${well.id}?max_depth=0`, auth)).status).to.equal(422);
    });

    it('the infrastructure tree hangs facilities and wells under a pipeline route with production rolled up', async () => {
      const route = (await t.api.get('/graph/entities/PipelineRoute?limit=1', auth)).body.entities[0];
      const response = await t.api.get(`/impact/tree?root_label=PipelineRoute&root_id=${route.id}`, auth);
      expect(response.status).to.equal(200);
      const root = response.body.root;
      expect(root.id).to.equal(route.id);
      expect(root.children.map((c: { label: string }) => c.label)).to.include('Facility');
      const facility = root.children.find((c: { label: string }) => c.label === 'Facility');
      expect(facility.children.map((c: { label: string }) => c.label)).to.include('Well');
      const sum = root.children.reduce((s: number, c: { rollup: { wells: number } }) => s + c.rollup.wells, 0);
      expect(root.rollup.wells).to.equal(sum);
      expect((await t.api.get('/impact/tree?root_label=PipelineRoute', auth)).status).to.equal(422);
    });
  });
});
