import { expect } from 'chai';
import { changeEventTypeDecider } from '../../../commands/monitoring/change-event-type';
import { changeFieldsDecider } from '../../../commands/monitoring/change-fields';
import { conditionalRulesDecider } from '../../../commands/monitoring/change-conditional-rules';
import { createEventTypeDecider } from '../../../commands/monitoring/create-event-type';
import { guardRulesDecider } from '../../../commands/monitoring/change-guard-rules';
import { Conflict, NotFound, ValidationFailed } from '../../../src/platform/domain-errors';
import type { EventTypeEvent, FieldDef } from '../../../streams/monitoring/event-type';
import { given } from '../../support/given';

const ACTOR = 'user-1';
const AT = '2026-01-15T12:00:00.000Z';
const TYPE = 'type-1';

const field = (id: string, name: string, extra: Partial<FieldDef> = {}): FieldDef => ({
  id,
  name,
  type: 'text',
  required: false,
  options: null,
  label: null,
  description: null,
  entityType: null,
  ...extra,
});
const created = (
  fields: FieldDef[] = [field('f1', 'cause', { type: 'select', options: ['upset', 'other'] }), field('f2', 'detail')],
): EventTypeEvent => ({
  type: 'EventTypeCreated',
  data: {
    eventTypeId: TYPE,
    name: 'Flaring',
    description: null,
    category: null,
    complianceDomain: null,
    anomalyKind: null,
    fields,
    by: ACTOR,
    at: AT,
  },
});
const moved = (from: string, to: string): EventTypeEvent => ({
  type: 'EventTypeTransitioned',
  data: { eventTypeId: TYPE, from: from as never, to: to as never, by: ACTOR, at: AT },
});
const referenced: EventTypeEvent = { type: 'EventTypeReferenced', data: { eventTypeId: TYPE, eventId: 'e1', at: AT } };
const showRule: EventTypeEvent = {
  type: 'ConditionalRuleAdded',
  data: {
    eventTypeId: TYPE,
    rule: {
      id: 'r1',
      field: 'detail',
      effect: 'show',
      when: { field: 'cause', operator: 'equals', value: 'other' },
      description: null,
    },
    by: ACTOR,
    at: AT,
  },
};

