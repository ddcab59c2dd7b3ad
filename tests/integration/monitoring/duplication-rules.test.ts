import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { duplicateKey, logEvent, type LogEvent } from '../../../commands/monitoring/log-event';
import { withScope } from '../../../src/platform/http/request-scope';
import { duplicateKeyStream, type DuplicationRule } from '../../../streams/monitoring/duplication-rules';
import { signIn, type Session } from '../../support/auth';
import { startSecondInstance, startTestPlatform, type TestPlatform } from '../../support/platform';
import { httpClient } from '../../support/http';

/** Duplication rules exist only on the monitoring service's internal listener. */
describe('duplication rules (internal listener)', () => {
  let t: TestPlatform;

  before(async () => {
    t = await startTestPlatform();
  });
  after(() => t.close());

  async function setup() {
    const tenantId = randomUUID();
    const power: Session = await signIn(t, { roles: ['power_user'], tenantId });
    const operator: Session = await signIn(t, { roles: ['operator'], tenantId });
    const type = (
      await t.api.post(
        '/event-types',
        {
          name: 'SCADA alarm',
          fields: [
            { name: 'metric', type: 'text', required: true },
            { name: 'value', type: 'number' },
          ],
        },
        power.headers,
      )
    ).body;
    await t.api.post(`/event-types/${type.id}/transition`, { status: 'active' }, power.headers);
    const internal = { 'x-tenant-id': tenantId };
    return { tenantId, power, operator, type, internal };
  }

  const alarm = (typeId: string, at: string, metric = 'casing_pressure', entity = '42-329-30001') => ({
    event_type_id: typeId,
    entity_id: entity,
    entity_type: 'Well',
    occurred_at: at,
    fields: { metric, value: 1 },
  });

  it('the public gateway answers 404 for every duplication-rule path', async () => {
    const { power } = await setup();
    expect((await t.api.get('/duplication-rules', power.headers)).status).to.equal(404);
    expect((await t.api.post('/duplication-rules', { name: 'x', window_seconds: 60 }, power.headers)).status).to.equal(
      404,
    );
    expect((await t.api.post('/duplication-rules/reset', {}, power.headers)).status).to.equal(404);
  });

  it('a duplicate within the window is suppressed and the response says so; outside it, or with other keys, events are logged', async () => {
    const { operator, type, internal } = await setup();
    const created = await t.internal.post(
      '/duplication-rules',
      {
        name: 'Same alarm per well',
        event_type_id: type.id,
        match_fields: ['entity_id', 'metric'],
        window_seconds: 3600,
      },
      internal,
    );
    expect(created.status).to.equal(201);
    expect(created.body).to.include({
      name: 'Same alarm per well',
      event_type_id: type.id,
      window_seconds: 3600,
      enabled: true,
      generation: 0,
    });
    const first = await t.api.post('/events', alarm(type.id, '2026-06-01T10:00:00Z'), operator.headers);
    expect(first.status).to.equal(201);
    const dup = await t.api.post('/events', alarm(type.id, '2026-06-01T10:30:00Z'), operator.headers);
    expect(dup.status).to.equal(200);
    expect(dup.body).to.include({
      suppressed: true,
      duplicate_of: first.body.id,
      duplicate_occurred_at: '2026-06-01T10:00:00Z',
    });
    expect(dup.body.rule).to.deep.equal({
      id: created.body.id,
      name: 'Same alarm per well',
      match_fields: ['entity_id', 'metric'],
      window_seconds: 3600,
    });
    expect(dup.body.detail).to.match(/Duplicate of event/);
    expect((await t.api.post('/events', alarm(type.id, '2026-06-01T11:30:01Z'), operator.headers)).status).to.equal(
      201,
    );
    expect(
      (await t.api.post('/events', alarm(type.id, '2026-06-01T10:30:00Z', 'tubing_pressure'), operator.headers)).status,
    ).to.equal(201);
    expect(
      (
        await t.api.post(
          '/events',
          alarm(type.id, '2026-06-01T10:30:00Z', 'casing_pressure', '42-329-30002'),
          operator.headers,
        )
      ).status,
    ).to.equal(201);
    expect((await t.api.get(`/events?event_type_id=${type.id}`, operator.headers)).body.total).to.equal(4);
  });

  it('concurrent duplicates meet on the write side: exactly one is logged', async () => {
    const { operator, type, internal } = await setup();
    await t.internal.post(
      '/duplication-rules',
      { name: 'Burst', event_type_id: type.id, window_seconds: 600 },
      internal,
    );
    const responses = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        t.api.post('/events', alarm(type.id, `2026-06-02T10:0${i}:00Z`), operator.headers),
      ),
    );
    const logged = responses.filter((r) => r.status === 201);
    const suppressed = responses.filter((r) => r.status === 200 && r.body.suppressed === true);
    expect(logged, JSON.stringify(responses.map((r) => r.status))).to.have.length(1);
    expect(suppressed).to.have.length(4);
    expect((await t.api.get(`/events?event_type_id=${type.id}`, operator.headers)).body.total).to.equal(1);
  });

  it('PATCH disables a rule; reset forgets the remembered keys; GET lists the rules', async () => {
    const { operator, type, internal } = await setup();
    const rule = (await t.internal.post('/duplication-rules', { name: 'Per well', window_seconds: 86400 }, internal))
      .body;
    expect(rule.event_type_id).to.equal(null);
    expect(rule.match_fields).to.deep.equal(['entity_id']);
    expect((await t.api.post('/events', alarm(type.id, '2026-06-03T10:00:00Z'), operator.headers)).status).to.equal(
      201,
    );
    expect(
      (await t.api.post('/events', alarm(type.id, '2026-06-03T11:00:00Z'), operator.headers)).body.suppressed,
    ).to.equal(true);
    const reset = await t.internal.post('/duplication-rules/reset', { rule_id: rule.id }, internal);
    expect(reset.status).to.equal(200);
    expect(reset.body[0]).to.include({ id: rule.id, generation: 1 });
    expect(reset.body[0].reset_at).to.be.a('string');
    expect((await t.api.post('/events', alarm(type.id, '2026-06-03T11:00:00Z'), operator.headers)).status).to.equal(
      201,
    );
    const disabled = await t.internal.patch(`/duplication-rules/${rule.id}`, { enabled: false }, internal);
    expect(disabled.body.enabled).to.equal(false);
    expect((await t.api.post('/events', alarm(type.id, '2026-06-03T11:05:00Z'), operator.headers)).status).to.equal(
      201,
    );
    const list = await t.internal.get('/duplication-rules', internal);
    expect(list.body.map((r: { id: string }) => r.id)).to.deep.equal([rule.id]);
    expect((await t.internal.patch(`/duplication-rules/${randomUUID()}`, { enabled: true }, internal)).status).to.equal(
      404,
    );
    expect((await t.internal.post('/duplication-rules', { name: 'bad', window_seconds: 0 }, internal)).status).to.equal(
      422,
    );
  });

  it('a remembered key whose event was never written (a torn EventStoreDB write) does not suppress', async () => {
    const { operator, type, internal, tenantId } = await setup();
    const view = (
      await t.internal.post(
        '/duplication-rules',
        { name: 'Per well', event_type_id: type.id, window_seconds: 3600 },
        internal,
      )
    ).body;
    const rule = { id: view.id, generation: view.generation, matchFields: view.match_fields } as DuplicationRule;
    const key = duplicateKey(rule, { eventTypeId: type.id, entityId: '42-329-30001', entityType: 'Well' }, {});
    const metadata = { tenantId, actorId: operator.userId, correlationId: randomUUID(), causationId: randomUUID() };
    await t.deps.store.append(duplicateKeyStream(tenantId, rule, key), [
      {
        type: 'DuplicateKeyAccepted',
        data: { ruleId: rule.id, eventId: randomUUID(), occurredAt: '2026-06-05T10:00:00Z' },
        metadata,
      },
    ]);
    const logged = await t.api.post('/events', alarm(type.id, '2026-06-05T10:10:00Z'), operator.headers);
    expect(logged.status).to.equal(201);
    expect((await t.api.post('/events', alarm(type.id, '2026-06-05T10:20:00Z'), operator.headers)).body).to.include({
      suppressed: true,
      duplicate_of: logged.body.id,
    });
  });

  it('two events of one keyed request on the same duplicate key are both logged, and a retry of the request logs nothing again', async () => {
    const { operator, type, internal, tenantId } = await setup();
    const view = (
      await t.internal.post(
        '/duplication-rules',
        { name: 'Per well', event_type_id: type.id, window_seconds: 3600 },
        internal,
      )
    ).body;
    const rule = { id: view.id, generation: view.generation, matchFields: view.match_fields } as DuplicationRule;
    const keyStream = duplicateKeyStream(
      tenantId,
      rule,
      duplicateKey(rule, { eventTypeId: type.id, entityId: '42-329-30001', entityType: 'Well' }, {}),
    );
    // As an agent's turn logs two alarms through its tool, hours apart (so neither suppresses the other).
    const command = (eventId: string, occurredAt: string): LogEvent => ({
      type: 'LogEvent',
      eventId,
      eventTypeId: type.id,
      entityId: '42-329-30001',
      entityType: 'Well',
      occurredAt,
      fields: { metric: 'casing_pressure', value: 1 },
      actorId: operator.userId,
    });
    const ids = [randomUUID(), randomUUID()];
    const turn = (idempotencyKey: string) =>
      withScope({ idempotencyKey }, async () => [
        await logEvent(t.deps, { tenantId, actorId: operator.userId }, command(ids[0], '2026-07-01T08:00:00Z')),
        await logEvent(t.deps, { tenantId, actorId: operator.userId }, command(ids[1], '2026-07-01T12:00:00Z')),
      ]);
    const key = `turn-${randomUUID()}`;
    const first = await turn(key);
    expect(first.map((o) => o.status)).to.deep.equal(['logged', 'logged']);
    expect(
      (await t.deps.store.readStream(keyStream)).map((e) => (e.data as { eventId: string }).eventId),
    ).to.deep.equal(ids);
    const retried = await turn(key);
    expect(retried.map((o) => o.status === 'logged' && o.replayed)).to.deep.equal([true, true]);
    expect(await t.deps.store.readStream(keyStream)).to.have.length(2);
  });

  it('rules are per tenant: another tenant sees none and is not suppressed', async () => {
    const a = await setup();
    const b = await setup();
    await t.internal.post('/duplication-rules', { name: 'A only', window_seconds: 3600 }, a.internal);
    expect((await t.internal.get('/duplication-rules', b.internal)).body).to.deep.equal([]);
    expect((await t.api.post('/events', alarm(b.type.id, '2026-06-04T10:00:00Z'), b.operator.headers)).status).to.equal(
      201,
    );
    expect((await t.api.post('/events', alarm(b.type.id, '2026-06-04T10:01:00Z'), b.operator.headers)).status).to.equal(
      201,
    );
  });

  it('a stamped identity without events.configure may not write rules on the internal listener', async () => {
    const { operator, tenantId } = await setup();
    const headers = { 'x-user-id': operator.userId, 'x-tenant-id': tenantId, 'x-permissions': 'dashboards.read' };
    expect((await t.internal.post('/duplication-rules', { name: 'x', window_seconds: 60 }, headers)).status).to.equal(
      403,
    );
    expect((await t.internal.get('/duplication-rules', headers)).status).to.equal(200);
  });

  it('an identity header past its bound (tenant, user 128 characters; permissions 4,096) is a 422 naming the header, and nothing is written', async () => {
    const { tenantId } = await setup();
    const long = 'x'.repeat(129);
    const refused = await t.internal.post(
      '/duplication-rules',
      { name: 'too long', window_seconds: 60 },
      { 'x-tenant-id': long },
    );
    expect(refused.status).to.equal(422);
    expect(refused.body.detail).to.deep.equal([
      { loc: ['header', 'x-tenant-id'], msg: 'at most 128 characters', type: 'too_long' },
    ]);
    expect(
      (await t.internal.get('/duplication-rules', { 'x-tenant-id': tenantId, 'x-user-id': long })).status,
    ).to.equal(422);
    expect((await t.internal.get('/duplication-rules', { 'x-tenant-id': tenantId })).body).to.deep.equal([]);
  });

  it('given the type and rules this instance remembers, when another instance adds a rule and then deprecates the type, then the next event here is decided from a read: suppressed, then refused', async () => {
    const { power, operator, type, internal } = await setup();
    // Logged here: this instance now knows the type and that the tenant has no rules.
    expect((await t.api.post('/events', alarm(type.id, '2026-05-01T10:00:00Z'), operator.headers)).status).to.equal(
      201,
    );
    const { platform: other, api: otherApi } = await startSecondInstance(t);
    try {
      const otherInternal = httpClient(`${other.internalUrl}/api/v1`);
      expect(
        (
          await otherInternal.post(
            '/duplication-rules',
            { name: 'Same alarm', event_type_id: type.id, match_fields: ['entity_id', 'metric'], window_seconds: 3600 },
            internal,
          )
        ).status,
      ).to.equal(201);
      expect(
        (await otherApi.post('/events', alarm(type.id, '2026-05-02T10:00:00Z'), operator.headers)).status,
      ).to.equal(201);
      // The rule, unknown to this instance until its append's check refused the remembered state.
      const duplicate = await t.api.post('/events', alarm(type.id, '2026-05-02T10:30:00Z'), operator.headers);
      expect(duplicate.status).to.equal(200);
      expect(duplicate.body).to.include({ suppressed: true });

      expect(
        (await otherApi.post(`/event-types/${type.id}/transition`, { status: 'deprecated' }, power.headers)).status,
      ).to.equal(200);
      const refused = await t.api.post(
        '/events',
        alarm(type.id, '2026-05-03T10:00:00Z', 'tubing_pressure'),
        operator.headers,
      );
      expect(refused.status).to.equal(409);
    } finally {
      await other.stop();
    }
  });
});
