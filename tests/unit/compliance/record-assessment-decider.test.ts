import { expect } from 'chai';
import { decideRecordAssessment, type RecordAssessment } from '../../../commands/compliance/record-assessment';
import type { Decider } from '../../../src/platform/command-handling/decider';
import { Conflict, Unavailable } from '../../../src/platform/domain-errors';
import {
  assessedEntities,
  ASSESSMENT_BATCH_SIZE,
  assessmentAggregate,
  type AssessmentEvent,
  type AssessmentState,
  packVerdicts,
  readAssessmentEvent,
} from '../../../streams/compliance/assessment';
import { given } from '../../support/given';

const decider: Decider<RecordAssessment, AssessmentState, AssessmentEvent> = {
  ...assessmentAggregate,
  decide: decideRecordAssessment,
};
const NOW = new Date('2026-01-15T12:00:00Z');
const entity = (i: number) => ({
  entityId: `42-501-${String(i).padStart(5, '0')}`,
  entityType: 'Well',
  entityName: `W ${i}`,
  cells: [
    {
      domain: 'production',
      color: 'green' as const,
      bucket: null,
      dueDate: '2026-02-27',
      anomaly: false,
      reason: 'ok',
      facts: { n: i },
    },
  ],
});
const command = (over: Partial<RecordAssessment> = {}): RecordAssessment => ({
  type: 'RecordAssessment',
  assessmentId: 'a-1',
  scope: 'portfolio',
  entityId: null,
  domains: ['production', 'rule_32'],
  failedDomains: {},
  entities: [entity(1), entity(2)],
  ...over,
});

