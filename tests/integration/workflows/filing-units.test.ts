import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { signIn, type Session } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { createWell } from '../checklists/graph-fixture';
import { filingEntityId } from '../../../commands/checklists/record-filing';
import { eventually } from '../../support/eventually';

const LEASE_RULE = 'oilgas-has_filing-lease-filingpackage';

/**
 * Every Form PR unit files: an oil lease on itself, a gas well on itself, an oil well on its
 * lease; a filing that cannot be recorded leaves the checklist `filing_failed` with the reason
 * until an administrator's retry files it.
 */
describe('Form PR filing units (reactors over HTTP)', () => {
  let t: TestPlatform;
  let operator: Session;
  let reviewer: Session;
  let admin: Session;
  let period: string;
  const yearBefore = () => `${Number(period.slice(0, 4)) - 1}${period.slice(4)}`;

  const ok = (response: { status: number; body: unknown }, status = 201) =>
    expect(response.status, JSON.stringify(response.body)).to.equal(status);
  const entity = async (label: string, properties: Record<string, unknown>) =>
    ok(await t.api.post('/graph/entities', { label, properties }, admin.headers));
  const edge = async (from_label: string, from_id: string, edge_label: string, to_label: string, to_id: string) =>
    ok(await t.api.post('/graph/edges', { from_label, from_id, to_label, to_id, edge_label }, admin.headers));
  const vertex = async (label: string, id: string) =>
    (await t.api.get(`/graph/entities/${label}/${encodeURIComponent(id)}`, admin.headers)).body;

  /** An oil lease filed a year ago, with one producing oil well LOCATED_IN it. */
  async function oilLease(): Promise<{ lease: string; well: string }> {
    const well = (await createWell(t, admin)).api;
    const lease = `O-08-${String(Math.floor(Math.random() * 90000) + 10000)}`;
    await entity('Lease', {
      entity_id: lease,
      name: `JONES LEASE ${lease}`,
      lease_number: lease.slice(5),
      district: '08',
      oil_gas_code: 'O',
      form_pr_period: yearBefore(),
    });
    await edge('Well', well, 'LOCATED_IN', 'Lease', lease);
    return { lease, well };
  }

  /** Opens, completes, submits and approves a Form PR checklist; answers its id once the review is recorded. */
  async function approvedFormPr(entityId: string, entityType: 'well' | 'lease'): Promise<string> {
    const created = await t.api.post(
      '/checklists',
      { template_id: 'form_pr', entity_id: entityId, entity_type: entityType, period },
      operator.headers,
    );
    ok(created);
    const id = created.body.checklist_id as string;
    for (let i = 0; i < created.body.items.length; i++)
      ok(await t.api.patch(`/checklists/${id}/items/${i}`, { status: 'complete' }, operator.headers), 200);
    const submitted = await t.api.post(`/checklists/${id}/submit`, { summary: `PR ${period}` }, operator.headers);
    ok(submitted, 200);
    const approvalId = submitted.body.approval.approval_id;
    await eventually(async () => (await t.api.get(`/approvals/${approvalId}`, reviewer.headers)).status === 200);
    ok(
      await t.api.post(
        `/approvals/${approvalId}/decide`,
        { decision: 'approved', comments: 'figures match' },
        reviewer.headers,
      ),
      200,
    );
    return id;
  }

  /** The checklist once its filing has an outcome (filed or failed). */
  const filingOutcome = (id: string) =>
    eventually(async () => {
      const got = (await t.api.get(`/checklists/${id}`, operator.headers)).body;
      return got.filing && got.filing.status !== 'pending' ? got : null;
    });

  before(async function () {
    // A shared machine can take a while to start the embedded database.
    this.timeout(120_000);
    t = await startTestPlatform();
    const tenantId = randomUUID();
    operator = await signIn(t, { roles: ['operator'], tenantId });
    reviewer = await signIn(t, { roles: ['reviewer'], tenantId });
    admin = await signIn(t, { roles: ['admin'], tenantId });
    period = (await createWell(t, admin)).period;
  });
  after(() => t.close());

  it('an oil lease files on itself: FilingPackage with HAS_FILING from the lease, its form_pr_period advanced', async () => {
    const { lease } = await oilLease();
    const id = await approvedFormPr(lease, 'lease');
    const checklist = await filingOutcome(id);
    expect(checklist.status).to.equal('approved');
    expect(checklist.filing).to.include({ status: 'filed', filing_id: filingEntityId(id) });
    expect(checklist.filing.filed_on).to.deep.equal({ label: 'Lease', entity_id: lease });
    expect(checklist.filing.advanced).to.deep.equal({ form_pr_period: period });
    expect((await vertex('Lease', lease)).properties.form_pr_period).to.equal(period);
    const filing = await vertex('FilingPackage', filingEntityId(id));
    expect(filing.properties).to.include({ form: 'form_pr', period, status: 'filed', checklist_id: id });
    const edges = (await t.api.get(`/graph/edges/Lease/${lease}?edge_label=HAS_FILING`, admin.headers)).body;
    expect(JSON.stringify(edges)).to.contain(filing.id);
  });

  it('a gas well files on itself, even when it lies on a lease', async () => {
    const { lease, well } = await oilLease();
    ok(
      await t.api.put(
        `/graph/entities/Well/${well}`,
        { properties: { well_type: 'gas', form_pr_period: yearBefore() } },
        admin.headers,
      ),
      200,
    );
    const id = await approvedFormPr(well, 'well');
    const checklist = await filingOutcome(id);
    expect(checklist.filing).to.include({ status: 'filed' });
    expect(checklist.filing.filed_on).to.deep.equal({ label: 'Well', entity_id: well });
    expect((await vertex('Well', well)).properties.form_pr_period).to.equal(period);
    expect((await vertex('Lease', lease)).properties.form_pr_period).to.equal(yearBefore());
  });

  it("an oil well's request files on its lease: the lease's form_pr_period advances, the well's does not move", async () => {
    const { lease, well } = await oilLease();
    ok(
      await t.api.put(`/graph/entities/Well/${well}`, { properties: { form_pr_period: yearBefore() } }, admin.headers),
      200,
    );
    const id = await approvedFormPr(well, 'well');
    const checklist = await filingOutcome(id);
    expect(checklist.filing).to.include({ status: 'filed' });
    expect(checklist.filing.filed_on).to.deep.equal({ label: 'Lease', entity_id: lease });
    expect((await vertex('Lease', lease)).properties.form_pr_period).to.equal(period);
    expect((await vertex('Well', well)).properties.form_pr_period).to.equal(yearBefore());
  });

  it('a filing that cannot be recorded ends filing_failed with its reason and nothing filed; the admin retry files it once the cause is mended', async () => {
    const { lease } = await oilLease();
    ok(await t.api.delete(`/relationship-rules/${LEASE_RULE}`, admin.headers), 204);
    let restored = false;
    try {
      const id = await approvedFormPr(lease, 'lease');
      const failed = await filingOutcome(id);
      expect(failed.status).to.equal('filing_failed');
      expect(failed.filing).to.include({ status: 'failed' });
      expect(failed.filing.reason).to.contain('HAS_FILING edges start at Well, not Lease');
      // Seen by the reviewer too, and nothing half-filed: no package, the lease unchanged.
      expect((await t.api.get(`/checklists/${id}`, reviewer.headers)).body.status).to.equal('filing_failed');
      expect((await t.api.get(`/graph/entities/FilingPackage/${filingEntityId(id)}`, admin.headers)).status).to.equal(
        404,
      );
      expect((await vertex('Lease', lease)).properties.form_pr_period).to.equal(yearBefore());

      // Retrying is for administrators; while the cause stays, a retry records the reason again.
      expect((await t.api.post(`/checklists/${id}/retry-filing`, {}, operator.headers)).status).to.equal(403);
      const again = await t.api.post(`/checklists/${id}/retry-filing`, {}, admin.headers);
      ok(again, 200);
      expect(again.body).to.include({ status: 'filing_failed' });

      ok(
        await t.api.post(
          '/relationship-rules',
          { edge_label: 'HAS_FILING', from_label: 'Lease', to_label: 'FilingPackage' },
          admin.headers,
        ),
      );
      restored = true;
      const retried = await t.api.post(`/checklists/${id}/retry-filing`, {}, admin.headers);
      ok(retried, 200);
      expect(retried.body.status).to.equal('approved');
      expect(retried.body.filing).to.include({ status: 'filed', filing_id: filingEntityId(id) });
      expect((await vertex('FilingPackage', filingEntityId(id))).properties).to.include({ status: 'filed', period });
      expect((await vertex('Lease', lease)).properties.form_pr_period).to.equal(period);
      // Filed: another retry has nothing to do.
      expect((await t.api.post(`/checklists/${id}/retry-filing`, {}, admin.headers)).status).to.equal(409);
    } finally {
      if (!restored)
        await t.api.post(
          '/relationship-rules',
          { edge_label: 'HAS_FILING', from_label: 'Lease', to_label: 'FilingPackage' },
          admin.headers,
        );
    }
  });
});
