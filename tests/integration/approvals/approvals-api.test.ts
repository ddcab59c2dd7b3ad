import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { approvalAggregate } from '../../../streams/approvals/approval';
import { requestApproval } from '../../../commands/approvals/request-approval';
import { signIn, type Session } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { TEST_SIGNING_KEY } from '../../support/secrets';

const run = promisify(execFile);

/** Approvals over HTTP: request, list, details, decide (once), escalate. */
describe('approvals API', () => {
  let t: TestPlatform;
  let tenantId: string;
  let operator: Session;
  let reviewer: Session;
  let otherReviewer: Session;
  let admin: Session;

  before(async () => {
    t = await startTestPlatform();
    tenantId = randomUUID();
    operator = await signIn(t, { roles: ['operator'], tenantId });
    reviewer = await signIn(t, { roles: ['reviewer'], tenantId });
    otherReviewer = await signIn(t, { roles: ['reviewer'], tenantId });
    admin = await signIn(t, { roles: ['admin'], tenantId });
  });
  after(() => t.close());

  const create = (body: Record<string, unknown> = {}, who = operator, headers: Record<string, string> = {}) =>
    t.api.post(
      '/approvals',
      {
        conversation_id: 'conv-1',
        agent_type: 'filing_prep',
        checkpoint_type: 'filing_review',
        payload: { filing_type: 'PR', entity_id: '42-501-00001', summary: 'March PR' },
        ...body,
      },
      { ...who.headers, ...headers },
    );

  it('POST /approvals answers 201 with a pending approval', async () => {
    const response = await create({ reviewer_strategy: 'named_individual', reviewer_id: reviewer.userId });
    expect(response.status).to.equal(201);
    expect(response.body).to.include({
      status: 'pending',
      checkpoint_type: 'filing_review',
      reviewer_id: reviewer.userId,
    });
    expect(response.body.approval_id).to.be.a('string');
    expect(Date.parse(response.body.created_at)).to.be.a('number').and.not.NaN;
    const details = await t.api.get(`/approvals/${response.body.approval_id}`, reviewer.headers);
    expect(details.status).to.equal(200);
    expect(details.body).to.include({
      status: 'pending',
      agent_type: 'filing_prep',
      conversation_id: 'conv-1',
      reviewer_strategy: 'named_individual',
      escalated: false,
      decision: null,
    });
    expect(details.body.payload).to.deep.equal({ filing_type: 'PR', entity_id: '42-501-00001', summary: 'March PR' });
  });

  it('named_individual without a reviewer_id is a 422 naming the field', async () => {
    const response = await create({ reviewer_strategy: 'named_individual' });
    expect(response.status).to.equal(422);
    expect(response.body.detail[0].loc).to.deep.equal(['body', 'reviewer_id']);
  });

  it('a retried POST with the same Idempotency-Key creates one approval', async () => {
    const key = `key-${randomUUID()}`;
    const first = await create({}, operator, { 'idempotency-key': key });
    const second = await create({}, operator, { 'idempotency-key': key });
    expect(second.status).to.equal(201);
    expect(second.body.approval_id).to.equal(first.body.approval_id);
    expect(await t.deps.store.readStream(approvalAggregate.stream(tenantId, first.body.approval_id))).to.have.length(1);
  });

  it('GET /approvals filters by status and agent_type and pages with limit/offset (default 20)', async () => {
    const agent = `agent-${randomUUID().slice(0, 8)}`;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create({ agent_type: agent })).body.approval_id);
    await t.api.post(`/approvals/${ids[0]}/decide`, { decision: 'approved' }, reviewer.headers);
    const pending = await t.api.get(`/approvals?agent_type=${agent}&status=pending`, reviewer.headers);
    expect(pending.status).to.equal(200);
    expect(pending.body.total).to.equal(2);
    expect(pending.body.approvals.map((a: any) => a.approval_id).sort()).to.deep.equal([ids[1], ids[2]].sort());
    expect(Object.keys(pending.body.approvals[0])).to.include.members([
      'approval_id',
      'status',
      'checkpoint_type',
      'agent_type',
      'created_at',
    ]);
    const page = await t.api.get(`/approvals?agent_type=${agent}&limit=1&offset=1`, reviewer.headers);
    expect(page.body.total).to.equal(3);
    expect(page.body.approvals).to.have.length(1);
    const all = await t.api.get('/approvals', reviewer.headers);
    expect(all.body.approvals.length).to.be.at.most(20);
    expect((await t.api.get('/approvals?status=maybe', reviewer.headers)).status).to.equal(422);
  });

  it('a reviewer decides: the decision, reviewer and comments are recorded; deciding again is 409', async () => {
    const { approval_id } = (await create()).body;
    const decided = await t.api.post(
      `/approvals/${approval_id}/decide`,
      { decision: 'rejected', comments: 'volumes do not balance' },
      reviewer.headers,
    );
    expect(decided.status).to.equal(200);
    expect(decided.body.status).to.equal('rejected');
    expect(decided.body.decision).to.include({
      decision: 'rejected',
      reviewer_id: reviewer.userId,
      comments: 'volumes do not balance',
    });
    const again = await t.api.post(`/approvals/${approval_id}/decide`, { decision: 'approved' }, admin.headers);
    expect(again.status).to.equal(409);
    expect(again.body.detail).to.match(/already decided/);
  });

  it('a modified decision carries its modifications; modifications without modified are refused', async () => {
    const { approval_id } = (await create()).body;
    const missing = await t.api.post(`/approvals/${approval_id}/decide`, { decision: 'modified' }, reviewer.headers);
    expect(missing.status).to.equal(422);
    const stray = await t.api.post(
      `/approvals/${approval_id}/decide`,
      { decision: 'approved', modifications: { oil_bbl: 1 } },
      reviewer.headers,
    );
    expect(stray.status).to.equal(422);
    const modified = await t.api.post(
      `/approvals/${approval_id}/decide`,
      { decision: 'modified', modifications: { oil_bbl: 1200 } },
      reviewer.headers,
    );
    expect(modified.status).to.equal(200);
    expect(modified.body.decision.modifications).to.deep.equal({ oil_bbl: 1200 });
  });

  it('the reviewer is the authenticated user: a body reviewer_id is ignored on the public listener', async () => {
    const { approval_id } = (await create()).body;
    const decided = await t.api.post(
      `/approvals/${approval_id}/decide`,
      { decision: 'approved', reviewer_id: 'someone-else' },
      reviewer.headers,
    );
    expect(decided.body.decision.reviewer_id).to.equal(reviewer.userId);
  });

  it('a header-less internal caller names the reviewer with reviewer_id', async () => {
    const { approval_id } = (await create()).body;
    const unnamed = await t.internal.post(`/approvals/${approval_id}/decide?tenant_id=${tenantId}`, {
      decision: 'approved',
    });
    expect(unnamed.status).to.equal(401);
    const decided = await t.internal.post(`/approvals/${approval_id}/decide?tenant_id=${tenantId}`, {
      decision: 'approved',
      reviewer_id: 'svc-reviewer',
    });
    expect(decided.status).to.equal(200);
    expect(decided.body.decision.reviewer_id).to.equal('svc-reviewer');
  });

  it('concurrent decisions of one approval yield exactly one winner; the rest are 409', async () => {
    const { approval_id } = (await create()).body;
    const deciders = [reviewer, otherReviewer, admin, reviewer, otherReviewer, admin];
    const responses = await Promise.all(
      deciders.map((who, i) =>
        t.api.post(
          `/approvals/${approval_id}/decide`,
          { decision: i % 2 ? 'approved' : 'rejected', comments: 'decided concurrently' },
          who.headers,
        ),
      ),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).to.have.length(1);
    expect(statuses.filter((s) => s === 409)).to.have.length(deciders.length - 1);
    const events = await t.deps.store.readStream(approvalAggregate.stream(tenantId, approval_id));
    expect(events.filter((e) => e.type === 'ApprovalDecided')).to.have.length(1);
  });

  it('deciding without the reviewer or admin role is a 403 {error} from the gateway', async () => {
    const { approval_id } = (await create()).body;
    const response = await t.api.post(`/approvals/${approval_id}/decide`, { decision: 'approved' }, operator.headers);
    expect(response.status).to.equal(403);
    expect(response.body).to.have.property('error');
  });

  it('escalating without hitl.approve is a 403 {detail} from the service', async () => {
    const { approval_id } = (await create()).body;
    const response = await t.api.post('/approvals/escalate', { approval_id, reason: 'stuck' }, operator.headers);
    expect(response.status).to.equal(403);
    expect(response.body).to.have.property('detail');
  });

  it('an approval named to one reviewer is decided by that reviewer or an admin until it is escalated', async () => {
    const { approval_id } = (await create({ reviewer_strategy: 'named_individual', reviewer_id: reviewer.userId }))
      .body;
    const other = await t.api.post(`/approvals/${approval_id}/decide`, { decision: 'approved' }, otherReviewer.headers);
    expect(other.status).to.equal(403);

    const escalated = await t.api.post(
      '/approvals/escalate',
      { approval_id, reason: 'named reviewer on leave' },
      otherReviewer.headers,
    );
    expect(escalated.status).to.equal(200);
    expect(escalated.body).to.include({ status: 'pending', escalated: true, escalation_level: 1, reviewer_id: null });
    expect(escalated.body.escalation).to.include({
      level: 1,
      reason: 'named reviewer on leave',
      escalated_by: otherReviewer.userId,
    });
    const queue = await t.api.get('/approvals?escalated=true&status=pending', otherReviewer.headers);
    expect(queue.body.approvals.map((a: any) => a.approval_id)).to.include(approval_id);

    const decided = await t.api.post(
      `/approvals/${approval_id}/decide`,
      { decision: 'approved' },
      otherReviewer.headers,
    );
    expect(decided.status).to.equal(200);
    const late = await t.api.post('/approvals/escalate', { approval_id, reason: 'too late' }, reviewer.headers);
    expect(late.status).to.equal(409);
  });

  it('four eyes: the one who opened an approval gets 403, the refused attempt is in the log, the approval stays pending', async () => {
    const { approval_id } = (await create({}, admin)).body;
    const refused = await t.api.post(`/approvals/${approval_id}/decide`, { decision: 'approved' }, admin.headers);
    expect(refused.status).to.equal(403);
    expect(refused.body.detail).to.match(/another reviewer must decide it \(four eyes\)/);
    const log = await t.deps.store.readStream(approvalAggregate.stream(tenantId, approval_id));
    expect(log.map((e) => e.type)).to.deep.equal(['ApprovalRequested', 'ApprovalDecisionRefused']);
    expect(log[1].data).to.include({ attemptedBy: admin.userId, decision: 'approved' });
    expect((await t.api.get(`/approvals/${approval_id}`, reviewer.headers)).body).to.include({
      status: 'pending',
      decision: null,
    });
    expect(
      (await t.api.post(`/approvals/${approval_id}/decide`, { decision: 'approved' }, reviewer.headers)).status,
    ).to.equal(200);
  });

  it('four eyes: a retried refused decision (same Idempotency-Key) answers 403 again and records one attempt', async () => {
    const { approval_id } = (await create({}, admin)).body;
    const key = { 'idempotency-key': `key-${randomUUID()}` };
    for (let i = 0; i < 2; i++)
      expect(
        (await t.api.post(`/approvals/${approval_id}/decide`, { decision: 'rejected' }, { ...admin.headers, ...key }))
          .status,
      ).to.equal(403);
    expect(
      (await t.deps.store.readStream(approvalAggregate.stream(tenantId, approval_id))).filter(
        (e) => e.type === 'ApprovalDecisionRefused',
      ),
    ).to.have.length(1);
  });

  it('four eyes on the internal listener: a header-less reviewer_id equal to the requester is refused', async () => {
    const { approval_id } = (await create()).body;
    const response = await t.internal.post(`/approvals/${approval_id}/decide?tenant_id=${tenantId}`, {
      decision: 'approved',
      reviewer_id: operator.userId,
    });
    expect(response.status).to.equal(403);
  });

  it("another tenant's approval answers 404 exactly like a missing one", async () => {
    const { approval_id } = (await create()).body;
    const stranger = await signIn(t, { roles: ['admin'], tenantId: randomUUID() });
    expect((await t.api.get(`/approvals/${approval_id}`, stranger.headers)).status).to.equal(404);
    expect(
      (await t.api.post(`/approvals/${approval_id}/decide`, { decision: 'approved' }, stranger.headers)).status,
    ).to.equal(404);
    expect((await t.api.post('/approvals/escalate', { approval_id, reason: 'x' }, stranger.headers)).status).to.equal(
      404,
    );
    expect((await t.api.get(`/approvals/${randomUUID()}`, admin.headers)).status).to.equal(404);
  });

  it("requestApproval (the agents' entry point) opens a pending approval", async () => {
    const receipt = await requestApproval(
      t.deps,
      { tenantId, actorId: operator.userId },
      { conversationId: 'conv-9', agentType: 'general', checkpointType: 'tool_call', payload: { tool: 'file_form' } },
    );
    expect(receipt).to.include({ status: 'pending', checkpoint_type: 'tool_call', reviewer_id: null });
    expect((await t.api.get(`/approvals/${receipt.approval_id}`, reviewer.headers)).body.conversation_id).to.equal(
      'conv-9',
    );
  });

  it("ops audit replay shows an approval's request, escalation and decision as a signed timeline", async function () {
    this.timeout(90_000); // a tsx child process: slow to start on a loaded machine
    const { approval_id } = (await create()).body;
    await t.api.post('/approvals/escalate', { approval_id, reason: 'needs a second look' }, reviewer.headers);
    await t.api.post(`/approvals/${approval_id}/decide`, { decision: 'approved', comments: 'balanced' }, admin.headers);
    const env = {
      ...process.env,
      DATABASE_URL: t.platform.db.url,
      AUDIT_SIGNING_KEY: TEST_SIGNING_KEY,
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
    };
    const { stdout } = await run(
      path.resolve('node_modules/.bin/tsx'),
      ['ops/cli.ts', 'audit', 'replay', '--approval', approval_id, '--tenant', tenantId],
      { env },
    );
    const lines = stdout
      .trim()
      .split('\n')
      .filter((l) => !l.startsWith(' '));
    expect(lines[0]).to.match(
      new RegExp(`${operator.email} \\[operator\\]\\s+approval ${approval_id}\\s+approval requested .*verified$`),
    );
    expect(lines[1]).to.match(/escalated to level 1: needs a second look .*verified$/);
    expect(lines[2]).to.match(
      new RegExp(
        `${admin.email} \\[admin\\]\\s+approval ${approval_id}\\s+decided: approved \\("balanced"\\) .*verified$`,
      ),
    );
    expect(lines[3]).to.equal(
      '3 events; all 3 entries verified (each signature matches its event and its predecessor)',
    );
  });
});

describe('four eyes with APPROVALS_ADMIN_SELF_DECIDE=true', () => {
  let t: TestPlatform;
  let tenantId: string;
  before(async () => {
    t = await startTestPlatform({ env: { APPROVALS_ADMIN_SELF_DECIDE: 'true' } });
    tenantId = randomUUID();
  });
  after(() => t.close());

  it('an admin may decide an approval they opened; a reviewer who opened one still may not', async () => {
    const admin = await signIn(t, { roles: ['admin'], tenantId });
    const reviewer = await signIn(t, { roles: ['reviewer'], tenantId });
    const open = async (who: Session) =>
      (await t.api.post('/approvals', { checkpoint_type: 'filing_review', payload: {} }, who.headers)).body
        .approval_id as string;
    const own = await open(admin);
    expect((await t.api.post(`/approvals/${own}/decide`, { decision: 'approved' }, admin.headers)).status).to.equal(
      200,
    );
    const reviewers = await open(reviewer);
    expect(
      (await t.api.post(`/approvals/${reviewers}/decide`, { decision: 'approved' }, reviewer.headers)).status,
    ).to.equal(403);
  });
});
