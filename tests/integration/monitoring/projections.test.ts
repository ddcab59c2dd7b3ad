import { expect } from 'chai';
import type { Knex } from 'knex';
import {
  EVENT_TYPES_TABLE,
  eventTypesProjector,
  GUARD_RULE_VERSIONS_TABLE,
} from '../../../projections/monitoring/event-types';
import {
  EVENT_HISTORY_TABLE,
  EVENTS_TABLE,
  operationalEventsProjector,
} from '../../../projections/monitoring/operational-events';
import type { RecordedEvent } from '../../../src/platform/eventstore/types';
import type { Database } from '../../../src/platform/infra/database';
import type { Projector } from '../../../src/platform/projection-runner/projector';
import { eventTypeAggregate, type EventTypeEvent } from '../../../streams/monitoring/event-type';
import { operationalEventAggregate, type OperationalEventEvent } from '../../../streams/monitoring/operational-event';
import { connectTestDatabase } from '../../support/database';

/** Projection specs: given recorded events, then these rows. */
describe('monitoring projections', () => {
  let db: Database;
  let knex: Knex;
  const TENANT = 'tenant-p';
  const AT = '2026-03-01T12:00:00.000Z';
  let revision = 0n;

  before(async () => {
    db = await connectTestDatabase(2);
    knex = db.knex;
    for (const p of [eventTypesProjector, operationalEventsProjector]) {
      for (const table of p.tables) await knex.schema.dropTableIfExists(table);
      await p.createTables(knex);
    }
  });
  after(() => db.close());

  function recorded(stream: string, event: { type: string; data: unknown }): RecordedEvent {
    revision += 1n;
    return {
      id: `e${revision}`,
      stream,
      revision,
      position: { commit: revision, prepare: 0n },
      type: event.type,
      data: event.data,
      metadata: { tenantId: TENANT, actorId: 'u', correlationId: 'c', causationId: 'c', signature: 's' },
      recordedAt: new Date(AT),
    };
  }

  async function given(projector: Projector, stream: string, events: { type: string; data: unknown }[]) {
    await knex.transaction(async (trx) => {
      for (const e of events) await projector.apply(trx, recorded(stream, e));
    });
  }

  it('an event type row holds the folded definition; published guard versions get a row each; a deleted type leaves nothing', async () => {
    const stream = eventTypeAggregate.stream(TENANT, 't1');
    const draft = { field: 'v', operator: 'lte' as const, value: 5, message: null, when: null, enabled: true };
    const events: EventTypeEvent[] = [
      {
        type: 'EventTypeCreated',
        data: {
          eventTypeId: 't1',
          name: 'Vent',
          description: null,
          category: 'venting',
          complianceDomain: 'rule_32',
          anomalyKind: null,
          fields: [
            {
              id: 'f',
              name: 'v',
              type: 'number',
              required: true,
              options: null,
              label: null,
              description: null,
              entityType: null,
            },
          ],
          by: 'u',
          at: AT,
        },
      },
      { type: 'EventTypeTransitioned', data: { eventTypeId: 't1', from: 'draft', to: 'active', by: 'u', at: AT } },
      { type: 'GuardRuleAdded', data: { eventTypeId: 't1', ruleId: 'g', name: 'cap', draft, by: 'u', at: AT } },
      {
        type: 'GuardRulePublished',
        data: { eventTypeId: 't1', ruleId: 'g', name: 'cap', version: 1, definition: draft, by: 'u', at: AT },
      },
      { type: 'EventTypeReferenced', data: { eventTypeId: 't1', eventId: 'ev', at: AT } },
    ];
    await given(eventTypesProjector, stream, events);
    const row = await knex(EVENT_TYPES_TABLE).where({ tenant_id: TENANT, id: 't1' }).first();
    expect(row).to.include({ name: 'Vent', category: 'venting', status: 'active' });
    expect(row.definition).to.include({ referenced: true, complianceDomain: 'rule_32' });
    expect(row.definition.guardRules[0]).to.include({ publishedVersion: 1 });
    expect(
      await knex(GUARD_RULE_VERSIONS_TABLE)
        .where({ tenant_id: TENANT, event_type_id: 't1' })
        .select('rule_id', 'version'),
    ).to.deep.equal([{ rule_id: 'g', version: 1 }]);

    await given(eventTypesProjector, eventTypeAggregate.stream(TENANT, 't2'), [
      {
        type: 'EventTypeCreated',
        data: {
          eventTypeId: 't2',
          name: 'Gone',
          description: null,
          category: null,
          complianceDomain: null,
          anomalyKind: null,
          fields: [],
          by: 'u',
          at: AT,
        },
      },
      { type: 'EventTypeDeleted', data: { eventTypeId: 't2', name: 'Gone', by: 'u', at: AT } },
    ]);
    expect(await knex(EVENT_TYPES_TABLE).where({ tenant_id: TENANT, id: 't2' })).to.deep.equal([]);
  });

  it('an event row follows its corrections, one history row per version; an anomaly flags only its own event', async () => {
    const logged: OperationalEventEvent = {
      type: 'OperationalEventLogged',
      data: {
        eventId: 'ev1',
        eventTypeId: 't1',
        entityId: 'W-1',
        entityType: 'Well',
        occurredAt: '2026-03-01T10:00:00Z',
        fields: { v: 3 },
        by: 'u',
        at: AT,
      },
    };
    const anomaly = {
      type: 'ComplianceAnomalyFlagged',
      data: {
        entityId: 'W-1',
        entityLabel: 'Well',
        domain: 'rule_32',
        kind: 'vent',
        detail: 'd',
        observedAt: '2026-03-01T10:00:00Z',
        source: 'operational_event',
      },
    };
    const updated: OperationalEventEvent = {
      type: 'OperationalEventUpdated',
      data: {
        eventId: 'ev1',
        eventTypeId: 't1',
        version: 2,
        entityId: 'W-1',
        entityType: 'Well',
        occurredAt: '2026-03-01T10:00:00Z',
        fields: { v: 4 },
        changes: [{ field: 'fields.v', from: 3, to: 4 }],
        by: 'w',
        at: AT,
      },
    };
    await given(operationalEventsProjector, operationalEventAggregate.stream(TENANT, 'ev1'), [
      logged,
      anomaly,
      updated,
    ]);
    // The same event type from another context's stream is not this read model's business.
    await given(operationalEventsProjector, `ingestion.scada-${TENANT}-x`, [anomaly]);
    const row = await knex(EVENTS_TABLE).where({ tenant_id: TENANT, id: 'ev1' }).first();
    expect(row).to.include({ version: 2, anomaly_flagged: true, updated_by: 'w', logged_by: 'u', entity_id: 'W-1' });
    expect(row.fields).to.deep.equal({ v: 4 });
    const history = await knex(EVENT_HISTORY_TABLE)
      .where({ tenant_id: TENANT, event_id: 'ev1' })
      .orderBy('version')
      .select('version', 'action', 'changes');
    expect(history).to.deep.equal([
      { version: 1, action: 'logged', changes: [] },
      { version: 2, action: 'updated', changes: [{ field: 'fields.v', from: 3, to: 4 }] },
    ]);
    expect(await knex(EVENTS_TABLE).count<{ count: string }[]>('* as count')).to.deep.equal([{ count: '1' }]);
  });
});
