import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { expectCellsOfWholeRun } from '../../support/whole-run';
import { COMPLIANCE_ANOMALY_FLAGGED } from '../../../src/platform/published/anomaly-flagged';
import { bucketCounts, dashboardRows } from '../../../projections/compliance/selectors';
import { complianceContext } from '../../../src/contexts/compliance/module';
import { DEFAULT_PACKS } from '../../../commands/compliance/packs';
import { graphContext } from '../../../src/contexts/graph/module';
import { assessedEntities, readAssessmentEvent } from '../../../streams/compliance/assessment';
import { signIn } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

/**
 * A portfolio re-assessed on the same day re-evaluates only the entities near a
 * graph change and records only the verdicts that changed, and the dashboard ends exactly
 * where a whole assessment would have put it.
 */
describe('re-assessing a portfolio: only what changed', () => {
  let t: TestPlatform;
  let auth: Record<string, string>;
  let tenantId: string;
  let first: any;

  before(async () => {
    // The paging test reads every page of many orders.
    t = await startTestPlatform({
      contexts: [graphContext, complianceContext],
      env: { RATE_LIMIT_BURST: '100000', RATE_LIMIT_PER_MINUTE: '100000' },
    });
    const session = await signIn(t, { roles: ['operator'], tenantId: randomUUID() });
    auth = session.headers;
    tenantId = session.tenantId;
    expect(
      (await t.api.post('/graph/seed', { wells: 30, as_of: new Date().toISOString().slice(0, 7) }, auth)).status,
    ).to.equal(201);
    first = (await t.api.post('/compliance/assess', {}, auth)).body;
  });
  after(() => t.close());

  const assess = async () => {
    const response = await t.api.post('/compliance/assess', {}, auth);
    expect(response.status).to.equal(200);
    const events = await t.deps.store.readStream(`compliance.assessment-${tenantId}-${response.body.assessment_id}`);
    const recorded = events[events.length - 1].data as { reassessed?: number };
    const verdicts = events.flatMap((e) => assessedEntities(readAssessmentEvent(e)));
    return { body: response.body, reassessed: recorded.reassessed, verdicts };
  };

  /** The current verdicts of the read model against a whole run of the packs now. */
  const expectSameAsWholeRun = () =>
    expectCellsOfWholeRun(t.deps.knex, tenantId, DEFAULT_PACKS, new Date().toISOString().slice(0, 10));

  it('an unchanged graph re-evaluates nothing, records no verdict and answers the same counts', async () => {
    const again = await assess();
    expect(again.reassessed).to.equal(0);
    expect(again.verdicts).to.deep.equal([]);
    expect(again.body).to.include({ status: 'complete', entities: first.entities, cells: first.cells });
  });

  it('a changed well re-evaluates only its neighborhood and records only the verdicts that changed', async () => {
    const wells = (await t.api.get('/graph/entities/Well?limit=100', auth)).body.entities as Array<{
      id: string;
      entity_id: string;
    }>;
    const target = wells[0];
    expect(
      (
        await t.api.put(
          `/graph/entities/Well/${target.id}`,
          { properties: { gas_flared_mcf: 900000, producing_days: 30 } },
          auth,
        )
      ).status,
    ).to.equal(200);
    const again = await assess();
    expect(again.reassessed).to.be.greaterThan(0).and.below(first.entities);
    expect(again.verdicts.map((v) => v.entityId)).to.include(target.entity_id);
    expect(again.verdicts.length).to.be.below(first.entities);
    expect(again.body).to.include({ entities: first.entities, cells: first.cells });
    await expectSameAsWholeRun();
  });

  it('a deleted vertex re-evaluates its former neighborhood, still recording only changes', async () => {
    const wells = (await t.api.get('/graph/entities/Well?limit=100', auth)).body.entities as Array<{ id: string }>;
    expect((await t.api.delete(`/graph/entities/Well/${wells[1].id}`, auth)).status).to.be.oneOf([200, 204]);
    const again = await assess();
    expect(again.reassessed).to.be.greaterThan(0);
    expect(again.verdicts.length).to.be.below(first.entities);
    await expectSameAsWholeRun();
  });

  it('paging reads the same order from either end: every page of every sort and filter concatenates to the whole list', async () => {
    // Two open anomalies, a known well's and an unknown entity's, are merged into the pages.
    const wells = (await t.api.get('/graph/entities/Well?limit=3', auth)).body.entities as Array<{ entity_id: string }>;
    for (const entityId of [wells[2].entity_id, '42-999-00001']) {
      const data = {
        entityId,
        entityLabel: 'Well',
        domain: 'rule_32',
        kind: 'unknown_well',
        detail: 'x',
        observedAt: new Date().toISOString(),
        source: 'scada',
      };
      const metadata = { tenantId, actorId: 'scada', correlationId: randomUUID(), causationId: randomUUID() };
      const { position } = await t.deps.store.append(
        `ingestion.scada-${tenantId}-${randomUUID()}`,
        [{ type: COMPLIANCE_ANOMALY_FLAGGED, data, metadata }],
        { expectedRevision: 'no_stream' },
      );
      expect(await t.deps.projections.waitFor(position, 30_000)).to.equal(true);
    }
    for (const sort of [
      'entity_name',
      '-entity_name',
      'entity_id',
      'entity_type',
      '-entity_type',
      'status',
      '-status',
      'due_date',
      '-due_date',
    ]) {
      for (const filter of [
        '',
        '&bucket=overdue',
        '&bucket=anomalies',
        '&status=compliant',
        '&status=action_needed',
        '&entity_type=well&search=4',
      ]) {
        const all = (await t.api.get(`/compliance/matrix?sort_by=${sort}${filter}&page_size=200`, auth)).body;
        const pages: string[] = [];
        for (let page = 1; page <= Math.ceil(all.total / 7) + 1; page++) {
          const body = (await t.api.get(`/compliance/matrix?sort_by=${sort}${filter}&page_size=7&page=${page}`, auth))
            .body;
          expect(body.total, `${sort}${filter}`).to.equal(all.total);
          pages.push(...body.rows.map((r: any) => r.entity_id));
        }
        expect(pages, `${sort}${filter}`).to.deep.equal(all.rows.map((r: any) => r.entity_id));
      }
    }
  });

  it('the bucket counts the projector keeps equal a count over its rows', async () => {
    const rows = dashboardRows(tenantId, new Date());
    const {
      rows: [r],
    } = await t.deps.knex.raw(
      `SELECT count(*) FILTER (WHERE in_overdue)::int AS overdue, count(*) FILTER (WHERE in_due_7d)::int AS due_7d, count(*) FILTER (WHERE in_due_30d)::int AS due_30d,
              count(*) FILTER (WHERE in_anomalies)::int AS anomalies, count(*)::int AS entities FROM (${rows.sql}) AS d`,
      rows.bindings,
    );
    expect(await bucketCounts(t.deps.knex, tenantId, new Date())).to.deep.include(r);
  });
});
