import { expect } from 'chai';
import type { BuiltinTurn } from '../../../src/platform/infra/llm/builtin-model';
import { complianceAssistant } from '../../../src/contexts/agents/assistant/compliance-assistant';
import { eventFieldsIn, intentOf, periodIn } from '../../../src/contexts/agents/assistant/intents';
import { parseQuestion } from '../../../streams/agents/question';

const TOOLS = new Set([
  'compliance_status',
  'compliance_portfolio',
  'compliance_deadlines',
  'flaring_authorizations',
  'production_summary',
  'offset_wells',
  'start_checklist',
  'checklist_assessment',
  'add_checklist_note',
  'log_operational_event',
  'recent_operational_events',
  'graph_context',
  'graph_query_template',
  'impact_analysis',
  'request_approval',
  'load_skill',
  'compliance_list',
  'entity_facts',
  'platform_help',
]);
const TODAY = '2026-11-26';
const WELL = '42-255-32810';
const calls = (question: string) => intentOf(question, TOOLS, TODAY).calls;
const assistant = complianceAssistant(() => new Date(`${TODAY}T12:00:00Z`));
const turn = (userText: string, results: BuiltinTurn['results'] = []): BuiltinTurn => ({
  userText,
  systemText: 'You are a compliance assistant.',
  tools: TOOLS,
  results,
  short: false,
});
const textOf = (step: ReturnType<typeof assistant.next>) => ('text' in step ? step.text : '');

