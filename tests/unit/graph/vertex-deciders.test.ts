import { expect } from 'chai';
import { Conflict, NotFound, ValidationFailed } from '../../../src/platform/domain-errors';
import { createEntityDecider, type CreateEntity } from '../../../commands/graph/create-entity';
import { deleteEntityDecider } from '../../../commands/graph/delete-entity';
import { updateEntityDecider } from '../../../commands/graph/update-entity';
import { productionChanges, updateWellProductionDecider } from '../../../commands/graph/update-well-production';
import { namespaceOf } from '../../../streams/graph/names';
import { toStoredProperties } from '../../../streams/graph/properties';
import type { VertexEvent } from '../../../streams/graph/vertex';
import { given } from '../../support/given';

const ns = 'abc_oilgas';
const created: VertexEvent = {
  type: 'VertexCreated',
  data: {
    vertexId: 'v1',
    namespace: ns,
    label: 'Well',
    entityId: '42-329-30001',
    properties: { entity_id: '42-329-30001', status: 'producing' },
  },
};
const deleted: VertexEvent = {
  type: 'VertexDeleted',
  data: { vertexId: 'v1', namespace: ns, label: 'Well', entityId: '42-329-30001', edgeIds: [] },
};
const create = (over: Partial<CreateEntity> = {}): CreateEntity => ({
  type: 'CreateEntity',
  vertexId: 'v1',
  namespace: ns,
  label: 'Well',
  entityId: '42-329-30001',
  properties: { status: 'producing' },
  labelKnown: true,
  entityIdTaken: false,
  ...over,
});
const imported = {
  label: 'Well',
  entityId: 'W-9',
  properties: { entity_id: 'W-9', status: 'producing', form_pr_period: '2025-06' },
};

