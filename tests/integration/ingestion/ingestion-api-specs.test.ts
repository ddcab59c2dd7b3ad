import { randomUUID } from 'node:crypto';
import { signIn } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { apiSpec } from '../../support/specs';

/** API specs: what each ingestion request appends to the log (found by its request id). */
describe('ingestion API specs (request → events appended)', () => {
  let t: TestPlatform;
  before(async () => {
    t = await startTestPlatform();
  });
  after(() => t.close());

  it('a scrape of operators appends the scraped records, the completion and one graph import', async () => {
    const user = await signIn(t, { roles: ['power_user'], tenantId: randomUUID() });
    const body = { data_types: ['operators'], district: '04', date_range: { from: '2025-01-01', to: '2025-01-31' } };
    await apiSpec(t.api, t.deps.knex)
      .when('POST', '/ingest/rrc-scrape', body, user.headers)
      .thenAppended(
        [
          'RrcDataScraped',
          'RrcScrapeCompleted',
          'GraphImportStarted',
          'PackedGraphBatchImported',
          'GraphImportCompleted',
        ],
        200,
      );
    await apiSpec(t.api, t.deps.knex).when('POST', '/ingest/rrc-scrape', body, user.headers).thenNothingAppended(200);
  });

  it("SCADA readings append the batch, the anomaly for compliance and the well's latest values", async () => {
    const user = await signIn(t, { roles: ['power_user'], tenantId: randomUUID() });
    await t.api.post(
      '/graph/entities',
      { label: 'Well', properties: { entity_id: '42-479-30001', api_number: '42-479-30001', name: 'WEBB 1' } },
      user.headers,
    );
    const readings = [{ well_api: '42-479-30001', timestamp: '2026-02-01T00:00:00Z', metrics: { flared_mcf: 40 } }];
    await apiSpec(t.api, t.deps.knex)
      .when('POST', '/ingest/scada', { readings }, user.headers)
      .thenAppended(['ScadaReadingsRecorded', 'ComplianceAnomalyFlagged', 'VertexPropertiesUpdated'], 200);
  });
});
