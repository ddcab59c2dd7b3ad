import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { signIn, type Session } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { postCsv } from './support';

/** GET /ingest/imports and /ingest/imports/{id}: the history of CSV imports, scrapes and SCADA batches. */
describe('import history API', () => {
  let t: TestPlatform;
  before(async () => {
    t = await startTestPlatform();
  });
  after(() => t.close());

  const powerUser = (): Promise<Session> => signIn(t, { roles: ['power_user'], tenantId: randomUUID() });
  const csv = [
    'API_NO,OPERATOR_NAME,SURFACE_LAT,SURFACE_LONG',
    '4232939001,PECOS BASIN LLC,31.91,-102.05',
    '4232939002,PECOS BASIN LLC,51.9,-102.06',
    '4232939003,PECOS BASIN LLC,31.93,-102.07',
  ].join('\n');
  const scada = {
    readings: [{ well_api: '42-389-39999', timestamp: '2026-03-02T06:00:00Z', metrics: { oil_bbl: 10 } }],
  };

  it('lists an upload as completed, with who imported it and its counts, as soon as the upload answers', async () => {
    const user = await powerUser();
    const upload = await postCsv(t.api, csv, user.headers, 'march-wells.csv');
    expect(upload.status).to.equal(200);
    const list = await t.api.get('/ingest/imports', user.headers);
    expect(list.status).to.equal(200);
    expect(list.body).to.include({ total: 1, limit: 50, offset: 0 });
    expect(list.body.imports[0]).to.include({
      import_id: upload.body.import_id,
      kind: 'operator-csv',
      status: 'completed',
      source: 'march-wells.csv',
      started_by: user.userId,
      rows: 3,
      accepted: 2,
      rejected: 1,
    });
    expect(list.body.imports[0].finished_at).to.be.a('string');
  });

  it('re-reads a past import with its rejection report', async () => {
    const user = await powerUser();
    const upload = await postCsv(t.api, csv, user.headers);
    const detail = await t.api.get(`/ingest/imports/${upload.body.import_id}`, user.headers);
    expect(detail.status).to.equal(200);
    expect(detail.body.rejections).to.deep.equal(upload.body.rejections);
    expect(detail.body.rejections[0]).to.include({ row: 2, column: 'latitude' });
    expect(detail.body.details).to.include({ sha256: upload.body.sha256 });
    expect(detail.body.rejections_truncated).to.equal(false);
  });

  it('lists scrapes and SCADA batches beside CSV imports, newest first, filtered by kind and paged', async () => {
    const user = await powerUser();
    await postCsv(t.api, csv, user.headers);
    await t.api.post(
      '/ingest/rrc-scrape',
      { data_types: ['operators'], district: '08', date_range: { from: '2025-01-01', to: '2025-03-31' } },
      user.headers,
    );
    await t.api.post('/ingest/scada', scada, user.headers);
    const all = await t.api.get('/ingest/imports', user.headers);
    expect(all.body.imports.map((i: { kind: string }) => i.kind)).to.deep.equal([
      'scada',
      'rrc-scrape',
      'operator-csv',
    ]);
    expect(all.body.imports[1]).to.include({ source: 'district 08, 2025-01-01 to 2025-03-31', rows: 6 });
    expect(all.body.imports[0]).to.include({ source: '1 reading of 1 well' });
    const scrapes = await t.api.get('/ingest/imports?kind=rrc-scrape', user.headers);
    expect(scrapes.body.imports).to.have.length(1);
    expect(scrapes.body.total).to.equal(1);
    const page = await t.api.get('/ingest/imports?limit=1&offset=1', user.headers);
    expect(page.body).to.include({ total: 3, limit: 1, offset: 1 });
    expect(page.body.imports.map((i: { kind: string }) => i.kind)).to.deep.equal(['rrc-scrape']);
  });

  it("shows only the caller's tenant", async () => {
    const user = await powerUser();
    await postCsv(t.api, csv, user.headers);
    const other = await powerUser();
    const list = await t.api.get('/ingest/imports', other.headers);
    expect(list.body).to.include({ total: 0 });
    const upload = await postCsv(t.api, csv, user.headers);
    expect((await t.api.get(`/ingest/imports/${upload.body.import_id}`, other.headers)).status).to.equal(404);
  });

  it('answers 422 for an unknown kind, a limit out of range or an id that is no uuid, and 404 for an unknown import', async () => {
    const user = await powerUser();
    const kind = await t.api.get('/ingest/imports?kind=fax', user.headers);
    expect(kind.status).to.equal(422);
    expect(kind.body.detail[0].loc).to.deep.equal(['query', 'kind']);
    expect((await t.api.get('/ingest/imports?limit=0', user.headers)).status).to.equal(422);
    expect((await t.api.get('/ingest/imports?limit=201', user.headers)).status).to.equal(422);
    expect((await t.api.get('/ingest/imports/not-a-uuid', user.headers)).status).to.equal(422);
    expect((await t.api.get(`/ingest/imports/${randomUUID()}`, user.headers)).status).to.equal(404);
  });

  it('is closed to operators (403) like every /ingest route', async () => {
    const operator = await signIn(t, { roles: ['operator'], tenantId: randomUUID() });
    expect((await t.api.get('/ingest/imports', operator.headers)).status).to.equal(403);
  });
});
