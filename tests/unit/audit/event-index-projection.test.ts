import { expect } from 'chai';
import { AUDIT_INDEX_TABLE, auditEventIndexProjector } from '../../../projections/audit/event-index';
import { projectionSpec } from '../../support/specs';

describe('audit event index (projection)', () => {
  it('indexes every event, of any context, by tenant, stream, actor, request and time, without its payload', async () => {
    await projectionSpec(auditEventIndexProjector)
      .given([
        {
          stream: 'identity.user-t1-u1',
          type: 'UserInvited',
          data: { email: 'ann@example.com' },
          metadata: { tenantId: 't1', actorId: 'a1', correlationId: 'req-1' },
        },
        {
          stream: 'identity.user-t1-u1',
          type: 'RolesChanged',
          data: { roles: ['reviewer'] },
          metadata: { tenantId: 't1', actorId: 'a2', correlationId: 'req-2' },
          recordedAt: new Date('2026-03-04T08:00:00Z'),
        },
        {
          stream: 'someday.thing-t2-x',
          type: 'ThingHappened',
          data: {},
          metadata: { tenantId: 't2', actorId: 'a1', correlationId: 'req-3' },
        },
      ])
      .then(async (knex) => {
        const rows = await knex(AUDIT_INDEX_TABLE)
          .select('tenant_id', 'stream', 'revision', 'type', 'actor_id', 'correlation_id', 'recorded_at')
          .orderBy(['commit', 'prepare']);
        expect(
          rows.map((r) => [r.tenant_id, r.stream, String(r.revision), r.type, r.actor_id, r.correlation_id]),
        ).to.deep.equal([
          ['t1', 'identity.user-t1-u1', '0', 'UserInvited', 'a1', 'req-1'],
          ['t1', 'identity.user-t1-u1', '1', 'RolesChanged', 'a2', 'req-2'],
          ['t2', 'someday.thing-t2-x', '0', 'ThingHappened', 'a1', 'req-3'],
        ]);
        expect(new Date(rows[1].recorded_at).toISOString()).to.equal('2026-03-04T08:00:00.000Z');
        const columns = Object.keys(await knex(AUDIT_INDEX_TABLE).columnInfo());
        expect(columns).not.to.include('data');
      });
  });
});
