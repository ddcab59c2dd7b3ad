import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { eventTypeAggregate } from '../../../streams/monitoring/event-type';
import { signIn, type Session } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

/** Operational events: event types, fields, lifecycle, conditional and guard rules. */
describe('event types API', () => {
  let t: TestPlatform;

  before(async () => {
    t = await startTestPlatform();
  });
  after(() => t.close());

  async function tenant(): Promise<{ power: Session; operator: Session; admin: Session; tenantId: string }> {
    const tenantId = randomUUID();
    return {
      tenantId,
      power: await signIn(t, { roles: ['power_user'], tenantId }),
      operator: await signIn(t, { roles: ['operator'], tenantId }),
      admin: await signIn(t, { roles: ['admin'], tenantId }),
    };
  }

  const flaringType = {
    name: 'Unplanned flaring',
    description: 'Flaring outside the authorization',
    category: 'flaring',
    fields: [
      { name: 'volume_mcf', type: 'number', required: true },
      { name: 'cause', type: 'select', options: ['upset', 'maintenance', 'other'], required: true },
      { name: 'cause_detail', type: 'text', required: true },
    ],
  };

  it('a power user creates a type in draft with typed fields; an operator may read it but not create one', async () => {
    const { power, operator } = await tenant();
    const created = await t.api.post('/event-types', flaringType, power.headers);
    expect(created.status).to.equal(201);
    expect(created.body).to.include({
      name: 'Unplanned flaring',
      status: 'draft',
      category: 'flaring',
      in_use: false,
      compliance_domain: null,
    });
    expect(created.body.fields.map((f: { name: string; type: string }) => [f.name, f.type])).to.deep.equal([
      ['volume_mcf', 'number'],
      ['cause', 'select'],
      ['cause_detail', 'text'],
    ]);
    expect(created.body.fields[1].options).to.deep.equal(['upset', 'maintenance', 'other']);
    const read = await t.api.get(`/event-types/${created.body.id}`, operator.headers);
    expect(read.status).to.equal(200);
    expect(read.body).to.deep.equal(created.body);
    const list = await t.api.get('/event-types', operator.headers);
    expect(list.body.map((x: { id: string }) => x.id)).to.deep.equal([created.body.id]);
    const denied = await t.api.post('/event-types', { ...flaringType, name: 'Other' }, operator.headers);
    expect(denied.status).to.equal(403);
  });

  it('a select field without options, or a field of an unknown type, answers 422 naming the field', async () => {
    const { power } = await tenant();
    const noOptions = await t.api.post(
      '/event-types',
      { name: 'X', fields: [{ name: 'cause', type: 'select' }] },
      power.headers,
    );
    expect(noOptions.status).to.equal(422);
    expect(noOptions.body.detail[0].loc).to.deep.equal(['body', 'fields', 0, 'options']);
    const badType = await t.api.post(
      '/event-types',
      { name: 'X', fields: [{ name: 'cause', type: 'colour' }] },
      power.headers,
    );
    expect(badType.status).to.equal(422);
    expect(badType.body.detail[0].loc).to.deep.equal(['body', 'fields', 0, 'type']);
  });

  it('type names are unique per tenant, case-insensitively; another tenant may reuse one', async () => {
    const a = await tenant();
    const b = await tenant();
    expect((await t.api.post('/event-types', flaringType, a.power.headers)).status).to.equal(201);
    expect(
      (await t.api.post('/event-types', { ...flaringType, name: 'UNPLANNED FLARING' }, a.power.headers)).status,
    ).to.equal(409);
    expect((await t.api.post('/event-types', flaringType, b.power.headers)).status).to.equal(201);
  });

  it("another tenant's type answers 404 like a missing one", async () => {
    const a = await tenant();
    const b = await tenant();
    const created = await t.api.post('/event-types', flaringType, a.power.headers);
    expect((await t.api.get(`/event-types/${created.body.id}`, b.operator.headers)).status).to.equal(404);
    expect((await t.api.patch(`/event-types/${created.body.id}`, { name: 'Mine' }, b.power.headers)).status).to.equal(
      404,
    );
  });

  it('fields are added, updated, reordered and removed', async () => {
    const { power, operator } = await tenant();
    const type = (await t.api.post('/event-types', flaringType, power.headers)).body;
    const added = await t.api.post(
      `/event-types/${type.id}/fields`,
      { name: 'observed_on', type: 'date' },
      power.headers,
    );
    expect(added.status).to.equal(201);
    expect(added.body).to.include({ name: 'observed_on', type: 'date', required: false });
    const duplicate = await t.api.post(
      `/event-types/${type.id}/fields`,
      { name: 'observed_on', type: 'text' },
      power.headers,
    );
    expect(duplicate.status).to.equal(409);
    const updated = await t.api.patch(
      `/event-types/${type.id}/fields/${added.body.id}`,
      { required: true, label: 'Observed on' },
      power.headers,
    );
    expect(updated.body).to.include({ required: true, label: 'Observed on', type: 'date' });
    const ids = [added.body.id, ...type.fields.map((f: { id: string }) => f.id)];
    const reordered = await t.api.put(`/event-types/${type.id}/fields/reorder`, { field_ids: ids }, power.headers);
    expect(reordered.status).to.equal(200);
    expect(reordered.body.map((f: { id: string }) => f.id)).to.deep.equal(ids);
    const partial = await t.api.put(
      `/event-types/${type.id}/fields/reorder`,
      { field_ids: ids.slice(1) },
      power.headers,
    );
    expect(partial.status).to.equal(422);
    expect((await t.api.delete(`/event-types/${type.id}/fields/${added.body.id}`, power.headers)).status).to.equal(204);
    const fields = await t.api.get(`/event-types/${type.id}/fields`, operator.headers);
    expect(fields.body.map((f: { name: string }) => f.name)).to.deep.equal(['volume_mcf', 'cause', 'cause_detail']);
    expect(
      (await t.api.patch(`/event-types/${type.id}/fields/${added.body.id}`, { required: false }, power.headers)).status,
    ).to.equal(404);
  });

  it('the lifecycle goes draft → active → deprecated → retired; other moves answer 409 with the allowed ones', async () => {
    const { power } = await tenant();
    const type = (await t.api.post('/event-types', flaringType, power.headers)).body;
    const skip = await t.api.post(`/event-types/${type.id}/transition`, { status: 'retired' }, power.headers);
    expect(skip.status).to.equal(409);
    expect(skip.body).to.include({ status: 'draft' });
    expect(skip.body.allowed_transitions).to.deep.equal(['active']);
    for (const status of ['active', 'deprecated', 'active', 'deprecated', 'retired']) {
      const moved = await t.api.post(`/event-types/${type.id}/transition`, { status }, power.headers);
      expect(moved.status, status).to.equal(200);
      expect(moved.body.status).to.equal(status);
    }
    const frozen = await t.api.post(`/event-types/${type.id}/fields`, { name: 'late', type: 'text' }, power.headers);
    expect(frozen.status).to.equal(409);
    expect(
      (await t.api.post(`/event-types/${type.id}/transition`, { status: 'paused' }, power.headers)).status,
    ).to.equal(422);
  });

  it('an unused type is deleted and its name freed; a referenced one answers 409', async () => {
    const { power, tenantId } = await tenant();
    const type = (await t.api.post('/event-types', flaringType, power.headers)).body;
    expect((await t.api.delete(`/event-types/${type.id}`, power.headers)).status).to.equal(204);
    expect((await t.api.get(`/event-types/${type.id}`, power.headers)).status).to.equal(404);
    expect((await t.api.post('/event-types', flaringType, power.headers)).status).to.equal(201);

    const used = (
      await t.api.post('/event-types', { name: 'Used', fields: [{ name: 'note', type: 'text' }] }, power.headers)
    ).body;
    await t.api.post(`/event-types/${used.id}/transition`, { status: 'active' }, power.headers);
    const logged = await t.api.post(
      '/events',
      {
        event_type_id: used.id,
        entity_id: '42-123-45678',
        entity_type: 'Well',
        occurred_at: '2026-03-01T10:00:00Z',
        fields: { note: 'x' },
      },
      power.headers,
    );
    expect(logged.status).to.equal(201);
    const refused = await t.api.delete(`/event-types/${used.id}`, power.headers);
    expect(refused.status).to.equal(409);
    expect(refused.body.detail).to.match(/reference/);
    expect((await t.api.get(`/event-types/${used.id}`, power.headers)).body.in_use).to.equal(true);
    // The decision is the type stream's own mark, written with the first event.
    const types = (await t.deps.store.readStream(eventTypeAggregate.stream(tenantId, used.id))).map((e) => e.type);
    expect(types.filter((x) => x === 'EventTypeReferenced')).to.have.length(1);
  });

  it('a delete racing the first logged events never leaves an event whose type is gone', async () => {
    const { power, operator } = await tenant();
    for (let round = 0; round < 3; round++) {
      const type = (await t.api.post('/event-types', { name: `Race ${round}`, fields: [] }, power.headers)).body;
      await t.api.post(`/event-types/${type.id}/transition`, { status: 'active' }, power.headers);
      const body = {
        event_type_id: type.id,
        entity_id: 'W-1',
        entity_type: 'Well',
        occurred_at: '2026-03-01T10:00:00Z',
        fields: {},
      };
      const [deleted, ...logs] = await Promise.all([
        t.api.delete(`/event-types/${type.id}`, power.headers),
        ...Array.from({ length: 3 }, () => t.api.post('/events', body, operator.headers)),
      ]);
      const accepted = logs.filter((r) => r.status === 201).length;
      const total = (await t.api.get(`/events?event_type_id=${type.id}`, operator.headers)).body.total;
      expect(total).to.equal(accepted);
      if (deleted.status === 204) {
        expect(accepted, 'events logged against a deleted type').to.equal(0);
      } else {
        expect(deleted.status).to.equal(409);
        expect(accepted).to.be.greaterThan(0);
      }
    }
  });

  it('conditional rules are validated against the fields and block renaming a field they use', async () => {
    const { power } = await tenant();
    const type = (await t.api.post('/event-types', flaringType, power.headers)).body;
    const unknown = await t.api.post(
      `/event-types/${type.id}/conditional-rules`,
      { field: 'cause_detail', effect: 'show', when: { field: 'nope', operator: 'equals', value: 'other' } },
      power.headers,
    );
    expect(unknown.status).to.equal(422);
    expect(unknown.body.detail[0].loc).to.deep.equal(['body', 'when', 'field']);
    const badOption = await t.api.post(
      `/event-types/${type.id}/conditional-rules`,
      { field: 'cause_detail', effect: 'show', when: { field: 'cause', operator: 'equals', value: 'sabotage' } },
      power.headers,
    );
    expect(badOption.status).to.equal(422);
    const rule = await t.api.post(
      `/event-types/${type.id}/conditional-rules`,
      { field: 'cause_detail', effect: 'show', when: { field: 'cause', operator: 'equals', value: 'other' } },
      power.headers,
    );
    expect(rule.status).to.equal(201);
    expect(rule.body).to.include({ field: 'cause_detail', effect: 'show' });
    const causeId = type.fields[1].id;
    const rename = await t.api.patch(`/event-types/${type.id}/fields/${causeId}`, { name: 'reason' }, power.headers);
    expect(rename.status).to.equal(409);
    const patched = await t.api.patch(
      `/event-types/${type.id}/conditional-rules/${rule.body.id}`,
      { effect: 'hide' },
      power.headers,
    );
    expect(patched.body.effect).to.equal('hide');
    expect((await t.api.get(`/event-types/${type.id}/conditional-rules`, power.headers)).body).to.have.length(1);
    expect(
      (await t.api.delete(`/event-types/${type.id}/conditional-rules/${rule.body.id}`, power.headers)).status,
    ).to.equal(204);
    expect(
      (await t.api.patch(`/event-types/${type.id}/fields/${causeId}`, { name: 'reason' }, power.headers)).status,
    ).to.equal(200);
  });

  it('guard rules are drafts until published; each publish is a new version', async () => {
    const { power, operator } = await tenant();
    const type = (await t.api.post('/event-types', flaringType, power.headers)).body;
    const rule = await t.api.post(
      `/event-types/${type.id}/guard-rules`,
      { name: 'Volume cap', field: 'volume_mcf', operator: 'lte', value: 5000 },
      power.headers,
    );
    expect(rule.status).to.equal(201);
    expect(rule.body).to.include({ published_version: 0, published: null, has_unpublished_changes: true });
    const v1 = await t.api.post(
      `/event-types/${type.id}/guard-rules/${rule.body.id}/publish`,
      undefined,
      power.headers,
    );
    expect(v1.body).to.include({ published_version: 1, has_unpublished_changes: false });
    const edited = await t.api.patch(
      `/event-types/${type.id}/guard-rules/${rule.body.id}`,
      { value: 2000 },
      power.headers,
    );
    expect(edited.body.draft.value).to.equal(2000);
    expect(edited.body.published.value).to.equal(5000);
    const v2 = await t.api.post(
      `/event-types/${type.id}/guard-rules/${rule.body.id}/publish`,
      undefined,
      power.headers,
    );
    expect(v2.body.published_version).to.equal(2);
    const versions = await t.api.get(`/event-types/${type.id}/guard-rules/${rule.body.id}/versions`, operator.headers);
    expect(
      versions.body.map((v: { version: number; definition: { value: number } }) => [v.version, v.definition.value]),
    ).to.deep.equal([
      [1, 5000],
      [2, 2000],
    ]);
    const wrongType = await t.api.post(
      `/event-types/${type.id}/guard-rules`,
      { name: 'Bad', field: 'cause', operator: 'gt', value: 1 },
      power.headers,
    );
    expect(wrongType.status).to.equal(422);
    expect(
      (
        await t.api.post(
          `/event-types/${type.id}/guard-rules`,
          { name: 'X', field: 'volume_mcf', operator: 'lte', value: 1 },
          operator.headers,
        )
      ).status,
    ).to.equal(403);
  });
});
