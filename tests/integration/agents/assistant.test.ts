import { expect } from 'chai';
import { type Session, signIn } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

/**
 * The builtin assistant as a compliance engineer uses it: a seeded, assessed portfolio and the
 * everyday questions over POST /execute, answered in sentences from this turn's tool results.
 */
describe('the builtin compliance assistant over POST /execute', function () {
  this.timeout(60_000);
  let t: TestPlatform;
  let alice: Session;
  let overdueWell: string;
  let overdueLease: string;
  let leasedWell: { id: string; lease: string };

  before(async function () {
    this.timeout(180_000);
    t = await startTestPlatform();
    alice = await signIn(t);
    await t.deps.projections.waitFor(await t.deps.store.headPosition(), 100_000);
    expect((await t.api.post('/graph/seed', { wells: 24, seed: 11, as_of: '2026-01' }, alice.headers)).status).to.equal(
      201,
    );
    expect((await t.api.post('/compliance/assess', {}, alice.headers)).status).to.equal(200);
    const first = async (query: string) =>
      (await t.api.get(`/compliance/matrix?${query}&page_size=1`, alice.headers)).body.rows[0].entity_id as string;
    overdueWell = await first('entity_type=Well&bucket=overdue');
    overdueLease = await first('entity_type=Lease&bucket=overdue');
    // An oil well of the overdue lease: its Form PR is the lease's (Statewide Rule 58 files oil per lease).
    const located = (
      await t.api.get(`/graph/edges/Lease/${overdueLease}?edge_label=LOCATED_IN&direction=in`, alice.headers)
    ).body.edges;
    leasedWell = { id: located.find((e: any) => e.neighbor.label === 'Well').neighbor.entity_id, lease: overdueLease };
  });
  after(() => t.close());

  const ask = async (message: string, agentType?: string) => {
    const conversation = (await t.api.post('/conversations', { agent_id: 'compliance' }, alice.headers)).body.id;
    const { status, body } = await t.api.post(
      '/execute',
      { conversation_id: conversation, message, ...(agentType ? { agent_type: agentType } : {}) },
      alice.headers,
    );
    expect(status).to.equal(200);
    const answer: string = body.messages.at(-1).content;
    expect(answer.split(/\s+/).length, answer).to.be.at.most(320);
    expect(new Set(answer.split('\n')).size, answer).to.equal(answer.split('\n').length);
    if (process.env.SHOW_ANSWERS) console.log(`\n>> ${message}\n${answer}`);
    return {
      result: body,
      answer,
      tools: body.messages.flatMap((m: any) => m.tool_calls.map((c: any) => c.name)) as string[],
    };
  };

  it('answers the overdue question with overdue work only, counted in wells, with the rule each is late on', async () => {
    const { answer, tools } = await ask('Which of my wells have overdue filings?');
    expect(tools).to.deep.equal(['compliance_list']);
    const count = /^(\d+) wells? (?:is|are) overdue\.$/.exec(answer.split('\n')[0]);
    expect(count, answer).not.to.equal(null);
    const overdueWells = (
      await t.api.get('/compliance/matrix?entity_type=Well&bucket=overdue&page_size=1', alice.headers)
    ).body.total;
    expect(Number(count![1])).to.be.at.most(overdueWells);
    expect(answer).to.match(/^- .+ \(42-\d{3}-\d{5}\), .+ — .+: 16 TAC §[\d.]+ .+\.$/m);
    // A spacing violation or a lapsed permit is no overdue work.
    expect(answer).not.to.match(/Rule 37 well spacing:|before spud/);
    const { answer: most } = await ask('Which operator has the most overdue wells?');
    expect(most.split('\n')[0]).to.match(
      new RegExp(`^.+ has the most: \\d+ of the ${count![1]} wells that are overdue\\.$`),
    );
  });

  it('says whether a well is compliant, rule by rule with the reason', async () => {
    const { answer, result } = await ask(`Is well ${overdueWell} compliant?`);
    expect(answer.split('\n')[0]).to.equal('No.');
    expect(answer).to.match(new RegExp(`\\(${overdueWell}\\) is not compliant: \\d+ rules? violated or overdue`));
    expect(answer).to.match(
      /^- (Rule 32|Rule 37|Form PR|Drilling|Inactive|Well tests)[^:]*: (not compliant|compliant|action needed|not assessed|in review) — 16 TAC §/m,
    );
    expect(result.referenced_entities[0]).to.include({ entity_id: overdueWell, entity_type: 'Well' });
  });

  it('says whether a lease is compliant from its own rows, Form PR first among them', async () => {
    const { answer, result, tools } = await ask(`Is lease ${overdueLease} compliant?`);
    expect(tools).to.deep.equal(['find_entities', 'compliance_status']);
    expect(answer.split('\n')[0]).to.equal('No.');
    expect(answer).to.match(
      new RegExp(`^Lease .+ \\(${overdueLease}\\) is not compliant: \\d+ rules? violated or overdue`, 'm'),
    );
    expect(answer).to.match(/^- Form PR[^:]*: not compliant — 16 TAC §3\.58 /m);
    expect(result.referenced_entities[0]).to.include({ entity_id: overdueLease, entity_type: 'Lease' });
  });

  it("for a well of an oil lease, says its Form PR is filed on the lease, with the lease's verdict", async () => {
    const { answer } = await ask(`Is well ${leasedWell.id} compliant?`);
    expect(answer).to.match(
      new RegExp(
        `^- Form PR[^:]*: filed per oil lease, on Lease .+ \\(${leasedWell.lease}\\) — not compliant: 16 TAC §3\\.58 `,
        'm',
      ),
    );
  });

  it('the word "file" alone opens no approval; it says which files can be attached', async () => {
    const { result, answer, tools } = await ask('What file formats can I attach?');
    expect(result.status).to.equal('completed');
    expect(tools).to.deep.equal(['platform_help']);
    expect(answer.split('\n')[0]).to.equal('You can attach PDF, DOCX, XLSX, CSV and plain text (TXT) files.');
  });

  it('a Form PR filing request for a well of an oil lease prepares the checklist assessed on the lease, then pauses on an approval carrying the figures and validations', async () => {
    const { result, tools, answer } = await ask(
      `Prepare the Form PR for well ${leasedWell.id} for 2025-12 and submit it for review`,
    );
    expect(tools).to.deep.equal(['load_skill', 'find_entities', 'start_checklist', 'request_approval']);
    expect(answer).to.match(
      new RegExp(
        `^Form PR of well ${leasedWell.id} is filed with its oil lease .+ \\(${leasedWell.lease}\\): the checklist is assessed on the lease's wells and volumes\\.$`,
        'm',
      ),
    );
    expect(result.status).to.equal('awaiting_hitl');
    const p = (await t.api.get(`/approvals/${result.hitl_approval_id}`, alice.headers)).body.payload;
    expect(p).to.include({
      kind: 'filing',
      form: 'form_pr',
      form_label: 'Form PR monthly production report',
      period: '2025-12',
      conversation_id: result.conversation_id,
      execution_id: result.execution_id,
    });
    expect(p.entity).to.include({ id: leasedWell.id, type: 'Well', api_number: leasedWell.id });
    // The regulator files the lease's volumes, every well of it together: the figures are the lease's.
    expect(p.figures.length).to.be.greaterThan(1);
    for (const f of p.figures) expect(f.source).to.equal(`graph:Lease/${leasedWell.lease}`);
    expect(p.figures.map((f: any) => f.unit)).to.include.members(['bbl', 'mcf']);
    expect(p.validations.length).to.be.greaterThan(0);
    for (const v of p.validations) expect(['pass', 'fail', 'warn', 'unknown']).to.include(v.status);
    const checklist = (await t.api.get(`/checklists/${p.checklist_id}`, alice.headers)).body;
    expect(checklist).to.include({ entity_id: leasedWell.id, period: '2025-12', template_id: 'form_pr' });
  });

  it('a Form PR filing request for a lease opens the checklist on the lease', async () => {
    const { result, tools, answer } = await ask(
      `Prepare the Form PR for lease ${overdueLease} for 2025-12 and submit it for review`,
    );
    expect(tools).to.deep.equal(['load_skill', 'find_entities', 'start_checklist', 'request_approval']);
    expect(answer).to.match(
      new RegExp(`^Checklist \\S+: Form PR monthly production report for lease ${overdueLease}, period 2025-12`, 'm'),
    );
    expect(answer).not.to.contain('is filed with its oil lease');
    expect(result.status).to.equal('awaiting_hitl');
    const p = (await t.api.get(`/approvals/${result.hitl_approval_id}`, alice.headers)).body.payload;
    expect(p).to.include({ form: 'form_pr', period: '2025-12' });
    expect(p.entity).to.include({ id: overdueLease, type: 'Lease' });
    for (const f of p.figures) expect(f.source).to.equal(`graph:Lease/${overdueLease}`);
    const checklist = (await t.api.get(`/checklists/${p.checklist_id}`, alice.headers)).body;
    expect(checklist).to.include({
      entity_id: overdueLease,
      entity_type: 'Lease',
      period: '2025-12',
      template_id: 'form_pr',
    });
  });

  it('a field_event agent logs a flare upset against the seeded event type; it shows among the recent events', async () => {
    const types = (await t.api.get('/event-types', alice.headers)).body;
    expect((types.event_types ?? types.items ?? types).map((e: any) => e.name)).to.include.members([
      'Flare upset',
      'H2S release',
      'Spill',
      'Equipment failure',
    ]);
    const { answer, tools } = await ask(
      `Log a flare upset at well ${overdueWell}: 350 mcf over 6 hours`,
      'field_event',
    );
    expect(tools.filter((name) => name !== 'load_skill')).to.deep.equal(['find_entities', 'log_operational_event']);
    expect(answer).to.match(
      new RegExp(
        `^Logged Flare upset \\S+ for Well ${overdueWell} at .+: Gas flared \\(mcf\\): 350, Duration \\(hours\\): 6\\.`,
        'm',
      ),
    );
    const { answer: recent } = await ask('Show recent operational events');
    expect(recent).to.contain(`Flare upset at Well ${overdueWell}`);
    // The guard rule refuses a non-positive volume, as POST /events does.
    const { answer: refused } = await ask(
      `Log a flare upset at well ${overdueWell}: 0 mcf over 1 hours`,
      'field_event',
    );
    expect(refused).to.match(/^I could not get the event logged: .*volume/m);
  });
});