describe('event type deciders', () => {
  it('creates a draft type with its fields', () => {
    given(createEventTypeDecider)
      .when({
        type: 'CreateEventType',
        eventTypeId: TYPE,
        fieldIds: ['f1'],
        actorId: ACTOR,
        body: { name: 'Flaring', status: 'draft', fields: [{ name: 'volume', type: 'number', required: true }] },
      })
      .then([
        {
          type: 'EventTypeCreated',
          data: {
            eventTypeId: TYPE,
            name: 'Flaring',
            description: null,
            category: null,
            complianceDomain: null,
            anomalyKind: null,
            fields: [field('f1', 'volume', { type: 'number', required: true })],
            by: ACTOR,
            at: AT,
          },
        },
      ]);
  });

  it('a type created with status active is created and activated in one write', () => {
    const events = given(createEventTypeDecider)
      .when({
        type: 'CreateEventType',
        eventTypeId: TYPE,
        fieldIds: [],
        actorId: ACTOR,
        body: { name: 'Flaring', status: 'active', fields: [] },
      })
      .events();
    expect(events.map((e) => e.type)).to.deep.equal(['EventTypeCreated', 'EventTypeTransitioned']);
    expect(events[1].data).to.deep.include({ from: 'draft', to: 'active' });
  });

  it('two fields with one name answer 422 naming the second', () => {
    given(createEventTypeDecider)
      .when({
        type: 'CreateEventType',
        eventTypeId: TYPE,
        fieldIds: ['f1', 'f2'],
        actorId: ACTOR,
        body: {
          name: 'X',
          status: 'draft',
          fields: [
            { name: 'a', type: 'text', required: false },
            { name: 'a', type: 'number', required: false },
          ],
        },
      })
      .thenThrows(ValidationFailed, /fields\.1\.name/);
  });

  it('moves along the lifecycle and refuses other moves', () => {
    given(changeEventTypeDecider, [created()])
      .when({ type: 'TransitionEventType', to: 'active', actorId: ACTOR })
      .then([moved('draft', 'active')]);
    given(changeEventTypeDecider, [created(), moved('draft', 'active')])
      .when({ type: 'TransitionEventType', to: 'draft', actorId: ACTOR })
      .thenThrows(Conflict, /active to draft/);
    given(changeEventTypeDecider, [created(), moved('draft', 'active'), moved('active', 'deprecated')])
      .when({ type: 'TransitionEventType', to: 'active', actorId: ACTOR })
      .then([moved('deprecated', 'active')]);
    given(changeEventTypeDecider, [created(), moved('draft', 'active')])
      .when({ type: 'TransitionEventType', to: 'active', actorId: ACTOR })
      .thenNothing();
  });

  it('deleting a referenced type answers 409; an unreferenced one is deleted', () => {
    given(changeEventTypeDecider, [created(), moved('draft', 'active'), referenced])
      .when({ type: 'DeleteEventType', actorId: ACTOR })
      .thenThrows(Conflict, /reference/);
    given(changeEventTypeDecider, [created()])
      .when({ type: 'DeleteEventType', actorId: ACTOR })
      .then([{ type: 'EventTypeDeleted', data: { eventTypeId: TYPE, name: 'Flaring', by: ACTOR, at: AT } }]);
    given(changeEventTypeDecider, [
      created(),
      { type: 'EventTypeDeleted', data: { eventTypeId: TYPE, name: 'Flaring', by: ACTOR, at: AT } },
    ])
      .when({ type: 'DeleteEventType', actorId: ACTOR })
      .thenThrows(NotFound);
  });

  it('a field a rule uses cannot be removed or renamed, but its label can change', () => {
    given(changeFieldsDecider, [created(), showRule])
      .when({ type: 'RemoveField', fieldId: 'f1', actorId: ACTOR })
      .thenThrows(Conflict, /conditional rule r1/);
    given(changeFieldsDecider, [created(), showRule])
      .when({ type: 'UpdateField', fieldId: 'f2', patch: { name: 'reason' }, actorId: ACTOR })
      .thenThrows(Conflict);
    const events = given(changeFieldsDecider, [created(), showRule])
      .when({ type: 'UpdateField', fieldId: 'f2', patch: { label: 'Detail' }, actorId: ACTOR })
      .events();
    expect(events[0].type).to.equal('EventTypeFieldUpdated');
  });

  it('retyping a field to select without options answers 422', () => {
    given(changeFieldsDecider, [created()])
      .when({ type: 'UpdateField', fieldId: 'f2', patch: { type: 'select' }, actorId: ACTOR })
      .thenThrows(ValidationFailed, /options/);
  });

  it('reorder needs every field id exactly once', () => {
    given(changeFieldsDecider, [created()])
      .when({ type: 'ReorderFields', fieldIds: ['f2', 'f1'], actorId: ACTOR })
      .then([
        { type: 'EventTypeFieldsReordered', data: { eventTypeId: TYPE, fieldIds: ['f2', 'f1'], by: ACTOR, at: AT } },
      ]);
    given(changeFieldsDecider, [created()])
      .when({ type: 'ReorderFields', fieldIds: ['f2', 'f2'], actorId: ACTOR })
      .thenThrows(ValidationFailed);
    given(changeFieldsDecider, [created()])
      .when({ type: 'ReorderFields', fieldIds: ['f1', 'f2'], actorId: ACTOR })
      .thenNothing();
  });

  it('a retired type is frozen', () => {
    const retired = [
      created(),
      moved('draft', 'active'),
      moved('active', 'deprecated'),
      moved('deprecated', 'retired'),
    ];
    given(changeFieldsDecider, retired)
      .when({ type: 'AddField', fieldId: 'f9', field: { name: 'x', type: 'text', required: false }, actorId: ACTOR })
      .thenThrows(Conflict, /retired/);
  });

  it('a conditional rule on its own field answers 422', () => {
    given(conditionalRulesDecider, [created()])
      .when({
        type: 'AddConditionalRule',
        ruleId: 'r2',
        body: { field: 'cause', effect: 'hide', when: { field: 'cause', operator: 'is_set' } },
        actorId: ACTOR,
      })
      .thenThrows(ValidationFailed, /own visibility/);
  });

  it('publishing a guard rule freezes its draft as the next version; publishing it unchanged records nothing', () => {
    const draft = {
      field: 'detail',
      operator: 'max_length' as const,
      value: 20,
      message: null,
      when: null,
      enabled: true,
    };
    const added: EventTypeEvent = {
      type: 'GuardRuleAdded',
      data: { eventTypeId: TYPE, ruleId: 'g1', name: 'Detail short', draft, by: ACTOR, at: AT },
    };
    const v1: EventTypeEvent = {
      type: 'GuardRulePublished',
      data: { eventTypeId: TYPE, ruleId: 'g1', name: 'Detail short', version: 1, definition: draft, by: ACTOR, at: AT },
    };
    given(guardRulesDecider, [created(), added])
      .when({ type: 'PublishGuardRule', ruleId: 'g1', actorId: ACTOR })
      .then([v1]);
    given(guardRulesDecider, [created(), added, v1])
      .when({ type: 'PublishGuardRule', ruleId: 'g1', actorId: ACTOR })
      .thenNothing();
    const events = given(guardRulesDecider, [created(), added, v1])
      .when({ type: 'UpdateGuardRule', ruleId: 'g1', patch: { value: 10 }, actorId: ACTOR })
      .events();
    const edited = [created(), added, v1, ...events];
    const v2 = given(guardRulesDecider, edited)
      .when({ type: 'PublishGuardRule', ruleId: 'g1', actorId: ACTOR })
      .events();
    expect(v2[0]).to.deep.include({ type: 'GuardRulePublished' });
    expect((v2[0].data as { version: number; definition: { value: number } }).version).to.equal(2);
    expect((v2[0].data as { definition: { value: number } }).definition.value).to.equal(10);
  });

  it('a guard comparing a select field with gt answers 422 naming the operator', () => {
    given(guardRulesDecider, [created()])
      .when({
        type: 'AddGuardRule',
        ruleId: 'g1',
        body: { name: 'x', field: 'cause', operator: 'gt', value: 1, enabled: true },
        actorId: ACTOR,
      })
      .thenThrows(ValidationFailed, /body\.operator/);
  });
});
