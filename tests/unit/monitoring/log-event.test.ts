import { expect } from 'chai';
import { decideLogEvent, duplicateKey, duplicatesOf, type LogEvent } from '../../../commands/monitoring/log-event';
import { updateEventDecider } from '../../../commands/monitoring/update-event';
import { Conflict, NotFound, ValidationFailed } from '../../../src/platform/domain-errors';
import { type DuplicationRule } from '../../../streams/monitoring/duplication-rules';
import { eventTypeAggregate, type EventTypeEvent, type EventTypeState } from '../../../streams/monitoring/event-type';
import type { OperationalEventEvent } from '../../../streams/monitoring/operational-event';
import { given } from '../../support/given';

const NOW = new Date('2026-03-01T12:00:00Z');
const AT = NOW.toISOString();

function typeState(
  extra: { complianceDomain?: string; anomalyKind?: string } = {},
  status: 'draft' | 'active' = 'active',
): EventTypeState {
  const events: EventTypeEvent[] = [
    {
      type: 'EventTypeCreated',
      data: {
        eventTypeId: 't1',
        name: 'SCADA pressure spike',
        description: null,
        category: 'scada',
        complianceDomain: extra.complianceDomain ?? null,
        anomalyKind: extra.anomalyKind ?? null,
        fields: [
          {
            id: 'f1',
            name: 'psi',
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
  ];
  if (status === 'active')
    events.push({
      type: 'EventTypeTransitioned',
      data: { eventTypeId: 't1', from: 'draft', to: 'active', by: 'u', at: AT },
    });
  return events.reduce(eventTypeAggregate.evolve, eventTypeAggregate.initialState);
}

const command: LogEvent = {
  type: 'LogEvent',
  eventId: 'e1',
  eventTypeId: 't1',
  entityId: 'W-1',
  entityType: 'Well',
  occurredAt: '2026-03-01T10:00:00Z',
  fields: { psi: 950 },
  actorId: 'u',
};
const logged: OperationalEventEvent = {
  type: 'OperationalEventLogged',
  data: {
    eventId: 'e1',
    eventTypeId: 't1',
    entityId: 'W-1',
    entityType: 'Well',
    occurredAt: '2026-03-01T10:00:00Z',
    fields: { psi: 950 },
    by: 'u',
    at: AT,
  },
};

describe('logging an operational event', () => {
  it('an active type accepts the event', () => {
    expect(decideLogEvent(command, typeState(), { status: 'none' }, NOW).events).to.deep.equal([logged]);
  });

  it('a draft type answers 409 and an unknown type 422', () => {
    expect(() => decideLogEvent(command, typeState({}, 'draft'), { status: 'none' }, NOW)).to.throw(
      Conflict,
      /only active/,
    );
    expect(() => decideLogEvent(command, { status: 'none' }, { status: 'none' }, NOW)).to.throw(
      ValidationFailed,
      /event_type_id/,
    );
  });

  it('a type with a compliance domain also flags a compliance anomaly (kind from the type name unless given)', () => {
    const [, flagged] = decideLogEvent(
      command,
      typeState({ complianceDomain: 'production' }),
      { status: 'none' },
      NOW,
    ).events;
    expect(flagged).to.deep.equal({
      type: 'ComplianceAnomalyFlagged',
      data: {
        entityId: 'W-1',
        entityLabel: 'Well',
        domain: 'production',
        kind: 'scada_pressure_spike',
        detail: 'SCADA pressure spike logged for Well W-1: psi=950',
        observedAt: '2026-03-01T10:00:00Z',
        source: 'operational_event',
      },
    });
    const [, named] = decideLogEvent(
      command,
      typeState({ complianceDomain: 'production', anomalyKind: 'pressure_spike' }),
      { status: 'none' },
      NOW,
    ).events;
    expect((named.data as { kind: string }).kind).to.equal('pressure_spike');
  });

  describe('duplicates', () => {
    const rule: DuplicationRule = {
      id: 'r',
      name: 'r',
      eventTypeId: null,
      matchFields: ['entity_id', 'psi'],
      windowSeconds: 60,
      enabled: true,
      generation: 0,
      resetAt: null,
      updatedAt: AT,
      updatedBy: 'u',
    };

    it('the key is the type and the chosen values', () => {
      expect(duplicateKey(rule, command, { psi: 950 })).to.equal(
        duplicateKey(rule, { ...command, entityType: 'Lease' }, { psi: 950 }),
      );
      expect(duplicateKey(rule, command, { psi: 950 })).to.not.equal(duplicateKey(rule, command, { psi: 951 }));
      expect(duplicateKey(rule, command, { psi: 950 })).to.not.equal(
        duplicateKey(rule, { ...command, eventTypeId: 't2' }, { psi: 950 }),
      );
    });

    it('an accepted event within the window on either side is a duplicate; the window edge counts', () => {
      const accepted = [{ eventId: 'a', occurredAt: '2026-03-01T10:00:00Z' }];
      expect(duplicatesOf(accepted, '2026-03-01T10:01:00Z', 60)).to.deep.equal(accepted);
      expect(duplicatesOf(accepted, '2026-03-01T09:59:30Z', 60)).to.deep.equal(accepted);
      expect(duplicatesOf(accepted, '2026-03-01T10:01:01Z', 60)).to.deep.equal([]);
    });
  });
});

describe('correcting an operational event', () => {
  it('records what changed with the next version', () => {
    given(updateEventDecider, [logged], NOW)
      .when({ type: 'UpdateEvent', body: { fields: { psi: 900 } }, eventType: typeState(), actorId: 'v' })
      .then([
        {
          type: 'OperationalEventUpdated',
          data: {
            eventId: 'e1',
            eventTypeId: 't1',
            version: 2,
            entityId: 'W-1',
            entityType: 'Well',
            occurredAt: '2026-03-01T10:00:00Z',
            fields: { psi: 900 },
            changes: [{ field: 'fields.psi', from: 950, to: 900 }],
            by: 'v',
            at: AT,
          },
        },
      ]);
  });

  it('the same values record nothing; the same instant in another offset is no change', () => {
    given(updateEventDecider, [logged])
      .when({
        type: 'UpdateEvent',
        body: { fields: { psi: 950 }, occurred_at: '2026-03-01T04:00:00-06:00' },
        eventType: typeState(),
        actorId: 'v',
      })
      .thenNothing();
  });

  it('a removed required value answers 422; a missing event 404', () => {
    given(updateEventDecider, [logged])
      .when({ type: 'UpdateEvent', body: { fields: { psi: null } }, eventType: typeState(), actorId: 'v' })
      .thenThrows(ValidationFailed, /psi/);
    given(updateEventDecider, [])
      .when({ type: 'UpdateEvent', body: {}, eventType: typeState(), actorId: 'v' })
      .thenThrows(NotFound);
  });
});