describe('the builtin compliance assistant', () => {
  it('maps portfolio questions, in several phrasings, to the bucket and grouping they ask for', () => {
    // Overdue is overdue work, listed in the unit asked for.
    for (const q of [
      'Which of my wells have overdue filings?',
      'How many wells are overdue?',
      'Which wells are late?',
    ]) {
      expect(calls(q), q).to.deep.equal([
        { toolName: 'compliance_list', input: { entity_type: 'Well', overdue: true, group_by: 'operator', limit: 10 } },
      ]);
    }
    expect(calls('Show me everything that is past due')).to.deep.equal([
      { toolName: 'compliance_list', input: { overdue: true, group_by: 'operator', limit: 10 } },
    ]);
    for (const q of ['What is due in the next 7 days?', 'What is due this week?', 'Anything due within seven days?'])
      expect(calls(q)[0].input, q).to.deep.include({ bucket: 'due_7d' });
    expect(calls('What is due in the next 30 days?')[0].input).to.deep.include({ bucket: 'due_30d' });
    expect(calls('Which operator has the most overdue wells?')[0].input).to.deep.include({
      entity_type: 'Well',
      overdue: true,
      group_by: 'operator',
    });
    expect(calls('Which lease has the most overdue wells?')[0].input).to.deep.include({ group_by: 'lease' });
    expect(calls('Overdue wells by rule please')[0].input).to.deep.include({ group_by: 'domain' });
    expect(calls('Any anomalies in the portfolio?')[0].input).to.deep.include({ bucket: 'anomalies' });
  });

  it('an ambiguous "what is due?" takes the 30-day reading and says so', () => {
    const intent = intentOf('What is due?', TOOLS, TODAY);
    expect(intent.calls[0].input).to.deep.include({ bucket: 'due_30d' });
    expect(intent.assumed).to.contain('30 days');
  });

  it('maps questions about one well to its tools', () => {
    expect(calls(`Is well ${WELL} compliant?`)).to.deep.equal([
      { toolName: 'compliance_status', input: { entity_id: WELL } },
    ]);
    expect(calls(`Is ${WELL} in compliance with the rules?`)).to.deep.equal([
      { toolName: 'compliance_status', input: { entity_id: WELL } },
    ]);
    expect(calls(`What is the flaring authorization of well ${WELL}?`)).to.deep.equal([
      { toolName: 'flaring_authorizations', input: { entity_id: WELL } },
    ]);
    expect(calls(`Summarize last month's production of well ${WELL}`)).to.deep.equal([
      { toolName: 'production_summary', input: { entity_id: WELL, period: '2026-10' } },
    ]);
    expect(calls(`How much oil did ${WELL} produce in March?`)).to.deep.equal([
      { toolName: 'production_summary', input: { entity_id: WELL, period: '2026-03' } },
    ]);
    expect(calls(`When are the deadlines of ${WELL}?`)).to.deep.equal([
      { toolName: 'compliance_deadlines', input: { entity_id: WELL } },
    ]);
    expect(calls(`Does ${WELL} meet Rule 37 spacing?`)).to.deep.equal([
      { toolName: 'offset_wells', input: { entity_id: WELL } },
    ]);
    const vague = intentOf(`Tell me about ${WELL}`, TOOLS, TODAY);
    expect(vague.calls).to.deep.equal([{ toolName: 'compliance_status', input: { entity_id: WELL } }]);
    expect(vague.assumed).to.contain('compliance status');
  });

  it('a filing needs a filing intent: the word "file" alone opens nothing', () => {
    expect(calls('What file formats can I attach?')).to.deep.equal([
      { toolName: 'platform_help', input: { topic: 'attachments' } },
    ]);
    expect(calls('Can I upload a PDF file?')).to.deep.equal([
      { toolName: 'platform_help', input: { topic: 'attachments' } },
    ]);
    expect(calls(`Prepare the Form PR for well ${WELL} for last month and submit it for review`)).to.deep.equal([
      { toolName: 'start_checklist', input: { form: 'form_pr', entity_id: WELL, period: '2026-10' } },
    ]);
    expect(calls(`File the R-32 for ${WELL}`)).to.deep.equal([
      { toolName: 'start_checklist', input: { form: 'R-32', entity_id: WELL } },
    ]);
    expect(calls(`Please submit the W-10 for well ${WELL}.`)).to.deep.equal([
      {
        toolName: 'request_approval',
        input: {
          checkpoint_type: 'filing_submission',
          summary: `Please submit the W-10 for well ${WELL}.`,
          form: 'W-10',
          entity_id: WELL,
        },
      },
    ]);
    expect(intentOf(`Submit the filing for well ${WELL}`, TOOLS, TODAY).askBack).to.contain('Which form');
    const noWell = intentOf('Submit the Form PR for last month', TOOLS, TODAY);
    expect(noWell.calls).to.deep.equal([]);
    expect(noWell.askBack).to.contain('Which well');
  });

  it('logs operational events with the fields said in words, and asks back what is missing', () => {
    expect(calls(`Log a flare upset at well ${WELL}: 350 mcf over 6 hours`)).to.deep.equal([
      {
        toolName: 'log_operational_event',
        input: {
          event_type: 'Flare upset',
          entity_id: WELL,
          entity_type: 'Well',
          fields: {
            volume_mcf: 350,
            duration_hours: 6,
            description: `Log a flare upset at well ${WELL}: 350 mcf over 6 hours`,
          },
        },
      },
    ]);
    expect(eventFieldsIn('Spill', 'spilled 20 bbl of produced water')).to.deep.equal({
      volume_bbl: 20,
      substance: 'produced water',
      description: 'spilled 20 bbl of produced water',
    });
    expect(intentOf('Record a spill of 5 bbl oil', TOOLS, TODAY).askBack).to.contain('Which well or facility');
  });

  it('reads periods as the user says them', () => {
    expect(periodIn('for last month', TODAY)).to.equal('2026-10');
    expect(periodIn('in 2025-12', TODAY)).to.equal('2025-12');
    expect(periodIn('in December', TODAY)).to.equal('2025-12');
    expect(periodIn('in January', '2026-01-10')).to.equal('2026-01');
  });

  it('answers a yes/no question first, then the reasons from the tool, never a line twice', () => {
    const status = `Well BAKER 64 1H (${WELL}) is not compliant: 1 rule violated or overdue out of 2 assessed.\n- Drilling permits (W-1): not compliant — permit expired on 2019-09-08 before spud.\n- Rule 32 flaring and venting: compliant — no flaring or venting reported.`;
    const answer = textOf(
      assistant.next(
        turn(`Is well ${WELL} compliant?`, [
          { toolName: 'compliance_status', input: { entity_id: WELL }, text: status },
          { toolName: 'compliance_status', input: { entity_id: WELL }, text: status },
        ]),
      ),
    );
    expect(answer.split('\n')).to.deep.equal(['No.', ...status.split('\n')]);
  });

  it('names the operator with the most, keeps a long list short, and stays under 300 words', () => {
    const rows = Array.from(
      { length: 40 },
      (_, i) =>
        `- WELL ${i} (42-001-${String(10000 + i)}), ACME OPERATING — Form PR production reporting: Form PR for 2026-09 not filed; was due 2026-10-30.`,
    );
    const text = [
      'Portfolio on 2026-11-26: 40 overdue, 0 due within 7 days, 0 due within 30 days, 0 with anomalies.',
      '40 wells are overdue.',
      'By operator: ACME OPERATING (30); ZETA LLC (10).',
      ...rows.slice(0, 10),
      '… and 30 more.',
    ].join('\n');
    const answer = textOf(
      assistant.next(
        turn('Which operator has the most overdue wells?', [{ toolName: 'compliance_portfolio', input: {}, text }]),
      ),
    );
    expect(answer.split('\n')[0]).to.equal('ACME OPERATING has the most: 30 of the 40 wells overdue.');
    expect(answer).to.contain('… and 35 more (all in the table above).');
    expect(answer.split(/\s+/).length).to.be.lessThan(300);
  });

  it('counts a mixed bucket by what its rows are and names the operator with the most of them', () => {
    const text = [
      'Portfolio on 2026-11-26: 31 overdue, 0 due within 7 days, 0 due within 30 days, 0 with anomalies.',
      '31 overdue: 20 leases (Form PR is filed per oil lease), 9 wells, 2 operators.',
      'By operator: ACME OPERATING (12); ZETA LLC (10).',
    ].join('\n');
    const answer = textOf(
      assistant.next(
        turn('Which operator has the most overdue wells?', [{ toolName: 'compliance_portfolio', input: {}, text }]),
      ),
    );
    expect(answer.split('\n')[0]).to.equal('ACME OPERATING has the most: 12 of the 31 overdue.');
    expect(answer).to.contain('20 leases (Form PR is filed per oil lease), 9 wells, 2 operators.');
    const anomalies = [
      'Portfolio on 2026-11-26: 0 overdue, 0 due within 7 days, 0 due within 30 days, 9 with anomalies.',
      '9 wells have open anomalies.',
      'By operator: ZETA LLC (6); ACME OPERATING (3).',
    ].join('\n');
    expect(
      textOf(
        assistant.next(
          turn('Which operator has the most anomalies?', [
            { toolName: 'compliance_portfolio', input: {}, text: anomalies },
          ]),
        ),
      ).split('\n')[0],
    ).to.equal('ZETA LLC has the most: 6 of the 9 wells with open anomalies.');
  });

  it('a lease is asked about and filed for like a well: its compliance, its Form PR checklist', () => {
    const LEASE = 'O-01-10074';
    expect(calls(`Is lease ${LEASE} compliant?`)).to.deep.equal([
      { toolName: 'compliance_status', input: { entity_id: LEASE } },
    ]);
    expect(calls(`Is well ${LEASE} compliant?`)).to.deep.equal([
      { toolName: 'compliance_status', input: { entity_id: LEASE } },
    ]);
    expect(calls(`What do we know about lease ${LEASE}?`)).to.deep.equal([
      { toolName: 'entity_facts', input: { entity_id: LEASE, entity_type: 'Lease' } },
    ]);
    expect(calls(`Prepare the Form PR for lease ${LEASE} for 2025-12 and submit it for review`)).to.deep.equal([
      {
        toolName: 'start_checklist',
        input: { form: 'form_pr', entity_id: LEASE, entity_type: 'Lease', period: '2025-12' },
      },
    ]);
    expect(calls(`Log a flare upset at lease ${LEASE}: 350 mcf`)[0].input).to.deep.include({
      entity_id: LEASE,
      entity_type: 'Lease',
    });
  });

  it('after the checklist is prepared, asks for the approval with its id; then says what happened', () => {
    const question = `Prepare the Form PR for well ${WELL} for last month and submit it for review`;
    const checklist = `Checklist 0a0b0c0d-0000-4000-8000-000000000001: Form PR monthly production report for well ${WELL}, period 2026-10, due 2026-11-30; status in progress.\nAssessment completed: 7 of 7 checks passed.`;
    const prepared = [
      { toolName: 'start_checklist', input: { form: 'form_pr', entity_id: WELL, period: '2026-10' }, text: checklist },
    ];
    const step = assistant.next(turn(question, prepared));
    expect(step).to.have.property('calls');
    expect((step as { calls: Array<{ toolName: string; input: Record<string, unknown> }> }).calls[0]).to.deep.include({
      toolName: 'request_approval',
    });
    expect((step as { calls: Array<{ input: Record<string, unknown> }> }).calls[0].input).to.deep.include({
      checkpoint_type: 'filing_submission',
      form: 'form_pr',
      entity_id: WELL,
      period: '2026-10',
      checklist_id: '0a0b0c0d-0000-4000-8000-000000000001',
    });
    const answer = textOf(
      assistant.next(
        turn(question, [
          ...prepared,
          { toolName: 'request_approval', input: {}, text: 'A filing_submission approval will be requested.' },
        ]),
      ),
    );
    expect(answer.split('\n')[0]).to.equal('I prepared the filing and sent it for review.');
    expect(answer).to.contain('nothing is filed before the decision');
  });

  it('a question it cannot answer gets what it can answer; a failed tool is said in words', () => {
    expect(textOf(assistant.next(turn('What is the weather in Midland?')))).to.match(
      /^I cannot answer that from the tools I have\. I can answer: whether a well, lease or operator is compliant/,
    );
    const failed = textOf(
      assistant.next(
        turn(`Is well ${WELL} compliant?`, [
          { toolName: 'compliance_status', input: {}, text: `Error: ${WELL} has no compliance assessment` },
        ]),
      ),
    );
    expect(failed).to.equal(`I could not get the compliance status: ${WELL} has no compliance assessment.`);
  });
});

