import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { complianceContext } from '../../../src/contexts/compliance/module';
import { graphContext } from '../../../src/contexts/graph/module';
import { COMPLIANCE_ANOMALY_FLAGGED } from '../../../src/platform/published/anomaly-flagged';
import { assessedEntities as assessedEntitiesOf, readAssessmentEvent } from '../../../streams/compliance/assessment';
import { signIn } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

const DOMAINS = ['rule_32', 'rule_37', 'production', 'drilling', 'inactive_wells', 'well_tests', 'operators'];
/** Packs that assess every well (production assesses oil leases and gas wells instead). */
const WELL_PACKS = 5;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('compliance dashboard over a seeded Texas portfolio', () => {
  let t: TestPlatform;
  let auth: Record<string, string>;
  let tenantId: string;
  let beforeTenant: string;
  /** Dashboard rows: wells, leases and operators; assessed: those some rule applies to (a gas lease files nothing). */
  let entities: number;
  let assessedEntities: number;
  let cells: number;

  before(async () => {
    t = await startTestPlatform({ contexts: [graphContext, complianceContext] });
    beforeTenant = new Date(Date.now() - 1000).toISOString();
    const session = await signIn(t, { roles: ['operator'], tenantId: randomUUID() });
    auth = session.headers;
    tenantId = session.tenantId;
    // Seed the portfolio as of this month so deadlines fall around today.
    const seeded = await t.api.post('/graph/seed', { wells: 40, as_of: new Date().toISOString().slice(0, 7) }, auth);
    expect(seeded.status).to.equal(201);
    const all = async (label: string) =>
      (await t.api.get(`/graph/entities/${label}?limit=200`, auth)).body.entities as Array<{
        entity_id: string;
        properties: Record<string, string>;
      }>;
    const [leases, operators, wells] = [await all('Lease'), await all('Operator'), await all('Well')];
    const oilLeases = leases.filter((l) => l.properties.oil_gas_code === 'O').length;
    const gasWells = wells.filter((w) => w.properties.well_type === 'gas').length;
    entities = 40 + leases.length + operators.length;
    assessedEntities = 40 + oilLeases + operators.length;
    cells = 40 * WELL_PACKS + gasWells + oilLeases + operators.length;
  });
  after(() => t.close());

  const get = (path: string, headers = auth) => t.api.get(path, headers);

  it('lists the seven installed domain packs with short titles and the labels they assess', async () => {
    const response = await get('/compliance/domains');
    expect(response.status).to.equal(200);
    expect(response.body.map((d: any) => d.domain)).to.deep.equal(DOMAINS);
    for (const d of response.body) expect(d).to.have.keys('domain', 'title', 'short_title', 'applies_to');
    expect(response.body.find((d: any) => d.domain === 'operators').applies_to).to.deep.equal(['Operator']);
  });

  it('before any assessment every entity is grey, the counts are 0 and the trend is one current, unrecorded point', async () => {
    const matrix = await get('/compliance/matrix?page_size=200');
    expect(matrix.status).to.equal(200);
    expect(matrix.body.total).to.equal(entities);
    for (const row of matrix.body.rows) expect(Object.values(row.domains)).to.deep.equal(DOMAINS.map(() => 'grey'));
    const summary = await get('/compliance/summary');
    expect(summary.body).to.deep.equal({
      overdue_count: 0,
      overdue_delta: 0,
      due_7_days_count: 0,
      due_7_days_delta: 0,
      due_30_days_count: 0,
      due_30_days_delta: 0,
      anomaly_count: 0,
      anomaly_delta: 0,
    });
    const trend = await get('/compliance/charts/trend?days=30');
    expect(trend.body.points).to.have.length(1);
    expect(trend.body.points[0]).to.include({ recorded: false, overdue_count: 0 });
  });

  describe('after a portfolio assessment', () => {
    let assessed: any;
    let matrixThen: any;
    let summaryThen: any;
    let instant: string;

    before(async () => {
      assessed = await t.api.post('/compliance/assess', {}, auth);
      matrixThen = (await get('/compliance/matrix?page_size=200')).body;
      summaryThen = (await get('/compliance/summary')).body;
      await sleep(20);
      instant = new Date().toISOString();
      await sleep(20);
    });

    it('records the snapshot: every entity assessed in every domain that applies to it, status complete', () => {
      expect(assessed.status).to.equal(200);
      expect(assessed.body).to.include({ scope: 'portfolio', status: 'complete', entities: assessedEntities, cells });
      expect(assessed.body.failed_domains).to.deep.equal({});
      expect(assessed.body.assessed_on).to.equal(new Date().toISOString().slice(0, 10));
    });

    it('the assessment is stored as events in its own compliance stream', async () => {
      const stream = `compliance.assessment-${tenantId}-${assessed.body.assessment_id}`;
      const events = await t.deps.store.readStream(stream);
      expect(events.map((e) => e.type)).to.deep.equal(['VerdictsAssessed', 'AssessmentRecorded']);
      expect(assessedEntitiesOf(readAssessmentEvent(events[0]))).to.have.length(assessedEntities);
    });

    it('each summary count equals the matrix total for the same bucket', async () => {
      const pairs: Array<[string, string]> = [
        ['overdue', 'overdue_count'],
        ['due_7d', 'due_7_days_count'],
        ['due_30d', 'due_30_days_count'],
        ['anomalies', 'anomaly_count'],
      ];
      for (const [bucket, field] of pairs) {
        const m = await get(`/compliance/matrix?bucket=${bucket}`);
        expect(m.status).to.equal(200);
        expect(m.body.total, bucket).to.equal(summaryThen[field]);
      }
      expect(summaryThen.overdue_count).to.be.greaterThan(0);
      expect(summaryThen.overdue_delta).to.equal(0);
    });

    it('status filters by the worst cell and combines with bucket; rows carry every domain', async () => {
      const overdue = await get('/compliance/matrix?status=overdue&page_size=200');
      expect(overdue.body.total).to.be.greaterThan(0);
      for (const row of overdue.body.rows) {
        expect(Object.keys(row.domains)).to.deep.equal(DOMAINS);
        expect(Object.values(row.domains)).to.include('red');
      }
      const compliant = await get('/compliance/matrix?status=compliant&page_size=200');
      for (const row of compliant.body.rows)
        expect(Object.values(row.domains)).to.not.include.members(['red', 'amber', 'blue']);
      const both = await get('/compliance/matrix?status=compliant&bucket=overdue');
      expect(both.body.total).to.equal(0);
      expect((await get('/compliance/matrix?entity_type=well')).body.total).to.equal(40);
      expect((await get('/compliance/matrix?entity_type=Lease')).body.total).to.be.greaterThan(0);
    });

    it('search, sort and paging: a page beyond the end is empty with the true total', async () => {
      const one = matrixThen.rows[3];
      const found = await get(`/compliance/matrix?search=${encodeURIComponent(one.entity_id)}`);
      expect(found.body.rows.map((r: any) => r.entity_id)).to.deep.equal([one.entity_id]);
      const byId = await get('/compliance/matrix?sort_by=-entity_id&page_size=5&page=2');
      const ids = matrixThen.rows
        .map((r: any) => r.entity_id)
        .sort()
        .reverse();
      expect(byId.body.rows.map((r: any) => r.entity_id)).to.deep.equal(ids.slice(5, 10));
      expect(byId.body).to.include({ total: entities, limit: 5, offset: 5 });
      const beyond = await get(`/compliance/matrix?page=${Math.ceil(entities / 10) + 1}&page_size=10`);
      expect(beyond.body).to.include({ total: entities });
      expect(beyond.body.rows).to.deep.equal([]);
    });

    it('an unknown bucket, status or sort column, or a page size over 200, answers 422', async () => {
      for (const q of ['bucket=later', 'status=bad', 'sort_by=color', 'page_size=201', 'page=0', 'as_of=yesterday']) {
        const r = await get(`/compliance/matrix?${q}`);
        expect(r.status, q).to.equal(422);
        expect(r.body.detail[0].loc[0]).to.equal('query');
      }
    });

    it('charts: deadlines, trend with the recorded point, filings per domain, flaring volumes by month', async () => {
      const deadlines = await get('/compliance/charts/deadlines');
      expect(deadlines.status).to.equal(200);
      expect(deadlines.body.total).to.equal(
        Object.values(deadlines.body.buckets as Record<string, number>).reduce((a, b) => a + b, 0),
      );
      expect(deadlines.body.weeks).to.have.length(12);
      const trend = await get('/compliance/charts/trend?days=7');
      expect(trend.body.points).to.have.length(1);
      expect(trend.body.points[0]).to.include({ recorded: true, overdue_count: summaryThen.overdue_count });
      const filings = await get('/compliance/charts/filings');
      expect(filings.body.domains.map((d: any) => d.domain)).to.deep.equal(DOMAINS);
      for (const d of filings.body.domains) expect(d.green + d.amber + d.red + d.blue + d.grey).to.equal(entities);
      const flaring = await get('/compliance/charts/flaring?months=3');
      expect(flaring.body.months).to.have.length(3);
      const reported = flaring.body.months.reduce((s: number, m: any) => s + m.reported_flared_mcf, 0);
      const wells = (await t.api.get('/graph/entities/Well?limit=100', auth)).body.entities;
      const flared = wells.reduce((s: number, w: any) => s + Number(w.properties.gas_flared_mcf), 0);
      expect(reported).to.equal(flared);
      expect((await get('/compliance/charts/trend?days=0')).status).to.equal(422);
    });

    it('as_of answers from the log as it stood then: a graph change shows today, not in the past matrix', async () => {
      const target = matrixThen.rows.find((r: any) => r.entity_type === 'Well');
      const well = (await t.api.get(`/graph/entities/Well/${encodeURIComponent(target.entity_id)}`, auth)).body;
      // Rename the well and make it flare without an authorization, then add a well.
      expect(
        (
          await t.api.put(
            `/graph/entities/Well/${well.id}`,
            { properties: { name: 'RENAMED 1H', gas_flared_mcf: 900000, producing_days: 30 } },
            auth,
          )
        ).status,
      ).to.equal(200);
      expect(
        (
          await t.api.post(
            '/graph/entities',
            { label: 'Well', properties: { entity_id: '42-501-99999', name: 'NEW WELL 1', status: 'permitted' } },
            auth,
          )
        ).status,
      ).to.equal(201);
      const reassessed = await t.api.post(`/compliance/assess/${encodeURIComponent(target.entity_id)}`, {}, auth);
      expect(reassessed.status).to.equal(200);
      expect(reassessed.body.results.rule_32).to.include({ color: 'red' });
      expect(reassessed.body).to.include({ scope: 'entity', entity_id: target.entity_id, entities: 1 });
      expect(reassessed.body.cells)
        .to.equal(Object.keys(reassessed.body.results).length)
        .and.to.be.at.least(WELL_PACKS);
      expect(reassessed.body.results.rule_32.reason).to.contain('16 TAC §3.32 (Statewide Rule 32)');

      const today = (await get('/compliance/matrix?page_size=200')).body;
      expect(today.total).to.equal(entities + 1);
      const renamed = today.rows.find((r: any) => r.entity_id === target.entity_id);
      expect(renamed.entity_name).to.equal('RENAMED 1H');
      expect(renamed.domains.rule_32).to.equal('red');
      expect(today.rows.find((r: any) => r.entity_id === '42-501-99999').domains).to.deep.equal(
        Object.fromEntries(DOMAINS.map((d) => [d, 'grey'])),
      );

      const then = (await get(`/compliance/matrix?page_size=200&as_of=${encodeURIComponent(instant)}`)).body;
      expect(then.rows).to.deep.equal(matrixThen.rows);
      expect(then.total).to.equal(entities);
      expect((await get(`/compliance/summary?as_of=${encodeURIComponent(instant)}`)).body).to.deep.equal(summaryThen);
    });

    it('an as_of before the tenant existed answers an empty dashboard', async () => {
      const m = await get(`/compliance/matrix?as_of=${encodeURIComponent(beforeTenant)}`);
      expect(m.status).to.equal(200);
      expect(m.body).to.include({ total: 0 });
      expect(m.body.rows).to.deep.equal([]);
      const s = await get(`/compliance/summary?as_of=2001-01-01T00:00:00Z`);
      expect(s.body.overdue_count).to.equal(0);
      expect(s.body.anomaly_count).to.equal(0);
    });

    it('a ComplianceAnomalyFlagged event from another context counts its entity in the anomalies bucket', async () => {
      const before = (await get('/compliance/summary')).body;
      const flaggedBefore = new Date().toISOString();
      await sleep(20);
      const { position } = await t.deps.store.append(
        `ingestion.scada-${tenantId}-${randomUUID()}`,
        [
          {
            type: COMPLIANCE_ANOMALY_FLAGGED,
            data: {
              entityId: '42-999-00001',
              entityLabel: 'Well',
              domain: 'rule_32',
              kind: 'unknown_well',
              detail: 'SCADA reading for a well not in the graph',
              observedAt: new Date().toISOString(),
              source: 'scada',
            },
            metadata: { tenantId, actorId: 'scada', correlationId: randomUUID(), causationId: randomUUID() },
          },
        ],
        { expectedRevision: 'no_stream' },
      );
      expect(await t.deps.projections.waitFor(position, 30_000)).to.equal(true);
      const after = (await get('/compliance/summary')).body;
      expect(after.anomaly_count).to.equal(before.anomaly_count + 1);
      const rows = (await get('/compliance/matrix?bucket=anomalies&search=42-999-00001')).body.rows;
      expect(rows).to.deep.equal([
        {
          entity_id: '42-999-00001',
          entity_name: '42-999-00001',
          entity_type: 'Well',
          domains: { ...Object.fromEntries(DOMAINS.map((d) => [d, 'grey'])), rule_32: 'amber' },
        },
      ]);
      expect((await get(`/compliance/summary?as_of=${encodeURIComponent(flaggedBefore)}`)).body.anomaly_count).to.equal(
        before.anomaly_count,
      );
    });
  });

  it('assessing an entity of another tenant answers 404', async () => {
    const other = await signIn(t, { roles: ['admin'], tenantId: randomUUID() });
    const wells = (await t.api.get('/graph/entities/Well?limit=1', auth)).body.entities;
    expect(
      (await t.api.post(`/compliance/assess/${encodeURIComponent(wells[0].entity_id)}`, {}, other.headers)).status,
    ).to.equal(404);
    expect((await t.api.get('/compliance/matrix', other.headers)).body.total).to.equal(0);
  });

  it('dashboard reads need dashboards.read', async () => {
    const none = await signIn(t, { roles: [], tenantId });
    expect((await get('/compliance/summary', none.headers)).status).to.equal(403);
    expect((await get('/compliance/matrix', none.headers)).status).to.equal(403);
    expect((await t.api.post('/compliance/assess', {}, none.headers)).status).to.equal(403);
  });

  it('an assessment writes, so it needs compliance.assess: a reviewer reads the dashboard but is refused 403', async () => {
    const reviewer = await signIn(t, { roles: ['reviewer'], tenantId });
    expect((await get('/compliance/summary', reviewer.headers)).status).to.equal(200);
    const refused = await t.api.post('/compliance/assess', {}, reviewer.headers);
    expect(refused.status).to.equal(403);
    expect(refused.body).to.deep.equal({ detail: 'Insufficient permissions' });
    const wells = (await t.api.get('/graph/entities/Well?limit=1', auth)).body.entities;
    expect(
      (await t.api.post(`/compliance/assess/${encodeURIComponent(wells[0].entity_id)}`, {}, reviewer.headers)).status,
    ).to.equal(403);
  });
});
