import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { formPrDueDate } from '../../../commands/checklists/assessment/working-days';
import { assessmentAggregate } from '../../../streams/checklists/assessment';
import { signIn, type Session } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { createWell, type WellFixture } from './graph-fixture';
import { readSse, type SseFrame } from './sse-client';

/** The workspace assessment stream: frames computed from the graph, recorded, replayed, resumed. */
describe('workspace assessment stream', () => {
  let t: TestPlatform;
  let tenantId: string;
  let operator: Session;
  let admin: Session;
  let well: WellFixture;

  before(async () => {
    t = await startTestPlatform();
    tenantId = randomUUID();
    operator = await signIn(t, { roles: ['operator'], tenantId });
    admin = await signIn(t, { roles: ['admin'], tenantId });
    well = await createWell(t, admin, { flaredMcf: 900, authorizedMcf: 50 });
  });
  after(() => t.close());

  const newChecklist = async (body: Record<string, unknown> = {}, fixture = well) =>
    (
      await t.api.post(
        '/checklists',
        { template_id: 'form_pr', entity_id: fixture.api, entity_type: 'well', ...body },
        operator.headers,
      )
    ).body.checklist_id as string;
  const streamUrl = (id: string, query = '') => `${t.publicUrl}/api/v1/workspaces/${id}/stream${query}`;
  const of = (frames: SseFrame[], type: string) => frames.filter((f) => f.event === type).map((f) => f.data);
  const field = (frames: SseFrame[], name: string) =>
    of(frames, 'form_field_update').find((d) => d.field_name === name);
  const check = (frames: SseFrame[], name: string) =>
    of(frames, 'validation_result').find((d) => d.check_name === name);

  it("a Form PR assessment computes the form from the well's production and checks flaring and the due date", async () => {
    const id = await newChecklist();
    const { status, contentType, frames } = await readSse(streamUrl(id), operator.headers);
    expect(status).to.equal(200);
    expect(contentType).to.contain('text/event-stream');
    const types = new Set(frames.map((f) => f.event));
    for (const type of [
      'agent_status',
      'checklist_item_update',
      'data_table_update',
      'form_field_update',
      'validation_result',
      'spatial_update',
      'artifact_generated',
      'assessment_complete',
    ]) {
      expect(types, type).to.include(type);
    }
    for (const f of frames) expect(f.data.event_type).to.equal(f.event);

    expect(field(frames, 'oil_production_bbl')).to.include({
      item_index: 1,
      field_value: 3110,
      source: `graph:Well/${well.api}`,
    });
    expect(field(frames, 'oil_production_bbl').confidence).to.be.within(0, 1);
    expect(field(frames, 'casinghead_gas_mcf')).to.include({ field_value: 9330 });
    expect(field(frames, 'disposition_code_10_mcf')).to.include({ field_value: 900 });
    expect(field(frames, 'disposition_code_02_mcf')).to.include({ field_value: 9330 - 280 - 900 });
    expect(check(frames, 'dispositions_balance')).to.include({ passed: true });
    // 900 mcf over 30 producing days = 30 mcf/d, within the 50 mcf/d authorization.
    expect(check(frames, 'flaring_within_authorization')).to.include({ passed: true });
    expect(check(frames, 'flaring_within_authorization').message).to.contain('30 mcf/d');
    expect(check(frames, 'authority_remark_present')).to.include({ passed: true });
    const due = formPrDueDate(well.period);
    expect(field(frames, 'due_date')).to.include({ field_value: due, confidence: 1 });
    // The well's `form_pr_period` is the checklist's month: the graph says it is filed through it.
    expect(check(frames, 'filed_before_due_date')).to.include({ passed: true });
    expect(check(frames, 'form_pr_status').message).to.contain(
      `16 TAC §3.58 (Statewide Rule 58, Form PR): Form PR for ${well.period} filed`,
    );

    const table = of(frames, 'data_table_update').find((d) => d.item_index === 1);
    // The unit's wells with their figures for the month (an oil well without a lease in the graph is its own unit).
    expect(table.columns).to.deep.equal(['well', 'oil_bbls', 'gas_mcf', 'basis']);
    expect(table.rows).to.deep.equal([{ well: well.api, oil_bbls: 3110, gas_mcf: 9330, basis: 'current_month' }]);
    const items = of(frames, 'checklist_item_update').filter((d) => d.status !== 'in_progress');
    expect(items.map((d) => d.item_index)).to.deep.equal([0, 1, 2, 3, 4, 5]);
    expect(items[0]).to.include({ completed_by: 'assessment-agent' });
    const done = of(frames, 'assessment_complete')[0];
    expect(done).to.include({ status: 'completed', items_assessed: 6 });
    const artifact = of(frames, 'artifact_generated')[0];
    expect(artifact.filename).to.match(/^form-pr-.*\.csv$/);
    const artifacts = (await t.api.get(`/checklists/${id}/artifacts`, operator.headers)).body.artifacts;
    expect(artifacts.map((a: any) => a.artifact_id)).to.include(artifact.artifact_id);

    // Every frame is an event of the assessment stream; the SSE id is its revision.
    const events = await t.deps.store.readStream(assessmentAggregate.stream(tenantId, id));
    expect(frames.map((f) => f.id)).to.deep.equal(events.map((e) => e.revision.toString()));
  });

  // A regression: the dashboard said red ("flaring after authorization expired") while the month's checklist said compliant.
  it('the dashboard and the Form PR checklist judge Rule 32 on the flared month with the same verdict and reason', async () => {
    const monthsAgo = (n: number) =>
      new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() - n, 1)).toISOString().slice(0, 7);
    const month = monthsAgo(10);
    const api = `42-501-${Math.floor(Math.random() * 90000) + 10000}`;
    const post = async (path: string, body: unknown) =>
      expect((await t.api.post(path, body, admin.headers)).status, path).to.equal(201);
    // 100 mcf/d flared in a month ten months ago under a 250 mcf/d authorization that expired later, before today.
    await post('/graph/entities', {
      label: 'Well',
      properties: {
        entity_id: api,
        api_number: api,
        name: `HALEY ${api}`,
        well_type: 'oil',
        status: 'producing',
        form_pr_period: month,
        production_oil_bbls: 2000,
        production_gas_mcf: 6000,
        gas_sold_mcf: 2900,
        gas_flared_mcf: 3100,
        producing_days: 31,
      },
    });
    const auth = `R32-${randomUUID().slice(0, 8)}`;
    await post('/graph/entities', {
      label: 'FlaringAuthorization',
      properties: { entity_id: auth, authorized_mcf: 250, expiry_date: `${monthsAgo(5)}-15`, status: 'expired' },
    });
    await post('/graph/edges', {
      from_label: 'FlaringAuthorization',
      from_id: auth,
      edge_label: 'FLARES_AT',
      to_label: 'Well',
      to_id: api,
    });
    const dashboard = (await t.api.post(`/compliance/assess/${api}`, {}, operator.headers)).body.results.rule_32;
    expect(dashboard).to.include({ color: 'green' });
    expect(dashboard.reason).to.equal(
      `16 TAC §3.32 (Statewide Rule 32): 3100 mcf flared or vented in ${month} (100 mcf/d over 31 days), within the 250 mcf/d authorized under ${auth}`,
    );
    const id = await newChecklist({ period: month }, { api, period: month, authorizedMcfPerDay: 250 });
    const { frames } = await readSse(streamUrl(id), operator.headers);
    expect(check(frames, 'flaring_within_authorization')).to.include({ passed: true, message: dashboard.reason });
    expect(field(frames, 'flaring_within_authorization_verdict')).to.include({ field_value: 'green' });
  });

  it('a month the graph has no figures for is reported missing, never as 0', async () => {
    const id = await newChecklist({ period: '2020-01' });
    const { frames } = await readSse(streamUrl(id), operator.headers);
    expect(check(frames, 'production_found')).to.include({ passed: false });
    expect(check(frames, 'production_found').message).to.contain('no production figures for 2020-01');
    expect(field(frames, 'oil_production_bbl')).to.include({ field_value: null });
    expect(check(frames, 'flaring_within_authorization')).to.include({ passed: false, severity: 'warning' });
  });

  it('flaring above the authorization fails the check', async () => {
    const heavy = await createWell(t, admin, { flaredMcf: 3000, authorizedMcf: 50, remark: '' });
    const id = await newChecklist({}, heavy);
    const { frames } = await readSse(streamUrl(id), operator.headers);
    expect(check(frames, 'flaring_within_authorization')).to.include({ passed: false, severity: 'error' });
    expect(check(frames, 'authority_remark_present')).to.include({ passed: false });
    expect(
      of(frames, 'checklist_item_update').find((d) => d.item_index === 4 && d.status !== 'in_progress'),
    ).to.include({ status: 'needs_review' });
  });

  it('a late reader replays the finished run; Last-Event-ID resumes after the frame it names', async () => {
    const id = await newChecklist();
    const first = await readSse(streamUrl(id), operator.headers);
    const replay = await readSse(streamUrl(id), operator.headers);
    expect(replay.frames.map((f) => f.id)).to.deep.equal(first.frames.map((f) => f.id));
    expect(replay.frames.map((f) => f.data)).to.deep.equal(first.frames.map((f) => f.data));

    const cut = first.frames[9];
    const resumed = await readSse(streamUrl(id), { ...operator.headers, 'last-event-id': cut.id! });
    expect(resumed.frames.map((f) => f.id)).to.deep.equal(first.frames.slice(10).map((f) => f.id));
    expect((await readSse(streamUrl(id), { ...operator.headers, 'last-event-id': 'abc' })).status).to.equal(400);
  });

  it('readers arriving together share one run; ?rerun=true starts a new one', async () => {
    const id = await newChecklist();
    const [a, b] = await Promise.all([
      readSse(streamUrl(id), operator.headers),
      readSse(streamUrl(id), operator.headers),
    ]);
    expect(a.frames.map((f) => f.id)).to.deep.equal(b.frames.map((f) => f.id));
    const starts = (await t.deps.store.readStream(assessmentAggregate.stream(tenantId, id))).filter(
      (e) => e.type === 'AssessmentStarted',
    );
    expect(starts).to.have.length(1);
    const rerun = await readSse(streamUrl(id, '?rerun=true'), operator.headers);
    expect(rerun.frames[0].data.assessment_id).not.to.equal(a.frames[0].data.assessment_id);
    expect(Number(rerun.frames[0].id)).to.be.greaterThan(Number(a.frames[a.frames.length - 1].id));
  });

  it("an R-32 checklist is assessed against the well's authorizations and flaring events", async () => {
    const id = await newChecklist({ template_id: 'r_32' });
    const { frames } = await readSse(streamUrl(id), operator.headers);
    expect(check(frames, 'authorization_in_force')).to.include({ passed: true });
    expect(field(frames, 'current_flared_mcf_per_day')).to.include({ field_value: 30 });
    expect(of(frames, 'assessment_complete')[0]).to.include({ status: 'completed', items_assessed: 5 });
  });
});