describe('recording a compliance assessment', () => {
  it('records the entities in one batch, then the snapshot with the day and counts', () => {
    given(decider, [], NOW)
      .when(command())
      .then([
        { type: 'VerdictsAssessed', data: packVerdicts('a-1', 0, [entity(1), entity(2)]) },
        {
          type: 'AssessmentRecorded',
          data: {
            assessmentId: 'a-1',
            scope: 'portfolio',
            entityId: null,
            assessedOn: '2026-01-15',
            assessedAt: NOW.toISOString(),
            domains: ['production', 'rule_32'],
            failedDomains: {},
            status: 'complete',
            entities: 2,
            cells: 2,
          },
        },
      ]);
  });

  it('a run that started before midnight records the day its packs judged, not the day it recorded', () => {
    const justAfterMidnight = new Date('2026-01-16T00:00:02Z');
    const [, recorded] = given(decider, [], justAfterMidnight)
      .when(command({ judgedOn: '2026-01-15' }))
      .events();
    expect(recorded.type === 'AssessmentRecorded' && recorded.data).to.include({
      assessedOn: '2026-01-15',
      assessedAt: justAfterMidnight.toISOString(),
    });
  });

  it('splits a large portfolio into batches of 500 entities', () => {
    const events = given(decider, [], NOW)
      .when(command({ entities: Array.from({ length: 1201 }, (_, i) => entity(i)) }))
      .events();
    expect(events.map((e) => (e.type === 'VerdictsAssessed' ? e.data.entities.length : e.type))).to.deep.equal([
      ASSESSMENT_BATCH_SIZE,
      ASSESSMENT_BATCH_SIZE,
      201,
      'AssessmentRecorded',
    ]);
  });

  it('a failed domain makes the snapshot partial and names it', () => {
    const events = given(decider, [], NOW)
      .when(command({ failedDomains: { rule_32: 'timeout' } }))
      .events();
    expect(events[events.length - 1].data).to.include({ status: 'partial' });
    expect((events[events.length - 1].data as any).failedDomains).to.deep.equal({ rule_32: 'timeout' });
  });

  it('every domain failing records nothing and is unavailable', () => {
    given(decider, [], NOW)
      .when(command({ entities: [], failedDomains: { production: 'x', rule_32: 'y' } }))
      .thenThrows(Unavailable, /every compliance domain failed/);
  });

  it('an assessment is recorded once', () => {
    const history = given(decider, [], NOW).when(command()).events();
    given(decider, history, NOW).when(command()).thenThrows(Conflict);
  });

  it('packs the verdicts: the citation, the domain and the fact names once per batch, every verdict given back equal', () => {
    const cell = (domain: string, reason: string, facts: Record<string, string | number | boolean | null>) => ({
      domain,
      color: 'red' as const,
      bucket: 'overdue' as const,
      dueDate: null,
      anomaly: true,
      reason,
      facts,
    });
    const entities = [
      {
        ...entity(1),
        cells: [
          cell('rule_32', '16 TAC §3.32: flared 900 mcf: no authorization', {
            source: 'graph:Well/1',
            volume: 900,
            ok: false,
          }),
          cell('production', 'no citation', {}),
        ],
      },
      {
        ...entity(2),
        cells: [cell('rule_32', '16 TAC §3.32: flared 10 mcf', { source: 'graph:Well/2', volume: 10, ok: null })],
      },
    ];
    const [batch] = given(decider, [], NOW).when(command({ entities })).events();
    expect(batch.type).to.equal('VerdictsAssessed');
    const data = batch.data as ReturnType<typeof packVerdicts>;
    expect(data.domains).to.deep.equal(['rule_32', 'production']);
    expect(data.prefixes).to.deep.equal(['16 TAC §3.32: ', '']);
    expect(data.factKeys).to.deep.equal([['source', 'volume', 'ok'], []]);
    // As the store gives it back (JSON), then read.
    expect(assessedEntities(readAssessmentEvent(JSON.parse(JSON.stringify(batch))))).to.deep.equal(entities);
  });

  it('packs a reason written twice once, and a verdict citing its own entity without repeating the source', () => {
    const own = (e: ReturnType<typeof entity>) => ({
      ...e,
      cells: [
        {
          ...e.cells[0],
          reason: 'Rule 53: no W-10 on record',
          facts: { source: `graph:Well/${e.entityId}`, form: 'W-10' },
        },
      ],
    });
    const entities = [
      own(entity(1)),
      own(entity(2)),
      { ...entity(3), cells: [{ ...entity(3).cells[0], facts: { source: 'graph:Lease/O-08-1', n: 3 } }] },
    ];
    const [batch] = given(decider, [], NOW).when(command({ entities })).events();
    const data = batch.data as ReturnType<typeof packVerdicts>;
    expect(data.rests).to.deep.equal(['no W-10 on record', 'ok']);
    expect(data.factKeys).to.deep.equal([
      ['@source', 'form'],
      ['source', 'n'],
    ]);
    expect(data.entities[0][3][0].slice(8)).to.deep.equal(['W-10']);
    expect(assessedEntities(readAssessmentEvent(JSON.parse(JSON.stringify(batch))))).to.deep.equal(entities);
  });

  it('reads batches recorded before the reasons were interned (the rest of each reason in its cell)', () => {
    const data = {
      assessmentId: 'a',
      batch: 0,
      domains: ['production'],
      prefixes: ['16 TAC §3.58: '],
      factKeys: [['source', 'n']],
      entities: [
        ['42-501-00001', 'Well', 'W 1', [[0, 'green', null, null, false, 0, 'filed', 0, 'graph:Well/42-501-00001', 1]]],
      ],
    };
    expect(assessedEntities(readAssessmentEvent({ type: 'VerdictsAssessed', data }))).to.deep.equal([
      {
        entityId: '42-501-00001',
        entityType: 'Well',
        entityName: 'W 1',
        cells: [
          {
            domain: 'production',
            color: 'green',
            bucket: null,
            dueDate: null,
            anomaly: false,
            reason: '16 TAC §3.58: filed',
            facts: { source: 'graph:Well/42-501-00001', n: 1 },
          },
        ],
      },
    ]);
    expect(() =>
      readAssessmentEvent({
        type: 'VerdictsAssessed',
        data: {
          ...data,
          rests: [],
          entities: [[...data.entities[0].slice(0, 3), [[0, 'green', null, null, false, 0, 3, 0, 'x', 1]]]],
        },
      }),
    ).to.throw(/malformed VerdictsAssessed/);
  });

  it('reading back checks the batch shape without zod and rejects malformed cells, packed or not', () => {
    const [batch] = given(decider, [], NOW).when(command()).events();
    expect(readAssessmentEvent(batch)).to.deep.equal(batch);
    const packed = batch.data as ReturnType<typeof packVerdicts>;
    const badColor = {
      ...packed,
      entities: [[...packed.entities[0].slice(0, 3), [[0, 'purple', ...packed.entities[0][3][0].slice(2)]]]],
    };
    expect(() => readAssessmentEvent({ type: 'VerdictsAssessed', data: badColor })).to.throw(
      /malformed VerdictsAssessed/,
    );
    const badIndex = { ...packed, domains: [] };
    expect(() => readAssessmentEvent({ type: 'VerdictsAssessed', data: badIndex })).to.throw(
      /malformed VerdictsAssessed/,
    );
    // Assessments recorded before the packed form are still read.
    const old = { type: 'EntitiesAssessed', data: { assessmentId: 'a', batch: 0, entities: [entity(1)] } };
    expect(assessedEntities(readAssessmentEvent(old))).to.deep.equal([entity(1)]);
    const bad = {
      type: 'EntitiesAssessed',
      data: {
        assessmentId: 'a',
        batch: 0,
        entities: [{ ...entity(1), cells: [{ ...entity(1).cells[0], color: 'purple' }] }],
      },
    };
    expect(() => readAssessmentEvent(bad)).to.throw(/malformed EntitiesAssessed/);
  });
});
