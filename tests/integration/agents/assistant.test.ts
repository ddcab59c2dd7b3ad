import { expect } from 'chai';
import { Session, signIn } from '../../support/auth';
import { startTestPlatform, TestPlatform } from '../../support/platform';

/**
 * The builtin assistant as a compliance engineer uses it: a seeded, assessed portfolio and the
 * everyday questions over POST /execute, answered in sentences from this turn's tool results.
 */
describe('the builtin compliance assistant over POST /execute', function () {
  this.timeout(60_000);
  let t: TestPlatform;
  let alice: Session;
  let overdueWell: string;

  before(async function () {
    this.timeout(180_000);
    t = await startTestPlatform();
    alice = await signIn(t);
    await t.deps.projections.waitFor(await t.deps.store.headPosition(), 100_000);
    expect((await t.api.post('/graph/seed', { wells: 24, seed: 11, as_of: '2026-01' }, alice.headers)).status).to.equal(201);
    expect((await t.api.post('/compliance/assess', {}, alice.headers)).status).to.equal(200);
    overdueWell = (await t.api.get('/compliance/matrix?bucket=overdue&page_size=1', alice.headers)).body.rows[0].entity_id;
  });
  after(() => t.close());

  const ask = async (message: string, agentType?: string) => {
    const conversation = (await t.api.post('/conversations', { agent_id: 'compliance' }, alice.headers)).body.id;
    const { status, body } = await t.api.post('/execute', { conversation_id: conversation, message, ...(agentType ? { agent_type: agentType } : {}) }, alice.headers);
    expect(status).to.equal(200);
    const answer: string = body.messages.at(-1).content;
    expect(answer.split(/\s+/).length, answer).to.be.at.most(320);
    expect(new Set(answer.split('\n')).size, answer).to.equal(answer.split('\n').length);
    return { result: body, answer, tools: body.messages.flatMap((m: any) => m.tool_calls.map((c: any) => c.name)) as string[] };
  };

  it('answers the overdue question with the count, the wells and the rule each is late on', async () => {
    const summary = (await t.api.get('/compliance/summary', alice.headers)).body;
    const { answer, tools } = await ask('Which of my wells have overdue filings?');
    expect(tools).to.deep.equal(['compliance_portfolio']);
    expect(answer).to.contain(`${summary.overdue_count} well${summary.overdue_count === 1 ? ' is' : 's are'} overdue.`);
    expect(answer).to.match(/^- .+ \(42-\d{3}-\d{5}\), .+ — .+: .+\.$/m);
    const { answer: most } = await ask('Which operator has the most overdue wells?');
    expect(most.split('\n')[0]).to.match(/^.+ has the most: \d+ of the \d+ wells overdue\.$/);
  });

  it('says whether a well is compliant, rule by rule with the reason', async () => {
    const { answer, result } = await ask(`Is well ${overdueWell} compliant?`);
    expect(answer.split('\n')[0]).to.equal('No.');
    expect(answer).to.match(new RegExp(`\\(${overdueWell}\\) is not compliant: \\d+ rules? violated or overdue`));
    expect(answer).to.match(/^- (Rule 32|Rule 37|Form PR|Drilling|Inactive)[^:]*: (not compliant|compliant|action needed|not assessed|in review) — /m);
    expect(result.referenced_entities[0]).to.include({ entity_id: overdueWell, entity_type: 'Well' });
  });

  it('the word "file" alone opens no approval; it says what it can answer', async () => {
    const { result, answer, tools } = await ask('What file formats can I attach?');
    expect(result.status).to.equal('completed');
    expect(tools).to.deep.equal([]);
    expect(answer).to.contain('I can answer:');
  });

  it('a filing request prepares the checklist, then pauses on an approval carrying the entity, figures and validations', async () => {
    const { result, tools } = await ask(`Prepare the Form PR for well ${overdueWell} for 2025-12 and submit it for review`);
    expect(tools).to.deep.equal(['load_skill', 'start_checklist', 'request_approval']);
    expect(result.status).to.equal('awaiting_hitl');
    const approval = (await t.api.get(`/approvals/${result.hitl_approval_id}`, alice.headers)).body;
    const p = approval.payload;
    expect(p).to.include({ kind: 'filing', form: 'form_pr', form_label: 'Form PR monthly production report', period: '2025-12', conversation_id: result.conversation_id, execution_id: result.execution_id });
    expect(p.entity).to.include({ id: overdueWell, type: 'Well', api_number: overdueWell });
    expect(p.checklist_id).to.be.a('string');
    expect(p.figures.length).to.be.greaterThan(1);
    for (const f of p.figures) expect(f.source).to.equal(`graph:Well/${overdueWell}`);
    expect(p.figures.map((f: any) => f.unit)).to.include.members(['bbl', 'mcf']);
    expect(p.validations.length).to.be.greaterThan(0);
    for (const v of p.validations) expect(['pass', 'fail', 'warn', 'unknown']).to.include(v.status);
    const checklist = (await t.api.get(`/checklists/${p.checklist_id}`, alice.headers)).body;
    expect(checklist).to.include({ entity_id: overdueWell, period: '2025-12', template_id: 'form_pr' });
  });

  it('a field_event agent logs a flare upset against the seeded event type; it shows among the recent events', async () => {
    const types = (await t.api.get('/event-types', alice.headers)).body;
    expect((types.event_types ?? types.items ?? types).map((e: any) => e.name)).to.include.members(['Flare upset', 'H2S release', 'Spill', 'Equipment failure']);
    const { answer, tools } = await ask(`Log a flare upset at well ${overdueWell}: 350 mcf over 6 hours`, 'field_event');
    expect(tools.filter((name) => name !== 'load_skill')).to.deep.equal(['log_operational_event']);
    expect(answer).to.match(new RegExp(`^Logged Flare upset \\S+ for Well ${overdueWell} at .+: Gas flared \\(mcf\\): 350, Duration \\(hours\\): 6\\.`, 'm'));
    const { answer: recent } = await ask('Show recent operational events');
    expect(recent).to.contain(`Flare upset at Well ${overdueWell}`);
    // The guard rule refuses a non-positive volume, as POST /events does.
    const { answer: refused } = await ask(`Log a flare upset at well ${overdueWell}: 0 mcf over 1 hours`, 'field_event');
    expect(refused).to.match(/^I could not get the event logged: .*volume/m);
  });
});
