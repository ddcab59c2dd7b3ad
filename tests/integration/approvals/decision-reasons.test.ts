import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { approvalAggregate } from '../../../streams/approvals/approval';
import { signIn, type Session } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

/**
 * Decisions others can follow: a rejection carries its reason, approving over failed
 * validations carries a justification recorded with the decision; the names behind the ids
 * the console shows (`GET /auth/people`); "your checklists" (`GET /checklists?created_by=`).
 */
describe('approval decisions with reasons, people by name, checklists by starter', () => {
  let t: TestPlatform;
  let tenantId: string;
  let operator: Session;
  let reviewer: Session;
  let stranger: Session;

  before(async () => {
    t = await startTestPlatform();
    tenantId = randomUUID();
    operator = await signIn(t, { roles: ['operator'], tenantId });
    reviewer = await signIn(t, { roles: ['reviewer'], tenantId });
    stranger = await signIn(t, { roles: ['admin'], tenantId: randomUUID() });
  });
  after(() => t.close());

  const filing = (validations: Array<{ key: string; label: string; status: string }>) => ({
    kind: 'filing',
    summary: 'Form PR for March',
    form: 'form_pr',
    period: '2026-03',
    figures: [{ label: 'Oil produced', value: 1200, unit: 'bbl', source: null }],
    validations,
  });
  const request = async (payload: Record<string, unknown>) => {
    const created = await t.api.post('/approvals', { checkpoint_type: 'filing_submission', payload }, operator.headers);
    expect(created.status).to.equal(201);
    return created.body.approval_id as string;
  };
  const decide = (id: string, body: Record<string, unknown>) =>
    t.api.post(`/approvals/${id}/decide`, body, reviewer.headers);
  const eventsOf = async (id: string) =>
    (await t.deps.store.readStream(approvalAggregate.stream(tenantId, id))).map((e) => e.type);

  it('rejecting without a reason answers 422 at comments and changes nothing', async () => {
    const id = await request({ summary: 'a plain request' });
    for (const comments of [undefined, '', '   ']) {
      const refused = await decide(id, { decision: 'rejected', ...(comments === undefined ? {} : { comments }) });
      expect(refused.status).to.equal(422);
      expect(refused.body.detail[0].loc).to.deep.equal(['body', 'comments']);
    }
    expect(await eventsOf(id)).to.deep.equal(['ApprovalRequested']);
    expect((await t.api.get(`/approvals/${id}`, reviewer.headers)).body.status).to.equal('pending');
    const rejected = await decide(id, { decision: 'rejected', comments: 'volumes do not balance' });
    expect(rejected.status).to.equal(200);
    expect(rejected.body.decision).to.include({
      decision: 'rejected',
      comments: 'volumes do not balance',
      justification: null,
    });
  });

  it('approving over a failed validation needs a justification, which is recorded with the decision', async () => {
    const id = await request(
      filing([
        { key: 'production_found', label: 'Production found', status: 'pass' },
        { key: 'flaring_authorized', label: 'Flaring authorized', status: 'fail' },
        { key: 'gas_balances', label: 'Gas balances', status: 'fail' },
      ]),
    );
    for (const decision of ['approved', 'modified']) {
      const refused = await decide(id, {
        decision,
        comments: 'fine',
        ...(decision === 'modified' ? { modifications: { figures: { 'Oil produced': 1100 } } } : {}),
      });
      expect(refused.status).to.equal(422);
      expect(refused.body.detail[0].loc).to.deep.equal(['body', 'justification']);
      expect(refused.body.detail[0].msg).to.contain('flaring_authorized, gas_balances');
    }
    expect(await eventsOf(id)).to.deep.equal(['ApprovalRequested']);
    const approved = await decide(id, {
      decision: 'approved',
      justification: 'R-32 authorization 12345 was granted by phone; paper follows',
    });
    expect(approved.status).to.equal(200);
    expect(approved.body.decision).to.include({
      decision: 'approved',
      justification: 'R-32 authorization 12345 was granted by phone; paper follows',
    });
    expect(approved.body.decision.overridden_validations).to.deep.equal(['flaring_authorized', 'gas_balances']);
    const read = await t.api.get(`/approvals/${id}`, operator.headers);
    expect(read.body.decision).to.deep.include({
      justification: 'R-32 authorization 12345 was granted by phone; paper follows',
      overridden_validations: ['flaring_authorized', 'gas_balances'],
    });
  });

  it('a filing whose validations passed or only warned is approved without a justification', async () => {
    const id = await request(filing([{ key: 'gas_balances', label: 'Gas balances', status: 'warn' }]));
    const approved = await decide(id, { decision: 'approved' });
    expect(approved.status).to.equal(200);
    expect(approved.body.decision).to.deep.include({ justification: null, overridden_validations: [] });
  });

  it("GET /auth/people names users of the caller's tenant and leaves out everyone else", async () => {
    const ids = [operator.userId, reviewer.userId, stranger.userId, randomUUID(), 'not-a-uuid'].join(',');
    const people = await t.api.get(`/auth/people?ids=${ids}`, operator.headers);
    expect(people.status).to.equal(200);
    expect(people.body.people.map((p: { id: string }) => p.id).sort()).to.deep.equal(
      [operator.userId, reviewer.userId].sort(),
    );
    expect(people.body.people.find((p: { id: string }) => p.id === reviewer.userId)).to.deep.equal({
      id: reviewer.userId,
      display_name: 'Test reviewer user',
      email: reviewer.email,
      kind: 'person',
    });
    const tooMany = await t.api.get(
      `/auth/people?ids=${Array.from({ length: 101 }, () => randomUUID()).join(',')}`,
      operator.headers,
    );
    expect(tooMany.status).to.equal(422);
    expect((await t.api.get(`/auth/people?ids=${operator.userId}`, {})).status).to.equal(401);
  });

  it('GET /checklists?created_by= lists the checklists that user started, with who started them', async () => {
    expect(
      (await t.api.post('/graph/seed', { wells: 2 }, (await signIn(t, { roles: ['admin'], tenantId })).headers)).status,
    ).to.equal(201);
    const wells = (await t.api.get('/graph/entities/Well?limit=2', operator.headers)).body.entities.map(
      (e: { entity_id: string }) => e.entity_id,
    );
    const power = await signIn(t, { roles: ['power_user'], tenantId });
    const mine = await t.api.post('/checklists', { template_id: 'form_pr', entity_id: wells[0] }, operator.headers);
    const theirs = await t.api.post('/checklists', { template_id: 'form_pr', entity_id: wells[1] }, power.headers);
    expect([mine.status, theirs.status]).to.deep.equal([201, 201]);
    const list = await t.api.get(`/checklists?created_by=${operator.userId}`, operator.headers);
    expect(list.status).to.equal(200);
    expect(list.body.total).to.equal(1);
    expect(list.body.checklists[0]).to.include({
      checklist_id: mine.body.checklist_id,
      created_by: operator.userId,
      entity_type: 'Well',
      review: null,
      rejection: null,
    });
    expect((await t.api.get('/checklists', operator.headers)).body.total).to.equal(2);
  });
});
