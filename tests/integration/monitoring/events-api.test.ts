import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { operationalEventAggregate } from '../../../streams/monitoring/operational-event';
import { signIn, type Session } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

/** Operational events: logging, validation, guard and conditional rules, history, correlation, anomalies. */
describe('operational events API', () => {
  let t: TestPlatform;

  before(async () => {
    t = await startTestPlatform();
  });
  after(() => t.close());

  interface Tenant {
    power: Session;
    operator: Session;
    tenantId: string;
  }
  async function tenant(): Promise<Tenant> {
    const tenantId = randomUUID();
    return {
      tenantId,
      power: await signIn(t, { roles: ['power_user'], tenantId }),
      operator: await signIn(t, { roles: ['operator'], tenantId }),
    };
  }

  async function activeType(s: Tenant, body: Record<string, unknown>) {
    const created = await t.api.post('/event-types', body, s.power.headers);
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    await t.api.post(`/event-types/${created.body.id}/transition`, { status: 'active' }, s.power.headers);
    return created.body;
  }

  const allTypes = {
    name: 'Field check',
    fields: [
      { name: 'pressure_psi', type: 'number' },
      { name: 'mode', type: 'select', options: ['auto', 'manual'] },
      { name: 'note', type: 'text' },
      { name: 'inspected_on', type: 'date' },
      { name: 'started_at', type: 'datetime' },
      { name: 'shut_in', type: 'boolean' },
      { name: 'facility', type: 'entity_ref', entity_type: 'Facility' },
    ],
  };

  const event = (typeId: string, fields: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    event_type_id: typeId,
    entity_id: '42-329-30001',
    entity_type: 'Well',
    occurred_at: '2026-03-01T10:00:00Z',
    fields,
    ...extra,
  });

  it('an event with every field type is logged (201) and read back', async () => {
    const s = await tenant();
    const type = await activeType(s, allTypes);
    const fields = {
      pressure_psi: 812.5,
      mode: 'manual',
      note: 'ok',
      inspected_on: '2026-02-28',
      started_at: '2026-03-01T09:30:00-06:00',
      shut_in: false,
      facility: 'TB-7',
    };
    const logged = await t.api.post('/events', event(type.id, fields), s.operator.headers);
    expect(logged.status).to.equal(201);
    expect(logged.body).to.include({
      event_type_id: type.id,
      entity_id: '42-329-30001',
      entity_type: 'Well',
      occurred_at: '2026-03-01T10:00:00.000Z',
      version: 1,
      suppressed: false,
      logged_by: s.operator.userId,
    });
    expect(logged.body.fields).to.deep.equal(fields);
    const read = await t.api.get(`/events/${logged.body.id}`, s.operator.headers);
    expect(read.body.fields).to.deep.equal(fields);
  });

  it('an unknown field, a wrong type and a select value outside its options answer 422 naming each field', async () => {
    const s = await tenant();
    const type = await activeType(s, allTypes);
    const response = await t.api.post(
      '/events',
      event(type.id, { colour: 'red', pressure_psi: '812', mode: 'turbo', inspected_on: '2026-02-30', shut_in: 'no' }),
      s.operator.headers,
    );
    expect(response.status).to.equal(422);
    const byField = Object.fromEntries(
      response.body.detail.map((d: { loc: string[]; type: string }) => [d.loc.join('.'), d.type]),
    );
    expect(byField).to.deep.equal({
      'body.fields.colour': 'unknown_field',
      'body.fields.pressure_psi': 'wrong_type',
      'body.fields.mode': 'invalid_option',
      'body.fields.inspected_on': 'wrong_type',
      'body.fields.shut_in': 'wrong_type',
    });
    expect((await t.api.get(`/events?event_type_id=${type.id}`, s.operator.headers)).body.total).to.equal(0);
  });

  it('an unknown type answers 422 naming event_type_id; a draft or deprecated type answers 409', async () => {
    const s = await tenant();
    const unknown = await t.api.post('/events', event(randomUUID(), {}), s.operator.headers);
    expect(unknown.status).to.equal(422);
    expect(unknown.body.detail[0].loc).to.deep.equal(['body', 'event_type_id']);
    const draft = (await t.api.post('/event-types', { name: 'Draft', fields: [] }, s.power.headers)).body;
    const refused = await t.api.post('/events', event(draft.id, {}), s.operator.headers);
    expect(refused.status).to.equal(409);
    expect(refused.body.detail).to.match(/only active/);
    await t.api.post(`/event-types/${draft.id}/transition`, { status: 'active' }, s.power.headers);
    expect((await t.api.post('/events', event(draft.id, {}), s.operator.headers)).status).to.equal(201);
    await t.api.post(`/event-types/${draft.id}/transition`, { status: 'deprecated' }, s.power.headers);
    expect((await t.api.post('/events', event(draft.id, {}), s.operator.headers)).status).to.equal(409);
  });

  it('a required field hidden by a conditional rule is not required, and a value sent for it is dropped', async () => {
    const s = await tenant();
    const type = await activeType(s, {
      name: 'Flaring',
      fields: [
        { name: 'cause', type: 'select', options: ['upset', 'other'], required: true },
        { name: 'cause_detail', type: 'text', required: true },
      ],
    });
    await t.api.post(
      `/event-types/${type.id}/conditional-rules`,
      { field: 'cause_detail', effect: 'show', when: { field: 'cause', operator: 'equals', value: 'other' } },
      s.power.headers,
    );
    const upset = await t.api.post(
      '/events',
      event(type.id, { cause: 'upset', cause_detail: 'ignored' }),
      s.operator.headers,
    );
    expect(upset.status).to.equal(201);
    expect(upset.body.fields).to.deep.equal({ cause: 'upset' });
    expect(upset.body.hidden_fields).to.deep.equal(['cause_detail']);
    const other = await t.api.post('/events', event(type.id, { cause: 'other' }), s.operator.headers);
    expect(other.status).to.equal(422);
    expect(other.body.detail).to.deep.equal([
      { loc: ['body', 'fields', 'cause_detail'], msg: 'cause_detail is required', type: 'missing' },
    ]);
  });

  it('a published guard rule refuses an event with 422 naming the rule and the field; an unpublished draft does not', async () => {
    const s = await tenant();
    const type = await activeType(s, {
      name: 'Venting',
      fields: [{ name: 'volume_mcf', type: 'number', required: true }],
    });
    const rule = (
      await t.api.post(
        `/event-types/${type.id}/guard-rules`,
        {
          name: 'Volume cap',
          field: 'volume_mcf',
          operator: 'lte',
          value: 500,
          message: 'volume above the permitted 500 mcf',
        },
        s.power.headers,
      )
    ).body;
    expect((await t.api.post('/events', event(type.id, { volume_mcf: 900 }), s.operator.headers)).status).to.equal(201);
    await t.api.post(`/event-types/${type.id}/guard-rules/${rule.id}/publish`, undefined, s.power.headers);
    const refused = await t.api.post(
      '/events',
      event(type.id, { volume_mcf: 900 }, { occurred_at: '2026-03-02T10:00:00Z' }),
      s.operator.headers,
    );
    expect(refused.status).to.equal(422);
    expect(refused.body.detail[0]).to.include({ type: 'guard_rule_failed' });
    expect(refused.body.detail[0].loc).to.deep.equal(['body', 'fields', 'volume_mcf']);
    expect(refused.body.detail[0].msg).to.contain('Volume cap').and.contain('volume above the permitted 500 mcf');
    expect(refused.body.failed_rules).to.deep.equal([
      {
        rule_id: rule.id,
        rule_name: 'Volume cap',
        rule_version: 1,
        field: 'volume_mcf',
        message: 'volume above the permitted 500 mcf',
      },
    ]);
    expect((await t.api.post('/events', event(type.id, { volume_mcf: 400 }), s.operator.headers)).status).to.equal(201);
  });

  it('GET /events filters by entity, type and time and pages newest first', async () => {
    const s = await tenant();
    const a = await activeType(s, { name: 'A', fields: [] });
    const b = await activeType(s, { name: 'B', fields: [] });
    for (let day = 1; day <= 5; day++) {
      await t.api.post('/events', event(a.id, {}, { occurred_at: `2026-04-0${day}T08:00:00Z` }), s.operator.headers);
      await t.api.post(
        '/events',
        event(b.id, {}, { entity_id: 'W-2', occurred_at: `2026-04-0${day}T09:00:00Z` }),
        s.operator.headers,
      );
    }
    const all = await t.api.get('/events?limit=3', s.operator.headers);
    expect(all.body).to.include({ total: 10, limit: 3, offset: 0 });
    expect(all.body.events.map((e: { occurred_at: string }) => e.occurred_at)).to.deep.equal([
      '2026-04-05T09:00:00.000Z',
      '2026-04-05T08:00:00.000Z',
      '2026-04-04T09:00:00.000Z',
    ]);
    const page2 = await t.api.get('/events?limit=3&offset=3', s.operator.headers);
    expect(page2.body.events[0].occurred_at).to.equal('2026-04-04T08:00:00.000Z');
    const filtered = await t.api.get(
      `/events?entity_id=W-2&from_date=2026-04-02T00:00:00Z&to_date=2026-04-04T09:00:00Z`,
      s.operator.headers,
    );
    expect(filtered.body.total).to.equal(3);
    expect(filtered.body.events.every((e: { event_type_id: string }) => e.event_type_id === b.id)).to.equal(true);
    expect((await t.api.get(`/events?event_type_id=${a.id}`, s.operator.headers)).body.total).to.equal(5);
    expect((await t.api.get('/events?from_date=yesterday', s.operator.headers)).status).to.equal(422);
    const other = await tenant();
    expect((await t.api.get('/events', other.operator.headers)).body.total).to.equal(0);
  });

  it('PATCH corrects an event, validates again and keeps every version in ?history=true', async () => {
    const s = await tenant();
    const type = await activeType(s, {
      name: 'Reading',
      fields: [
        { name: 'psi', type: 'number', required: true },
        { name: 'note', type: 'text' },
      ],
    });
    const logged = (await t.api.post('/events', event(type.id, { psi: 100, note: 'first' }), s.operator.headers)).body;
    const patched = await t.api.patch(
      `/events/${logged.id}`,
      { fields: { psi: 120, note: null }, occurred_at: '2026-03-01T11:00:00Z' },
      s.operator.headers,
    );
    expect(patched.status).to.equal(200);
    expect(patched.body).to.include({ version: 2, occurred_at: '2026-03-01T11:00:00.000Z' });
    expect(patched.body.fields).to.deep.equal({ psi: 120 });
    const bad = await t.api.patch(`/events/${logged.id}`, { fields: { psi: 'high' } }, s.operator.headers);
    expect(bad.status).to.equal(422);
    expect(bad.body.detail[0].loc).to.deep.equal(['body', 'fields', 'psi']);
    const withHistory = await t.api.get(`/events/${logged.id}?history=true`, s.operator.headers);
    expect(
      withHistory.body.history.map((h: { version: number; action: string }) => [h.version, h.action]),
    ).to.deep.equal([
      [1, 'logged'],
      [2, 'updated'],
    ]);
    expect(withHistory.body.history[1].changes).to.deep.equal([
      { field: 'occurred_at', from: '2026-03-01T10:00:00Z', to: '2026-03-01T11:00:00Z' },
      { field: 'fields.note', from: 'first', to: null },
      { field: 'fields.psi', from: 100, to: 120 },
    ]);
    expect(withHistory.body.history[0].snapshot.fields).to.deep.equal({ psi: 100, note: 'first' });
    expect((await t.api.get(`/events/${logged.id}`, s.operator.headers)).body).to.not.have.property('history');
    const other = await tenant();
    expect((await t.api.patch(`/events/${logged.id}`, { fields: { psi: 1 } }, other.operator.headers)).status).to.equal(
      404,
    );
  });

  it('correlate returns events of the same entity and of its graph neighbours within the window', async () => {
    const s = await tenant();
    const type = await activeType(s, { name: 'Alarm', fields: [] });
    const well = (
      await t.api.post(
        '/graph/entities',
        { label: 'Well', properties: { entity_id: 'W-100', api_number: '42-329-30100' } },
        s.power.headers,
      )
    ).body;
    const lease = (
      await t.api.post(
        '/graph/entities',
        { label: 'Lease', properties: { entity_id: 'L-100', name: 'JONES' } },
        s.power.headers,
      )
    ).body;
    await t.api.post(
      '/graph/entities',
      { label: 'Lease', properties: { entity_id: 'L-999', name: 'FAR AWAY' } },
      s.power.headers,
    );
    const edge = await t.api.post(
      '/graph/edges',
      { from_label: 'Well', from_id: well.id, to_label: 'Lease', to_id: lease.id, edge_label: 'LOCATED_IN' },
      s.power.headers,
    );
    expect(edge.status, JSON.stringify(edge.body)).to.equal(201);
    const log = async (entity: string, entityType: string, at: string) =>
      (
        await t.api.post(
          '/events',
          event(type.id, {}, { entity_id: entity, entity_type: entityType, occurred_at: at }),
          s.operator.headers,
        )
      ).body;
    const anchor = await log('W-100', 'Well', '2026-05-10T12:00:00Z');
    const sameEntity = await log('W-100', 'Well', '2026-05-10T18:00:00Z');
    const neighbour = await log('L-100', 'Lease', '2026-05-09T20:00:00Z');
    await log('W-100', 'Well', '2026-05-13T12:00:00Z'); // outside the window
    await log('L-999', 'Lease', '2026-05-10T12:30:00Z'); // not a neighbour
    const result = await t.api.post(`/events/${anchor.id}/correlate`, { window_hours: 24 }, s.operator.headers);
    expect(result.status).to.equal(200);
    expect(result.body.window).to.deep.equal({
      from: '2026-05-09T12:00:00.000Z',
      to: '2026-05-11T12:00:00.000Z',
      hours: 24,
    });
    expect(result.body.neighbors).to.deep.equal([
      { entity_id: 'L-100', label: 'Lease', edge_label: 'LOCATED_IN', direction: 'out' },
    ]);
    expect(
      result.body.related.map((e: { id: string; relation: string; offset_seconds: number }) => [
        e.id,
        e.relation,
        e.offset_seconds,
      ]),
    ).to.deep.equal([
      [neighbour.id, 'graph_neighbor', -16 * 3600],
      [sameEntity.id, 'same_entity', 6 * 3600],
    ]);
    const sameOnly = await t.api.post(
      `/events/${anchor.id}/correlate`,
      { window_hours: 24, include_neighbors: false },
      s.operator.headers,
    );
    expect(sameOnly.body.related.map((e: { id: string }) => e.id)).to.deep.equal([sameEntity.id]);
    expect((await t.api.post(`/events/${randomUUID()}/correlate`, {}, s.operator.headers)).status).to.equal(404);
  });

  it('a type with a compliance domain appends ComplianceAnomalyFlagged in the same stream write as the event', async () => {
    const s = await tenant();
    const type = await activeType(s, {
      name: 'Flaring anomaly',
      category: 'flaring',
      compliance_domain: 'rule_32',
      anomaly_kind: 'flared_without_authorization',
      fields: [{ name: 'volume_mcf', type: 'number', required: true }],
    });
    expect(type.compliance_domain).to.equal('rule_32');
    const logged = (await t.api.post('/events', event(type.id, { volume_mcf: 1500 }), s.operator.headers)).body;
    expect(logged.anomaly_flagged).to.equal(true);
    const stored = await t.deps.store.readStream(operationalEventAggregate.stream(s.tenantId, logged.id));
    expect(stored.map((e) => e.type)).to.deep.equal(['OperationalEventLogged', 'ComplianceAnomalyFlagged']);
    expect(stored[1].position.commit).to.equal(stored[0].position.commit);
    expect(stored[1].data).to.deep.equal({
      entityId: '42-329-30001',
      entityLabel: 'Well',
      domain: 'rule_32',
      kind: 'flared_without_authorization',
      detail: 'Flaring anomaly logged for Well 42-329-30001: volume_mcf=1500',
      observedAt: '2026-03-01T10:00:00Z',
      source: 'operational_event',
    });
    const plain = await activeType(s, { name: 'Routine', fields: [] });
    const routine = (await t.api.post('/events', event(plain.id, {}), s.operator.headers)).body;
    expect(routine.anomaly_flagged).to.equal(false);
    expect(
      (await t.deps.store.readStream(operationalEventAggregate.stream(s.tenantId, routine.id))).map((e) => e.type),
    ).to.deep.equal(['OperationalEventLogged']);
  });

  it('a type created with status active accepts events at once', async () => {
    const s = await tenant();
    const type = (
      await t.api.post(
        '/event-types',
        { name: 'Ready', status: 'active', fields: [{ name: 'n', type: 'number' }] },
        s.power.headers,
      )
    ).body;
    expect(type.status).to.equal('active');
    expect((await t.api.post('/events', event(type.id, { n: 1 }), s.operator.headers)).status).to.equal(201);
  });

  it('a retried POST with the same Idempotency-Key logs one event', async () => {
    const s = await tenant();
    const type = await activeType(s, { name: 'Once', fields: [] });
    const headers = { ...s.operator.headers, 'idempotency-key': `log-${randomUUID()}` };
    const first = await t.api.post('/events', event(type.id, {}), headers);
    const again = await t.api.post('/events', event(type.id, {}), headers);
    expect(first.status).to.equal(201);
    expect(again.status).to.equal(200);
    expect(again.body.id).to.equal(first.body.id);
    expect((await t.api.get(`/events?event_type_id=${type.id}`, s.operator.headers)).body.total).to.equal(1);
  });
});