describe('the builtin assistant reads a question into slots and finds what it names first', () => {
  const SEARCH = new Set([...TOOLS, 'find_entities']);
  const searchTurn = (userText: string, results: BuiltinTurn['results'] = []): BuiltinTurn => ({
    ...turn(userText, results),
    tools: SEARCH,
  });
  const found = (reference: string, lines: string[]) => ({
    toolName: 'find_entities',
    input: { reference },
    text: [`${lines.length} matches for "${reference}":`, ...lines].join('\n'),
  });
  const GAS =
    '- Well HAWKINS GAS UNIT 2H — entity_id GW-HAWK-0001; API 42-479-56173; Webb county; found by its API number';

  it('reads the slots: entities by API number, lease id, P-5 number or name; rule, colour, unit, county, grouping, fact', () => {
    expect(parseQuestion('Prepare the Form PR for BAKER 11 for last month', TODAY)).to.deep.include({
      refs: [{ text: 'BAKER 11', type: null }],
      period: '2026-10',
      form: { form: 'form_pr', template: true },
    });
    expect(parseQuestion('Who operates well 4232939879?', TODAY)).to.deep.include({
      refs: [{ text: '4232939879', type: 'Well' }],
      attribute: 'operator',
    });
    expect(parseQuestion('Which wells does operator P5-123456 run?', TODAY)).to.deep.include({
      refs: [{ text: 'P5-123456', type: 'Operator' }],
      unit: 'Well',
      domain: null,
      form: null,
    });
    expect(parseQuestion('Which wells are in violation of Rule 32 (flaring)?', TODAY)).to.deep.include({
      domain: 'rule_32',
      colors: ['red'],
      unit: 'Well',
      refs: [],
    });
    expect(parseQuestion('Which operator has the most overdue wells, and how many?', TODAY)).to.deep.include({
      overdue: true,
      unit: 'Well',
      groupBy: 'operator',
      most: true,
      count: true,
    });
    expect(parseQuestion('Which county has the most overdue wells?', TODAY)).to.deep.include({
      groupBy: 'county',
      county: null,
    });
    expect(parseQuestion('How many wells are in Reeves County?', TODAY)).to.deep.include({
      county: 'Reeves',
      count: true,
    });
    expect(parseQuestion('Which wells are failing their well tests?', TODAY)).to.deep.include({
      refs: [],
      domain: 'well_tests',
    });
    expect(parseQuestion('What file formats can I attach?', TODAY)).to.deep.include({ help: 'attachments', refs: [] });
  });

  it("resolves relative periods to the filing month against the turn's clock", () => {
    expect(periodIn('this quarter', TODAY)).to.equal('2026-10');
    expect(periodIn('this quarter', '2026-10-05')).to.equal('2026-10');
    expect(periodIn('last quarter', TODAY)).to.equal('2026-09');
    expect(periodIn('September', TODAY)).to.equal('2026-09');
    expect(periodIn('for 9/2025', TODAY)).to.equal('2025-09');
    expect(periodIn('this month', TODAY)).to.equal('2026-11');
  });

  it('files the Form PR of a well named by API number with its entity id, not the API number', () => {
    const question = 'Please file the Form PR for well 42-479-56173 for last month.';
    const first = assistant.next(searchTurn(question));
    expect(first).to.deep.equal({
      calls: [{ toolName: 'find_entities', input: { reference: '42-479-56173', entity_type: 'Well' } }],
    });
    const next = assistant.next(searchTurn(question, [found('42-479-56173', [GAS])]));
    expect(next).to.deep.equal({
      calls: [
        { toolName: 'start_checklist', input: { form: 'form_pr', entity_id: 'GW-HAWK-0001', period: '2026-10' } },
      ],
    });
  });

  it('prepares the Form PR of a lease named by name', () => {
    const question = 'Prepare the Form PR for BAKER 11 for last month';
    expect(assistant.next(searchTurn(question))).to.deep.equal({
      calls: [{ toolName: 'find_entities', input: { reference: 'BAKER 11' } }],
    });
    const lease = '- Lease BAKER 11 — entity_id O-8A-11332; Martin county; operator ACME; found by its name';
    expect(assistant.next(searchTurn(question, [found('BAKER 11', [lease])]))).to.deep.equal({
      calls: [
        {
          toolName: 'start_checklist',
          input: { form: 'form_pr', entity_id: 'O-8A-11332', entity_type: 'Lease', period: '2026-10' },
        },
      ],
    });
  });

  it('asks which one when two entities match, and says when none does', () => {
    const twins = [
      '- Lease BAKER 11 — entity_id O-8A-11332; Martin county; found by its name',
      '- Lease BAKER 11 — entity_id O-08-99999; Ector county; found by its name',
    ];
    const asked = textOf(assistant.next(searchTurn('Is lease BAKER 11 compliant?', [found('BAKER 11', twins)])));
    expect(asked.split('\n')).to.deep.equal([
      'Which one do you mean? 2 entities match "BAKER 11":',
      '- Lease BAKER 11 (O-8A-11332), Martin county.',
      '- Lease BAKER 11 (O-08-99999), Ector county.',
      'Ask again with the entity id or API number of the one you mean.',
    ]);
    const none = textOf(
      assistant.next(
        searchTurn('Who operates well NOSUCH 9?', [
          { toolName: 'find_entities', input: { reference: 'NOSUCH 9' }, text: 'No well matches "NOSUCH 9".' },
        ]),
      ),
    );
    expect(none).to.match(/^I found no well matching "NOSUCH 9"/);
  });

  it('answers the fact asked for first, from the entity facts', () => {
    const facts =
      'Well BAKER 11 1H (42-317-30001):\n- Operator: ACME OPERATING (P5-123456)\n- Lease: BAKER 11 (O-8A-11332)\n- County: Martin county, RRC district 8A';
    const answer = textOf(
      assistant.next(
        searchTurn('Who operates well 42-317-30001?', [
          found('42-317-30001', ['- Well BAKER 11 1H — entity_id 42-317-30001; found by its entity id']),
          { toolName: 'entity_facts', input: { entity_id: '42-317-30001', entity_type: 'Well' }, text: facts },
        ]),
      ),
    );
    expect(answer.split('\n')[0]).to.equal(
      'Well BAKER 11 1H (42-317-30001) is operated by ACME OPERATING (P5-123456).',
    );
  });
});
