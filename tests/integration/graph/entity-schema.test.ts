import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { graphContext } from '../../../src/contexts/graph/module';
import { signIn } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

describe('configurable entity types, relationship types and rules', () => {
  let t: TestPlatform;
  let power: Record<string, string>;
  let operator: Record<string, string>;

  before(async () => {
    t = await startTestPlatform({ contexts: [graphContext] });
    const tenantId = randomUUID();
    power = (await signIn(t, { roles: ['power_user'], tenantId })).headers;
    operator = (await signIn(t, { roles: ['operator'], tenantId })).headers;
  });
  after(() => t.close());

  it('reads are public and list the oil-and-gas vertical', async () => {
    const types = await t.api.get('/entity-types');
    expect(types.status).to.equal(200);
    expect(types.body.entity_types.map((e: { label: string }) => e.label)).to.include.members([
      'Well',
      'Lease',
      'Field',
      'Formation',
      'Operator',
      'Permit',
      'FlaringAuthorization',
      'FlaringEvent',
      'InfrastructureProject',
      'Regulation',
      'Wellpad',
      'Facility',
      'PipelineRoute',
      'WellEvent',
      'ComplianceDeadline',
      'FilingPackage',
      'WellConversation',
      'Project',
      'Equipment',
      'Pipeline',
    ]);
    expect((await t.api.get('/entity-types/well')).body).to.include({
      label: 'Well',
      context_section: 'well',
      source: 'vertical:oilgas@2',
    });
    const relationships = await t.api.get('/relationship-types');
    expect(relationships.body.relationship_types).to.have.length(16);
    const rules = await t.api.get('/relationship-rules?edge_label=OPERATED_BY');
    expect(rules.body.relationship_rules.map((r: { from_label: string }) => r.from_label).sort()).to.deep.equal([
      'Facility',
      'Lease',
      'PipelineRoute',
      'Well',
      'Wellpad',
    ]);
    expect((await t.api.get('/entity-types/no_such_type')).status).to.equal(404);
  });

  it('writes need power_user or admin', async () => {
    const body = { key: 'tank', label: 'Tank', display_name: 'Tank' };
    expect((await t.api.post('/entity-types', body)).status).to.equal(401);
    expect((await t.api.post('/entity-types', body, operator)).status).to.equal(403);
    expect(
      (
        await t.api.post(
          '/relationship-rules',
          { edge_label: 'PART_OF', from_label: 'Well', to_label: 'Well' },
          operator,
        )
      ).status,
    ).to.equal(403);
  });

  it('a new label added at run time is usable at once, with its own relationship type and rule', async () => {
    const created = await t.api.post(
      '/entity-types',
      {
        key: 'saltwater_disposal',
        label: 'SaltwaterDisposal',
        display_name: 'Saltwater disposal well',
        significant_fields: ['permit_number', 'injection_bbls'],
        context_section: 'facilities',
      },
      power,
    );
    expect(created.status).to.equal(201);
    expect(created.body).to.include({ key: 'saltwater_disposal', label: 'SaltwaterDisposal', impact_terminal: false });
    const relationship = await t.api.post(
      '/relationship-types',
      { key: 'DISPOSES_TO', display_name: 'disposes to', infrastructure: true },
      power,
    );
    expect(relationship.status).to.equal(201);
    const rule = await t.api.post(
      '/relationship-rules',
      { edge_label: 'DISPOSES_TO', from_label: 'Well', to_label: 'SaltwaterDisposal' },
      power,
    );
    expect(rule.status).to.equal(201);
    expect(rule.body.id).to.be.a('string');

    const well = (
      await t.api.post('/graph/entities', { label: 'Well', properties: { api_number: '42-389-31234' } }, operator)
    ).body;
    const swd = await t.api.post(
      '/graph/entities',
      { label: 'SaltwaterDisposal', properties: { permit_number: 'SWD-1234', injection_bbls: 15000 } },
      operator,
    );
    expect(swd.status).to.equal(201);
    const edge = await t.api.post(
      '/graph/edges',
      {
        from_label: 'Well',
        from_id: well.id,
        to_label: 'SaltwaterDisposal',
        to_id: swd.body.id,
        edge_label: 'DISPOSES_TO',
      },
      operator,
    );
    expect(edge.status).to.equal(201);
    const context = await t.api.get(
      `/graph/context/managed/${swd.body.id}?entity_type_key=saltwater_disposal`,
      operator,
    );
    expect(context.body.context_text).to.contain('Key fields: permit_number: SWD-1234; injection_bbls: 15000');

    expect(
      (await t.api.post('/entity-types', { key: 'saltwater_disposal', label: 'Swd2', display_name: 'x' }, power))
        .status,
    ).to.equal(409);
    expect(
      (
        await t.api.post(
          '/relationship-rules',
          { edge_label: 'DISPOSES_TO', from_label: 'Well', to_label: 'SaltwaterDisposal' },
          power,
        )
      ).status,
    ).to.equal(409);
  });

  it('changing a shipped type alters its behaviour; its label is fixed', async () => {
    const changed = await t.api.patch('/entity-types/permit', { significant_fields: ['permit_number'] }, power);
    expect(changed.status).to.equal(200);
    expect(changed.body.significant_fields).to.deep.equal(['permit_number']);
    expect((await t.api.get('/entity-types/permit')).body.source).to.equal('custom');
    const relabel = await t.api.patch('/entity-types/permit', { label: 'DrillingPermit' }, power);
    expect(relabel.status).to.equal(422);
    expect(relabel.body.detail[0].loc).to.deep.equal(['body', 'label']);
  });

  it('bad definitions answer 422 naming the field', async () => {
    const response = await t.api.post('/entity-types', { key: 'Bad Key', label: 'ok', display_name: 'x' }, power);
    expect(response.status).to.equal(422);
    expect(response.body.detail.map((d: { loc: string[] }) => d.loc[1]).sort()).to.deep.equal(['key', 'label']);
    const rule = await t.api.post(
      '/relationship-rules',
      { edge_label: 'NOPE', from_label: 'Well', to_label: 'Alien' },
      power,
    );
    expect(rule.status).to.equal(422);
    expect(rule.body.detail.map((d: { loc: string[] }) => d.loc[1]).sort()).to.deep.equal(['edge_label', 'to_label']);
  });

  it('a type in use cannot be removed; an unused one can, and its label is refused afterwards', async () => {
    expect((await t.api.delete('/entity-types/well', power)).status).to.equal(409);
    await t.api.post('/entity-types', { key: 'drone', label: 'Drone', display_name: 'Drone' }, power);
    expect((await t.api.delete('/entity-types/drone', power)).status).to.equal(204);
    expect((await t.api.post('/graph/entities', { label: 'Drone', properties: {} }, operator)).status).to.equal(422);
    expect((await t.api.delete('/entity-types/drone', power)).status).to.equal(404);
  });

  it('removing a rule refuses new edges of that shape', async () => {
    const [rule] = (await t.api.get('/relationship-rules?edge_label=HAS_CONVERSATION')).body.relationship_rules;
    expect((await t.api.delete(`/relationship-rules/${rule.id}`, power)).status).to.equal(204);
    const well = (await t.api.post('/graph/entities', { label: 'Well', properties: {} }, operator)).body;
    const chat = (
      await t.api.post('/graph/entities', { label: 'WellConversation', properties: { title: 'x' } }, operator)
    ).body;
    const edge = await t.api.post(
      '/graph/edges',
      {
        from_label: 'Well',
        from_id: well.id,
        to_label: 'WellConversation',
        to_id: chat.id,
        edge_label: 'HAS_CONVERSATION',
      },
      operator,
    );
    expect(edge.status).to.equal(422);
  });
});