describe('graph vertex deciders', () => {
  it('the namespace is the tenant uuid without dashes plus _oilgas', () => {
    expect(namespaceOf('0A1B2C3D-0000-4000-8000-00000000000F')).to.equal('0a1b2c3d00004000800000000000000f_oilgas');
  });

  it('property values become strings; nested values JSON text; null means remove', () => {
    expect(toStoredProperties({ a: 1, b: false, c: { x: [1] }, d: null, e: 'text' })).to.deep.equal({
      set: { a: '1', b: 'false', c: '{"x":[1]}', e: 'text' },
      removed: ['d'],
    });
  });

  describe('create', () => {
    it('creates a vertex carrying its entity_id as a property', () => {
      given(createEntityDecider)
        .when(create())
        .then([{ ...created }]);
    });
    it('an unknown label is a 422 on body.label', () => {
      given(createEntityDecider)
        .when(create({ labelKnown: false }))
        .thenThrows(ValidationFailed, /body\.label/);
    });
    it('a taken entity_id conflicts', () => {
      given(createEntityDecider)
        .when(create({ entityIdTaken: true }))
        .thenThrows(Conflict, /exists already/);
    });
    it('creating twice conflicts', () => {
      given(createEntityDecider, [created]).when(create()).thenThrows(Conflict);
    });
  });

  describe('update', () => {
    const update = (set: Record<string, string>, removed: string[] = [], known = null as typeof imported | null) => ({
      type: 'UpdateEntity' as const,
      vertexId: 'v1',
      namespace: ns,
      set,
      removed,
      imported: known,
    });
    it('emits only what changes', () => {
      given(updateEntityDecider, [created])
        .when(update({ status: 'producing', county: 'Midland' }, ['nope']))
        .then([
          {
            type: 'VertexPropertiesUpdated',
            data: { vertexId: 'v1', namespace: ns, set: { county: 'Midland' }, removed: [] },
          },
        ]);
    });
    it('an unchanged update decides nothing', () => {
      given(updateEntityDecider, [created])
        .when(update({ status: 'producing' }))
        .thenNothing();
    });
    it('a vertex known only from a bulk import can be updated; its stream starts with the import as it stood', () => {
      given(updateEntityDecider)
        .when(update({ status: 'shut_in' }, [], imported))
        .then([
          { type: 'VertexImported', data: { vertexId: 'v1', namespace: ns, ...imported } },
          {
            type: 'VertexPropertiesUpdated',
            data: { vertexId: 'v1', namespace: ns, set: { status: 'shut_in' }, removed: [] },
          },
        ]);
    });
    it('a missing or deleted vertex is not found; entity_id is immutable', () => {
      given(updateEntityDecider)
        .when(update({ a: '1' }))
        .thenThrows(NotFound);
      given(updateEntityDecider, [created, deleted])
        .when(update({ a: '1' }, [], imported))
        .thenThrows(NotFound);
      given(updateEntityDecider, [created])
        .when(update({ entity_id: 'other' }))
        .thenThrows(ValidationFailed, /entity_id/);
      given(updateEntityDecider, [created])
        .when(update({}, ['entity_id']))
        .thenThrows(ValidationFailed);
    });
  });

  describe('delete', () => {
    it('deletes the vertex naming the edges that go with it, once', () => {
      given(deleteEntityDecider, [created])
        .when({ type: 'DeleteEntity', vertexId: 'v1', namespace: ns, edgeIds: ['e1', 'e2'], imported: null })
        .then([
          {
            type: 'VertexDeleted',
            data: { vertexId: 'v1', namespace: ns, label: 'Well', entityId: '42-329-30001', edgeIds: ['e1', 'e2'] },
          },
        ]);
      given(deleteEntityDecider, [created, deleted])
        .when({ type: 'DeleteEntity', vertexId: 'v1', namespace: ns, edgeIds: [], imported: null })
        .thenThrows(NotFound);
    });
  });

  describe('well production', () => {
    const report = (month: string, oil: number) => ({
      type: 'UpdateWellProduction' as const,
      vertexId: 'v1',
      namespace: ns,
      report: { reporting_month: month, oil_bbls: oil },
      imported: null,
    });
    it('only wells have production', () => {
      const lease: VertexEvent = { type: 'VertexCreated', data: { ...created.data, label: 'Lease' } as any };
      given(updateWellProductionDecider, [lease]).when(report('2025-01', 1)).thenThrows(NotFound);
    });
    it('the newest month becomes current; flared and vented come from codes 10 and 11', () => {
      const set = productionChanges(
        {},
        {
          reporting_month: '2025-05',
          oil_bbls: 10,
          gas_mcf: 20,
          disposition_code_10_mcf: 3,
          disposition_code_11_mcf: 1,
        },
      );
      expect(set).to.include({
        production_oil_bbls: '10',
        production_gas_mcf: '20',
        gas_flared_mcf: '3',
        gas_vented_mcf: '1',
        form_pr_period: '2025-05',
      });
    });
    it('an older month only joins the history, which keeps the last 12 months in order', () => {
      let props: Record<string, string> = {};
      for (let m = 1; m <= 12; m++)
        props = {
          ...props,
          ...productionChanges(props, { reporting_month: `2024-${String(m).padStart(2, '0')}`, oil_bbls: m }),
        };
      props = { ...props, ...productionChanges(props, { reporting_month: '2025-01', oil_bbls: 13 }) };
      const late = productionChanges(props, { reporting_month: '2024-12', oil_bbls: 99 });
      expect(late).to.have.keys('production_history_12m');
      const history = JSON.parse(late.production_history_12m);
      expect(history).to.have.length(12);
      expect(history[0].period).to.equal('2024-02');
      expect(history.find((h: { period: string }) => h.period === '2024-12').oil_bbls).to.equal(99);
      expect(props.production_oil_bbls).to.equal('13');
    });
    it('applies to a well known from an import', () => {
      const events = given(updateWellProductionDecider)
        .when({ ...report('2025-07', 5), imported })
        .events();
      expect(events.map((e) => e.type)).to.deep.equal(['VertexImported', 'WellProductionReported']);
    });
  });
});
