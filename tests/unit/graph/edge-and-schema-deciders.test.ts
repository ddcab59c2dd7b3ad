import { expect } from 'chai';
import { Conflict, NotFound, ValidationFailed } from '../../../src/platform/domain-errors';
import { addRelationshipRuleDecider } from '../../../commands/graph/add-relationship-rule';
import { changeEntityTypeDecider } from '../../../commands/graph/change-entity-type';
import { type CreateEdge, createEdgeDecider } from '../../../commands/graph/create-edge';
import { defineEntityTypeDecider } from '../../../commands/graph/define-entity-type';
import { planImport } from '../../../commands/graph/import-graph';
import {
  batchEdges,
  batchVertices,
  derivedEdge,
  importedEdgeId,
  type PackedGraphBatchData,
} from '../../../streams/graph/graph-import';
import { installVerticalDecider } from '../../../commands/graph/install-vertical';
import { removeEntityTypeDecider } from '../../../commands/graph/remove-entity-type';
import {
  OILGAS_ENTITY_TYPES,
  OILGAS_RELATIONSHIP_RULES,
  OILGAS_RELATIONSHIP_TYPES,
} from '../../../streams/graph/oilgas-vertical';
import { given } from '../../support/given';

const schema = {
  edgeLabelKnown: true,
  fromAllowed: true,
  toAllowed: true,
  pairAllowed: true,
  allowedFrom: ['Well'],
  allowedTo: ['Operator'],
};
const edge = (over: Partial<CreateEdge> = {}): CreateEdge => ({
  type: 'CreateEdge',
  edgeId: 'e1',
  namespace: 'n_oilgas',
  edgeLabel: 'OPERATED_BY',
  fromLabel: 'Well',
  toLabel: 'Operator',
  properties: {},
  fromLabelKnown: true,
  toLabelKnown: true,
  schema,
  fromId: 'a',
  toId: 'b',
  ...over,
});
const well = OILGAS_ENTITY_TYPES.find((e) => e.label === 'Well')!;

