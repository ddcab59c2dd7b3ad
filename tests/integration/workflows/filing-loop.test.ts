import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { signIn, type Session } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { createWell, type WellFixture } from '../checklists/graph-fixture';
import { filingEntityId } from '../../../commands/checklists/record-filing';
import { eventually } from '../../support/eventually';

/** The filing loop: checklist → submit → approval → decision → filing in the graph → the dashboard cell. */
describe('the filing loop (reactors over HTTP)', () => {
  let t: TestPlatform;
  let operator: Session;
  let reviewer: Session;
  let admin: Session;
  let well: WellFixture;

  const productionColor = async () => {
    const matrix = await t.api.get('/compliance/matrix?page_size=200', admin.headers);
    const row = matrix.body.rows.find((r: any) => r.entity_id === well.api);
    return row?.domains?.production as string | undefined;
  };

  const completedChecklist = async () => {
    const created = await t.api.post(
      '/checklists',
      { template_id: 'form_pr', entity_id: well.api, entity_type: 'well', domain: 'production' },
      operator.headers,
    );
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const id = created.body.checklist_id as string;
    for (let i = 0; i < created.body.items.length; i++)
      expect(
        (await t.api.patch(`/checklists/${id}/items/${i}`, { status: 'complete' }, operator.headers)).status,
      ).to.equal(200);
    return { id, period: created.body.period as string };
  };

  before(async () => {
    t = await startTestPlatform();
    const tenantId = randomUUID();
    operator = await signIn(t, { roles: ['operator'], tenantId });
    reviewer = await signIn(t, { roles: ['reviewer'], tenantId });
    admin = await signIn(t, { roles: ['admin'], tenantId });
    well = await createWell(t, admin);
    // Last filed a year ago: the production cell is red.
    const put = await t.api.put(
      `/graph/entities/Well/${well.api}`,
      { properties: { form_pr_period: `${Number(well.period.slice(0, 4)) - 1}${well.period.slice(4)}` } },
      admin.headers,
    );
    expect(put.status, JSON.stringify(put.body)).to.equal(200);
    expect((await t.api.post('/compliance/assess', {}, admin.headers)).status).to.equal(200);
    expect(await productionColor()).to.equal('red');
  });
  after(() => t.close());

  it('submit opens one filing approval with the shared payload; approving files it, advances form_pr_period and the cell is no longer red', async () => {
    const { id, period } = await completedChecklist();
    const submitted = await t.api.post(
      `/checklists/${id}/submit`,
      { summary: 'PR for last month' },
      { ...operator.headers, 'Idempotency-Key': `submit-${id}` },
    );
    expect(submitted.status, JSON.stringify(submitted.body)).to.equal(200);
    const approvalId = submitted.body.approval.approval_id;
    expect(submitted.body.pending_approval_id).to.equal(approvalId);
    // A retried submit names the same approval and opens no second one.
    const retried = await t.api.post(
      `/checklists/${id}/submit`,
      { summary: 'PR for last month' },
      { ...operator.headers, 'Idempotency-Key': `submit-${id}` },
    );
    expect(retried.body.approval.approval_id).to.equal(approvalId);

    const approval = await eventually(async () => {
      const got = await t.api.get(`/approvals/${approvalId}`, reviewer.headers);
      return got.status === 200 ? got.body : null;
    });
    expect(approval).to.include({
      status: 'pending',
      checkpoint_type: 'filing_submission',
      requested_by: operator.userId,
    });
    expect(approval.payload).to.include({
      kind: 'filing',
      summary: 'PR for last month',
      form: 'form_pr',
      period,
      checklist_id: id,
      conversation_id: null,
      execution_id: null,
    });
    expect(approval.payload.entity).to.include({ type: 'Well', api_number: well.api });
    expect(approval.payload.figures.find((f: any) => f.label === 'Oil produced')).to.include({
      value: 3110,
      unit: 'bbl',
    });
    expect(approval.payload.figures[0].source).to.match(/^graph:Well\//);
    expect(approval.payload.validations).to.be.an('array').that.is.not.empty;
    // The tenant's only pending approval: the retried submit opened no second one.
    const queue = await t.api.get('/approvals?status=pending', reviewer.headers);
    expect(queue.body.approvals.map((a: any) => a.approval_id)).to.deep.equal([approvalId]);

    const decided = await t.api.post(
      `/approvals/${approvalId}/decide`,
      { decision: 'approved', comments: 'figures match the meters' },
      reviewer.headers,
    );
    expect(decided.status, JSON.stringify(decided.body)).to.equal(200);
    const checklist = await eventually(async () => {
      const got = (await t.api.get(`/checklists/${id}`, operator.headers)).body;
      return got.status === 'approved' ? got : null;
    });
    expect(checklist.review).to.include({
      approval_id: approvalId,
      decision: 'approved',
      reviewer_id: reviewer.userId,
    });

    const filing = await eventually(async () => {
      const got = await t.api.get(`/graph/entities/FilingPackage/${filingEntityId(id)}`, admin.headers);
      return got.status === 200 ? got.body : null;
    });
    expect(filing.properties).to.include({
      form: 'form_pr',
      period,
      status: 'filed',
      approval_id: approvalId,
      approved_by: reviewer.userId,
      submitted_by: operator.userId,
    });
    expect(JSON.parse(filing.properties.figures)[0]).to.include({ label: 'Oil produced', value: 3110 });
    // The reaction's later steps (advance, re-assess) may still be running.
    await eventually(
      async () =>
        (await t.api.get(`/graph/entities/Well/${well.api}`, admin.headers)).body.properties.form_pr_period === period,
    );
    const color = await eventually(async () => {
      const c = await productionColor();
      return c && c !== 'red' ? c : null;
    });
    expect(['green', 'amber']).to.include(color);

    // The filing is in the well's audit timeline.
    const timeline = await t.api.get(
      `/admin/audit/events?well=${encodeURIComponent(well.api)}&limit=1000`,
      admin.headers,
    );
    expect(timeline.status, JSON.stringify(timeline.body)).to.equal(200);
    const text = JSON.stringify(timeline.body.events);
    expect(text).to.contain('form_pr_period').and.contain(period);
  });

  it('a rejection keeps the cell and shows the reason on the checklist; nothing is filed', async () => {
    // Back to a year-old filing: red again.
    await t.api.put(
      `/graph/entities/Well/${well.api}`,
      { properties: { form_pr_period: `${Number(well.period.slice(0, 4)) - 1}${well.period.slice(4)}` } },
      admin.headers,
    );
    await t.api.post('/compliance/assess', {}, admin.headers);
    expect(await productionColor()).to.equal('red');
    const { id } = await completedChecklist();
    const submitted = await t.api.post(`/checklists/${id}/submit`, {}, operator.headers);
    const approvalId = submitted.body.approval.approval_id;
    await eventually(async () => (await t.api.get(`/approvals/${approvalId}`, reviewer.headers)).status === 200);
    const decided = await t.api.post(
      `/approvals/${approvalId}/decide`,
      { decision: 'rejected', comments: 'gas disposition does not sum' },
      reviewer.headers,
    );
    expect(decided.status).to.equal(200);
    const back = await eventually(async () => {
      const got = (await t.api.get(`/checklists/${id}`, operator.headers)).body;
      return got.status === 'in_progress' ? got : null;
    });
    expect(back.review).to.include({ decision: 'rejected', comments: 'gas disposition does not sum' });
    await new Promise((r) => setTimeout(r, 1500));
    expect((await t.api.get(`/graph/entities/FilingPackage/${filingEntityId(id)}`, admin.headers)).status).to.equal(
      404,
    );
    expect(await productionColor()).to.equal('red');
  });

  it('rejecting a checklist outright closes its pending approval (by the reactor)', async () => {
    const { id } = await completedChecklist();
    const submitted = await t.api.post(`/checklists/${id}/submit`, {}, operator.headers);
    const approvalId = submitted.body.approval.approval_id;
    const rejected = await t.api.post(`/checklists/${id}/reject`, { reason: 'wrong well' }, reviewer.headers);
    expect(rejected.status).to.equal(200);
    const approval = await eventually(async () => {
      const got = (await t.api.get(`/approvals/${approvalId}`, reviewer.headers)).body;
      return got.status === 'rejected' ? got : null;
    });
    expect(approval.decision).to.include({ decision: 'rejected', comments: 'wrong well' });
  });
});
