import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { complianceCellsProjector } from '../../../projections/compliance/cells';
import { complianceDashboardProjector } from '../../../projections/compliance/dashboard';
import { bucketCounts } from '../../../projections/compliance/selectors';
import { CELLS, COUNTS, DAILY, ROWS } from '../../../projections/compliance/tables';
import { matrix, summary } from '../../../queries/compliance/dashboard';
import { entityStatus } from '../../../queries/compliance/entity-status';
import { trendChart } from '../../../queries/compliance/charts';
import { DEFAULT_PACKS } from '../../../commands/compliance/packs';
import type { RecordedEvent } from '../../../src/platform/eventstore/types';
import { connectDatabase, type Database } from '../../../src/platform/infra/database';
import type { AssessedCell, AssessmentEvent } from '../../../streams/compliance/assessment';
import { createTestDatabase } from '../../support/database';

/**
 * Projection specification: given events (with the recorded times chosen here) → the
 * dashboard's rows, counts and deltas at chosen instants.
 */
describe('compliance dashboard projection: versions, daily snapshots, weekly deltas, as-of', () => {
  let db: Database;
  // The dashboard and the cell versions are two lanes over the same events.
  const projectors = [complianceCellsProjector(), complianceDashboardProjector(DEFAULT_PACKS)];
  const domains = DEFAULT_PACKS.map((p) => p.domain);
  const tenantId = randomUUID();
  let position = 0n;
  const day = (d: string) => new Date(`${d}T12:00:00Z`);

  before(async () => {
    db = connectDatabase((await createTestDatabase()).url, { poolSize: 2 });
    for (const projector of projectors) await projector.createTables(db.knex);
  });
  after(() => db.close());

  const recorded = (
    type: string,
    data: unknown,
    at: Date,
    stream = `compliance.assessment-${tenantId}-x`,
  ): RecordedEvent => ({
    id: randomUUID(),
    stream,
    revision: 0n,
    position: { commit: ++position, prepare: position },
    type,
    data,
    metadata: { tenantId, actorId: 'test', correlationId: 'c', causationId: 'c', signature: 's' },
    recordedAt: at,
  });
  const given = async (events: RecordedEvent[]) => {
    for (const projector of projectors)
      await db.knex.transaction((trx) =>
        projector.applyBatch!(
          trx,
          events.filter((e) => projector.eventTypes!.includes(e.type)),
        ),
      );
  };

  const cell = (
    domain: string,
    color: AssessedCell['color'],
    bucket: AssessedCell['bucket'] = null,
    anomaly = false,
  ): AssessedCell => ({ domain, color, bucket, dueDate: null, anomaly, reason: `${color} ${bucket}`, facts: {} });
  const assessment = (at: Date, verdicts: Record<string, AssessedCell[]>): RecordedEvent[] => {
    const assessmentId = randomUUID();
    const entities = Object.entries(verdicts).map(([entityId, cells]) => ({
      entityId,
      entityType: 'Well',
      entityName: entityId,
      cells,
    }));
    const events: AssessmentEvent[] = [
      { type: 'EntitiesAssessed', data: { assessmentId, batch: 0, entities } },
      {
        type: 'AssessmentRecorded',
        data: {
          assessmentId,
          scope: 'portfolio',
          entityId: null,
          assessedOn: at.toISOString().slice(0, 10),
          assessedAt: at.toISOString(),
          domains,
          failedDomains: {},
          status: 'complete',
          entities: entities.length,
          cells: entities.length,
        },
      },
    ];
    return events.map((e) => recorded(e.type, e.data, at));
  };
  const vertex = (entityId: string, name: string) => ({
    id: randomUUID(),
    label: 'Well',
    entity_id: entityId,
    properties: { entity_id: entityId, name },
  });

  const wellA = vertex('42-501-00001', 'JONES 1H');
  const wellB = vertex('42-501-00002', 'JONES 2H');

  before(async () => {
    await given([
      recorded(
        'GraphBatchImported',
        {
          importId: randomUUID(),
          namespace: 'ns',
          batch: 0,
          vertices: [wellA, wellB, { ...vertex('FLD-1', 'SPRABERRY (TREND AREA)'), label: 'Field' }],
          edges: [],
        },
        day('2026-03-01'),
        'graph.import-x',
      ),
    ]);
    await given(
      assessment(day('2026-03-02'), {
        [wellA.entity_id]: [cell('production', 'red', 'overdue')],
        [wellB.entity_id]: [cell('production', 'red', 'overdue')],
      }),
    );
    await given(
      assessment(day('2026-03-12'), {
        [wellA.entity_id]: [cell('production', 'green')],
        [wellB.entity_id]: [cell('production', 'red', 'overdue'), cell('rule_32', 'red', 'overdue', true)],
      }),
    );
  });

  it('only labels the packs assess enter the dashboard, with unassessed domains grey', async () => {
    const before = await matrix(db.knex, tenantId, day('2026-03-01'), DEFAULT_PACKS, {
      sort_by: 'entity_id',
      descending: false,
      page: 1,
      page_size: 50,
    });
    expect(before.total).to.equal(2);
    // An import opens its entities' rows grey, and the counts with them.
    expect(await bucketCounts(db.knex, tenantId, day('2026-03-01'))).to.deep.include({
      entities: 2,
      colors: { red: 0, amber: 0, blue: 0, green: 0, grey: 2 },
    });
    expect(before.rows[0].domains).to.deep.equal(Object.fromEntries(domains.map((d) => [d, 'grey'])));
  });

  it('each assessment records a daily snapshot of the counts as they stood after it', async () => {
    const rows = await db.knex(DAILY).where({ tenant_id: tenantId }).orderBy('day');
    expect(rows.map((r) => [r.day, r.overdue_count, r.anomaly_count])).to.deep.equal([
      ['2026-03-02', 2, 0],
      ['2026-03-12', 1, 1],
    ]);
  });

  it('deltas compare with the latest snapshot at least a week old, and are 0 without one', async () => {
    const now = await summary(db.knex, tenantId, day('2026-03-12'));
    expect(now).to.include({ overdue_count: 1, overdue_delta: -1, anomaly_count: 1, anomaly_delta: 1 });
    const early = await summary(db.knex, tenantId, day('2026-03-05'));
    expect(early).to.include({ overdue_count: 2, overdue_delta: 0 });
  });

  it('as-of reads the cell versions valid at the instant', async () => {
    const then = await matrix(db.knex, tenantId, day('2026-03-05'), DEFAULT_PACKS, {
      sort_by: 'entity_id',
      descending: false,
      page: 1,
      page_size: 50,
    });
    expect(then.rows.map((r) => r.domains.production)).to.deep.equal(['red', 'red']);
    const now = await matrix(db.knex, tenantId, day('2026-03-12'), DEFAULT_PACKS, {
      bucket: 'anomalies',
      sort_by: 'entity_id',
      descending: false,
      page: 1,
      page_size: 50,
    });
    expect(now.rows.map((r) => r.entity_id)).to.deep.equal([wellB.entity_id]);
  });

  it('re-assessing with the same verdicts opens no new cell versions', async () => {
    const count = async () =>
      Number((await db.knex(CELLS).where({ tenant_id: tenantId }).count<{ count: string }[]>('* as count'))[0].count);
    const before = await count();
    await given(
      assessment(day('2026-03-13'), {
        [wellA.entity_id]: [cell('production', 'green')],
        [wellB.entity_id]: [cell('production', 'red', 'overdue'), cell('rule_32', 'red', 'overdue', true)],
      }),
    );
    expect(await count()).to.equal(before);
  });

  it('a renamed well keeps its old name in the past; a deleted one leaves the dashboard from then on', async () => {
    await given([
      recorded(
        'VertexPropertiesUpdated',
        { vertexId: wellA.id, namespace: 'ns', set: { name: 'SMITH 1H' }, removed: [] },
        day('2026-03-14'),
        'graph.vertex-x',
      ),
    ]);
    await given([
      recorded(
        'VertexDeleted',
        { vertexId: wellB.id, namespace: 'ns', label: 'Well', entityId: wellB.entity_id, edgeIds: [] },
        day('2026-03-15'),
        'graph.vertex-y',
      ),
    ]);
    const names = async (at: string) =>
      (
        await matrix(db.knex, tenantId, day(at), DEFAULT_PACKS, {
          sort_by: 'entity_id',
          descending: false,
          page: 1,
          page_size: 50,
        })
      ).rows.map((r) => r.entity_name);
    expect(await names('2026-03-13')).to.deep.equal(['JONES 1H', 'JONES 2H']);
    expect(await names('2026-03-16')).to.deep.equal(['SMITH 1H']);
  });

  it('a flagged anomaly counts for 30 days after it was observed', async () => {
    await given([
      recorded(
        'ComplianceAnomalyFlagged',
        {
          entityId: wellA.entity_id,
          entityLabel: 'Well',
          domain: 'rule_32',
          kind: 'flared_above_authorization',
          detail: 'x',
          observedAt: '2026-03-20T00:00:00Z',
          source: 'scada',
        },
        day('2026-03-20'),
        'ingestion.scada-x',
      ),
    ]);
    expect((await summary(db.knex, tenantId, day('2026-03-21'))).anomaly_count).to.equal(1);
    expect((await summary(db.knex, tenantId, day('2026-04-25'))).anomaly_count).to.equal(0);
    // A domain no pack installs still counts the entity as an anomaly.
    await given([
      recorded(
        'ComplianceAnomalyFlagged',
        {
          entityId: 'FAC-1',
          entityLabel: 'Facility',
          domain: 'emissions',
          kind: 'scada_gap',
          detail: 'x',
          observedAt: '2026-05-01T00:00:00Z',
          source: 'scada',
        },
        day('2026-05-01'),
        'ingestion.scada-y',
      ),
    ]);
    const may = await matrix(db.knex, tenantId, day('2026-05-02'), DEFAULT_PACKS, {
      bucket: 'anomalies',
      sort_by: 'entity_id',
      descending: false,
      page: 1,
      page_size: 50,
    });
    expect(may.rows).to.deep.equal([
      {
        entity_id: 'FAC-1',
        entity_name: 'FAC-1',
        entity_type: 'Facility',
        domains: Object.fromEntries(domains.map((d) => [d, 'grey'])),
      },
    ]);
    // The type filter names the rows' labels, and still finds an entity known only from its anomaly by its own.
    const ofType = async (entity_type: string) =>
      (
        await matrix(db.knex, tenantId, day('2026-05-02'), DEFAULT_PACKS, {
          entity_type,
          sort_by: 'entity_id',
          descending: false,
          page: 1,
          page_size: 50,
        })
      ).rows.map((r) => r.entity_id);
    expect(await ofType('facility')).to.deep.equal(['FAC-1']);
    expect(await ofType('well')).to.deep.equal([wellA.entity_id]);
    expect(await ofType('WELL')).to.deep.equal([wellA.entity_id]);
    expect(await ofType('flaring_authorization')).to.deep.equal([]);
  });

  it('the trend is the recorded daily snapshots in the window, oldest first', async () => {
    const trend = await trendChart(db.knex, tenantId, domains, day('2026-03-13'), 5);
    expect(trend.points.map((p) => [p.date, p.overdue_count, p.recorded])).to.deep.equal([
      ['2026-03-12', 1, true],
      ['2026-03-13', 1, true],
    ]);
  });

  it('a row keeps the verdicts of the domains an assessment left out (a failed pack), and follows a deleted well that comes back', async () => {
    const wellC = vertex('42-501-00003', 'JONES 3H');
    const row = async (at: string) =>
      (
        await matrix(db.knex, tenantId, day(at), DEFAULT_PACKS, {
          sort_by: 'entity_id',
          descending: false,
          page: 1,
          page_size: 50,
        })
      ).rows.find((r) => r.entity_id === wellC.entity_id);
    await given([
      recorded(
        'GraphBatchImported',
        { importId: randomUUID(), namespace: 'ns', batch: 0, vertices: [wellC], edges: [] },
        day('2026-06-01'),
        'graph.import-y',
      ),
    ]);
    await given(
      assessment(day('2026-06-02'), {
        [wellC.entity_id]: [cell('production', 'red', 'overdue'), cell('rule_32', 'amber', 'due_7d')],
      }),
    );
    await given(assessment(day('2026-06-03'), { [wellC.entity_id]: [cell('production', 'green')] }));
    expect(await row('2026-06-03')).to.deep.include({
      domains: { ...Object.fromEntries(domains.map((d) => [d, 'grey'])), production: 'green', rule_32: 'amber' },
    });
    const due7 = await matrix(db.knex, tenantId, day('2026-06-03'), DEFAULT_PACKS, {
      bucket: 'due_7d',
      sort_by: 'entity_id',
      descending: false,
      page: 1,
      page_size: 50,
    });
    expect(due7.rows.map((r) => r.entity_id)).to.include(wellC.entity_id);
    await given([
      recorded(
        'VertexDeleted',
        { vertexId: wellC.id, namespace: 'ns', label: 'Well', entityId: wellC.entity_id, edgeIds: [] },
        day('2026-06-04'),
        'graph.vertex-z',
      ),
    ]);
    expect(await row('2026-06-05')).to.equal(undefined);
    await given([
      recorded(
        'GraphBatchImported',
        { importId: randomUUID(), namespace: 'ns', batch: 0, vertices: [{ ...wellC, id: randomUUID() }], edges: [] },
        day('2026-06-06'),
        'graph.import-z',
      ),
    ]);
    expect((await row('2026-06-07'))?.domains).to.include({ production: 'green', rule_32: 'amber' });
  });

  it('a batch of single creations opens each entity at its own time and moves the counts once per time, a returning one with its verdicts', async () => {
    const other = randomUUID();
    const mine = (events: RecordedEvent[]) =>
      events.map((e) => ({ ...e, metadata: { ...e.metadata, tenantId: other } }));
    const created = (well: ReturnType<typeof vertex>, at: Date) =>
      recorded(
        'VertexCreated',
        {
          vertexId: well.id,
          namespace: 'ns',
          label: well.label,
          entityId: well.entity_id,
          properties: well.properties,
        },
        at,
        `graph.vertex-${well.id}`,
      );
    const [d, e, f] = [
      vertex('42-501-00011', 'DELTA 1H'),
      vertex('42-501-00012', 'ECHO 1H'),
      vertex('42-501-00013', 'FOXTROT 1H'),
    ];
    // D was assessed, deleted and now comes back in the run, beside two new wells and a Field the packs do not assess.
    await given(mine([created(d, day('2026-08-01'))]));
    await given(mine(assessment(day('2026-08-02'), { [d.entity_id]: [cell('production', 'red', 'overdue')] })));
    await given(
      mine([
        recorded(
          'VertexDeleted',
          { vertexId: d.id, namespace: 'ns', label: 'Well', entityId: d.entity_id, edgeIds: [] },
          day('2026-08-03'),
          'graph.vertex-d',
        ),
      ]),
    );
    const t = (hour: number) => new Date(`2026-08-04T${String(hour).padStart(2, '0')}:00:00Z`);
    await given(
      mine([
        created(e, t(1)),
        created({ ...vertex('FLD-2', 'WOLFBERRY'), label: 'Field' }, t(2)),
        created(f, t(3)),
        created({ ...d, id: randomUUID() }, t(4)),
      ]),
    );

    const rows = await db
      .knex(ROWS)
      .where({ tenant_id: other, valid_to: null })
      .orderBy('entity_id')
      .select('entity_id', 'valid_from', 'severity');
    expect(rows.map((r) => [r.entity_id, r.valid_from.toISOString(), r.severity])).to.deep.equal([
      [d.entity_id, t(4).toISOString(), 4],
      [e.entity_id, t(1).toISOString(), 0],
      [f.entity_id, t(3).toISOString(), 0],
    ]);
    const versions = await db
      .knex(COUNTS)
      .where({ tenant_id: other })
      .where('valid_from', '>=', t(0))
      .orderBy('id')
      .select('valid_from', 'entities', 'grey', 'red', 'overdue');
    expect(versions.map((v) => [v.valid_from.toISOString(), v.entities, v.grey, v.red, v.overdue])).to.deep.equal([
      [t(1).toISOString(), 1, 1, 0, 0],
      [t(3).toISOString(), 2, 2, 0, 0],
      [t(4).toISOString(), 3, 2, 1, 1],
    ]);
    expect(await bucketCounts(db.knex, other, t(2))).to.deep.include({ entities: 1 });
  });

  it('cell versions keep reasons and facts as written, control characters and backslashes included, on a first assessment and a changed one', async () => {
    const other = randomUUID();
    const at = (d: string, events: RecordedEvent[]) =>
      events.map((e) => ({ ...e, metadata: { ...e.metadata, tenantId: other } }));
    const written = (text: string): AssessedCell => ({
      ...cell('production', 'red', 'overdue'),
      dueDate: '2026-07-31',
      reason: `${text}: "quoted"\ttab\nline\r\\N back\\slash é`,
      facts: { note: `a\\b\t"c"\n`, wells: 2, filed: null },
    });
    const current = async () =>
      db
        .knex(CELLS)
        .where({ tenant_id: other, valid_to: null })
        .select('reason', 'facts', 'due_date', 'bucket', 'anomaly');
    // The tenant's first assessment (nothing to compare with), then a changed verdict (compared, closed, reopened).
    for (const [d, text] of [
      ['2026-07-01', 'first'],
      ['2026-07-02', 'changed'],
    ]) {
      await given(at(d, assessment(day(d), { [wellA.entity_id]: [written(text)] })));
      const [row] = await current();
      expect(row).to.deep.include({
        reason: written(text).reason,
        facts: written(text).facts,
        bucket: 'overdue',
        anomaly: false,
      });
      expect(row.due_date).to.be.instanceOf(Date);
    }
    expect(await db.knex(CELLS).where({ tenant_id: other }).count<{ count: string }[]>('* as count')).to.deep.equal([
      { count: '2' },
    ]);
  });
  it("an entity's status: its current cells by domain and its anomalies of the last 30 days, latest first, in one read", async () => {
    const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000);
    const wellC = vertex('42-501-00003', 'JONES 3H');
    await given([
      recorded(
        'GraphBatchImported',
        { importId: randomUUID(), namespace: 'ns', batch: 0, vertices: [wellC], edges: [] },
        daysAgo(50),
        'graph.import-z',
      ),
    ]);
    await given(
      assessment(daysAgo(45), {
        [wellC.entity_id]: [cell('production', 'red', 'overdue'), cell('rule_32', 'red', 'overdue', true)],
      }),
    );
    const flagged = (kind: string, at: Date) =>
      recorded(
        'ComplianceAnomalyFlagged',
        {
          entityId: wellC.entity_id,
          entityLabel: 'Well',
          domain: 'rule_32',
          kind,
          detail: `${kind} seen`,
          observedAt: at.toISOString(),
          source: 'scada',
        },
        at,
        'ingestion.scada-z',
      );
    await given([
      flagged('scada_gap', daysAgo(40)),
      flagged('flared_above_authorization', daysAgo(3)),
      flagged('scada_gap', daysAgo(1)),
    ]);
    const status = await entityStatus(db.knex, tenantId, wellC.entity_id, domains);
    expect(status).to.deep.include({ entity_id: wellC.entity_id, entity_type: 'Well', entity_name: 'JONES 3H' });
    expect(status!.cells.map((c) => [c.domain, c.color, c.bucket, c.anomaly, c.due_date])).to.deep.equal([
      ['production', 'red', 'overdue', false, null],
      ['rule_32', 'red', 'overdue', true, null],
    ]);
    expect(status!.anomalies.map((a) => [a.kind, a.detail, a.observed_at.slice(0, 10)])).to.deep.equal([
      ['scada_gap', 'scada_gap seen', daysAgo(1).toISOString().slice(0, 10)],
      ['flared_above_authorization', 'flared_above_authorization seen', daysAgo(3).toISOString().slice(0, 10)],
    ]);
    expect(await entityStatus(db.knex, tenantId, wellC.entity_id, ['production'])).to.have.nested.property(
      'cells.length',
      1,
    );
    expect(await entityStatus(db.knex, tenantId, 'no-such-entity', domains)).to.equal(null);
  });
});