describe('graph edge and schema deciders', () => {
  it('an allowed edge between found vertices is created', () => {
    given(createEdgeDecider)
      .when(edge())
      .then([
        {
          type: 'EdgeCreated',
          data: {
            edgeId: 'e1',
            namespace: 'n_oilgas',
            edgeLabel: 'OPERATED_BY',
            fromId: 'a',
            fromLabel: 'Well',
            toId: 'b',
            toLabel: 'Operator',
            properties: {},
          },
        },
      ]);
  });
  it('label and rule problems are 422s naming each bad field, before any 404', () => {
    const issues = (over: Partial<CreateEdge>) => {
      try {
        createEdgeDecider.decide(edge(over), createEdgeDecider.initialState, new Date());
      } catch (error) {
        return (error as ValidationFailed).issues.map((i) => i.loc.join('.'));
      }
      return [];
    };
    expect(issues({ schema: { ...schema, edgeLabelKnown: false }, fromId: null })).to.deep.equal(['body.edge_label']);
    expect(issues({ schema: { ...schema, fromAllowed: false, toAllowed: false, pairAllowed: false } })).to.deep.equal([
      'body.from_label',
      'body.to_label',
    ]);
    expect(issues({ schema: { ...schema, pairAllowed: false } })).to.deep.equal(['body.to_label']);
    expect(issues({ fromLabelKnown: false, toLabelKnown: false })).to.deep.equal(['body.from_label', 'body.to_label']);
  });
  it('missing endpoints are not found', () => {
    given(createEdgeDecider)
      .when(edge({ fromId: null }))
      .thenThrows(NotFound, /from_id/);
    given(createEdgeDecider)
      .when(edge({ toId: null }))
      .thenThrows(NotFound, /to_id/);
  });

  it('the vertical installs once', () => {
    const data = { vertical: 'oilgas', version: 1, entityTypes: [], relationshipTypes: [], relationshipRules: [] };
    given(installVerticalDecider)
      .when({ type: 'InstallVertical', data })
      .then([{ type: 'GraphVerticalInstalled', data }]);
    given(installVerticalDecider, [{ type: 'GraphVerticalInstalled', data }])
      .when({ type: 'InstallVertical', data })
      .thenNothing();
  });

  it("the shipped vertical has the spec's 20 labels, 16 edge labels and a rule for every endpoint pair", () => {
    expect(OILGAS_ENTITY_TYPES).to.have.length(20);
    expect(OILGAS_RELATIONSHIP_TYPES).to.have.length(16);
    expect(
      OILGAS_RELATIONSHIP_RULES.filter((r) => r.edge_label === 'FLARES_AT').map((r) => `${r.from_label}>${r.to_label}`),
    ).to.have.members([
      'FlaringEvent>Well',
      'FlaringEvent>Lease',
      'FlaringAuthorization>Well',
      'FlaringAuthorization>Lease',
    ]);
    expect(new Set(OILGAS_RELATIONSHIP_RULES.map((r) => r.id)).size).to.equal(OILGAS_RELATIONSHIP_RULES.length);
  });

  it('entity types: a vertical type is known without a stream; defining it again conflicts, changing it works', () => {
    given(defineEntityTypeDecider)
      .when({ type: 'DefineEntityType', definition: well, known: well, labelTaken: false })
      .thenThrows(Conflict);
    given(defineEntityTypeDecider)
      .when({ type: 'DefineEntityType', definition: { ...well, key: 'well2' }, known: null, labelTaken: true })
      .thenThrows(Conflict, /label/);
    given(changeEntityTypeDecider)
      .when({ type: 'ChangeEntityType', key: 'well', changes: { impact_terminal: true }, known: well })
      .then([{ type: 'EntityTypeChanged', data: { definition: { ...well, impact_terminal: true } } }]);
    given(changeEntityTypeDecider)
      .when({ type: 'ChangeEntityType', key: 'well', changes: { impact_terminal: false }, known: well })
      .thenNothing();
    given(changeEntityTypeDecider)
      .when({ type: 'ChangeEntityType', key: 'x', changes: {}, known: null })
      .thenThrows(NotFound);
    given(removeEntityTypeDecider)
      .when({ type: 'RemoveEntityType', key: 'well', known: well, verticesInUse: 3 })
      .thenThrows(Conflict, /3 vertices/);
    given(removeEntityTypeDecider, [{ type: 'EntityTypeRemoved', data: { key: 'well', label: 'Well' } }])
      .when({ type: 'RemoveEntityType', key: 'well', known: well, verticesInUse: 0 })
      .thenThrows(NotFound);
  });

  it('relationship rules need known labels and are unique', () => {
    const rule = { id: 'r1', edge_label: 'X', from_label: '*', to_label: 'Well' };
    given(addRelationshipRuleDecider)
      .when({
        type: 'AddRelationshipRule',
        rule,
        edgeLabelKnown: true,
        fromLabelKnown: true,
        toLabelKnown: true,
        duplicateOf: null,
      })
      .then([{ type: 'RelationshipRuleAdded', data: { rule } }]);
    given(addRelationshipRuleDecider)
      .when({
        type: 'AddRelationshipRule',
        rule,
        edgeLabelKnown: false,
        fromLabelKnown: true,
        toLabelKnown: false,
        duplicateOf: null,
      })
      .thenThrows(ValidationFailed, /edge_label.*to_label/);
    given(addRelationshipRuleDecider)
      .when({
        type: 'AddRelationshipRule',
        rule,
        edgeLabelKnown: true,
        fromLabelKnown: true,
        toLabelKnown: true,
        duplicateOf: 'r0',
      })
      .thenThrows(Conflict);
  });

  describe('bulk import planning', () => {
    const importSchema = {
      vertexLabels: new Set(['Well', 'Operator']),
      edgeLabels: new Set(['OPERATED_BY', 'PART_OF']),
      rules: OILGAS_RELATIONSHIP_RULES,
    };
    const v = (id: string, label: string) => ({ id, label, entity_id: id, properties: { entity_id: id } });
    const e = (id: string, label: string, from: [string, string], to: [string, string]) => ({
      id,
      label,
      from_id: from[0],
      from_label: from[1],
      to_id: to[0],
      to_label: to[1],
      properties: {},
    });
    const base = { importId: 'i1', namespace: 'n_oilgas', source: 'test', description: '' };

    it('splits vertices and then edges into packed batches between a start and a completion event', () => {
      const events = planImport(
        {
          ...base,
          vertices: [v('w1', 'Well'), v('w2', 'Well'), v('o1', 'Operator')],
          edges: [
            e('e1', 'OPERATED_BY', ['w1', 'Well'], ['o1', 'Operator']),
            e('e2', 'PART_OF', ['w2', 'Well'], ['w1', 'Well']),
          ],
        },
        importSchema,
        new Set(),
        2,
      );
      expect(events.map((x) => x.type)).to.deep.equal([
        'GraphImportStarted',
        'PackedGraphBatchImported',
        'PackedGraphBatchImported',
        'PackedGraphBatchImported',
        'GraphImportCompleted',
      ]);
      const batches = events
        .filter((x) => x.type === 'PackedGraphBatchImported')
        .map((x: any) => [batchVertices(x.type, x.data).map((y) => y.id), batchEdges(x.type, x.data).map((y) => y.id)]);
      expect(batches).to.deep.equal([
        [['w1', 'w2'], []],
        [['o1'], ['e1']],
        [[], ['e2']],
      ]);
      expect((events[4] as any).data.byLabel).to.deep.equal({ Well: 2, Operator: 1, OPERATED_BY: 1, PART_OF: 1 });
    });
    it('a packed batch writes each label and property name once and the ids of edges derived from their endpoints not at all', () => {
      const derived = importedEdgeId(base.namespace, 'OPERATED_BY', 'w1', 'o1');
      const vertices = [
        v('w1', 'Well'),
        { ...v('w2', 'Well'), properties: { entity_id: 'w2', name: 'HOEFS 1H' } },
        v('o1', 'Operator'),
      ];
      const [, packed] = planImport(
        { ...base, vertices, edges: [e(derived, 'OPERATED_BY', ['w1', 'Well'], ['o1', 'Operator'])] },
        importSchema,
      );
      expect(packed.data).to.deep.equal({
        importId: 'i1',
        namespace: 'n_oilgas',
        batch: 0,
        vertices: [
          {
            label: 'Well',
            keys: ['entity_id', 'name'],
            rows: [
              ['w1', 'w1', 'w1', null],
              ['w2', 'w2', 'w2', 'HOEFS 1H'],
            ],
          },
          { label: 'Operator', keys: ['entity_id'], rows: [['o1', 'o1', 'o1']] },
        ],
        edges: [{ label: 'OPERATED_BY', fromLabel: 'Well', toLabel: 'Operator', keys: [], rows: [['w1', 'o1']] }],
      });
      expect(
        planImport(
          {
            ...base,
            vertices,
            edges: [e(derived, 'OPERATED_BY', ['w1', 'Well'], ['o1', 'Operator'])],
            derivedEdgeIds: true,
          },
          importSchema,
        )[1].data,
      ).to.deep.equal(packed.data);
      expect(batchVertices(packed.type, packed.data as PackedGraphBatchData)).to.deep.equal(vertices);
      expect(batchEdges(packed.type, packed.data as PackedGraphBatchData)).to.deep.equal([
        e(derived, 'OPERATED_BY', ['w1', 'Well'], ['o1', 'Operator']),
      ]);
    });
    it('a derived edge is the edge with the id importedEdgeId gives, packed the same', () => {
      const lazy = derivedEdge('n_oilgas', 'OPERATED_BY', 'w1', 'Well', 'o1', 'Operator');
      // The id is read on demand (a getter, not an own property).
      expect({ ...lazy, id: lazy.id }).to.deep.equal(
        e(importedEdgeId('n_oilgas', 'OPERATED_BY', 'w1', 'o1'), 'OPERATED_BY', ['w1', 'Well'], ['o1', 'Operator']),
      );
      expect(
        planImport(
          { ...base, vertices: [v('w1', 'Well'), v('o1', 'Operator')], edges: [lazy], derivedEdgeIds: true },
          importSchema,
        )[1].data,
      ).to.deep.equal(
        planImport(
          {
            ...base,
            vertices: [v('w1', 'Well'), v('o1', 'Operator')],
            edges: [{ ...lazy, id: lazy.id }],
            derivedEdgeIds: true,
          },
          importSchema,
        )[1].data,
      );
    });
    it("edges whose ids were chosen otherwise (the seed's random ones) keep them in the packed batch", () => {
      const [, packed] = planImport(
        {
          ...base,
          vertices: [v('w1', 'Well'), v('o1', 'Operator')],
          edges: [{ ...e('e1', 'OPERATED_BY', ['w1', 'Well'], ['o1', 'Operator']), properties: { since: '2020' } }],
        },
        importSchema,
      );
      expect((packed.data as PackedGraphBatchData).edges).to.deep.equal([
        {
          label: 'OPERATED_BY',
          fromLabel: 'Well',
          toLabel: 'Operator',
          keys: ['since'],
          rows: [['w1', 'o1', '2020']],
          ids: ['e1'],
        },
      ]);
      expect(batchEdges(packed.type, packed.data as PackedGraphBatchData)[0]).to.deep.equal({
        ...e('e1', 'OPERATED_BY', ['w1', 'Well'], ['o1', 'Operator']),
        properties: { since: '2020' },
      });
    });
    it('refuses unknown labels, rule violations and dangling endpoints', () => {
      expect(() => planImport({ ...base, vertices: [v('x', 'Rocket')], edges: [] }, importSchema)).to.throw(
        ValidationFailed,
      );
      expect(() =>
        planImport(
          {
            ...base,
            vertices: [v('o1', 'Operator')],
            edges: [e('e1', 'OPERATED_BY', ['o1', 'Operator'], ['o1', 'Operator'])],
          },
          importSchema,
        ),
      ).to.throw(ValidationFailed, /no OPERATED_BY rule/);
      expect(() =>
        planImport(
          { ...base, vertices: [v('w1', 'Well')], edges: [e('e1', 'OPERATED_BY', ['w1', 'Well'], ['o9', 'Operator'])] },
          importSchema,
        ),
      ).to.throw(ValidationFailed, /o9/);
      expect(
        planImport(
          { ...base, vertices: [v('w1', 'Well')], edges: [e('e1', 'OPERATED_BY', ['w1', 'Well'], ['o9', 'Operator'])] },
          importSchema,
          new Set(['o9']),
        ),
      ).to.have.length(3);
    });
  });
});
