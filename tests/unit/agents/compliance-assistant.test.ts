import { expect } from 'chai';
import type { BuiltinTurn } from '../../../src/platform/infra/llm/builtin-model';
import { complianceAssistant } from '../../../src/contexts/agents/assistant/compliance-assistant';
import { eventFieldsIn, intentOf, periodIn } from '../../../src/contexts/agents/assistant/intents';

const TOOLS = new Set(['compliance_status', 'compliance_portfolio', 'compliance_deadlines', 'flaring_authorizations', 'production_summary', 'offset_wells', 'start_checklist', 'checklist_assessment', 'add_checklist_note', 'log_operational_event', 'recent_operational_events', 'graph_context', 'graph_query_template', 'impact_analysis', 'request_approval', 'load_skill']);
const TODAY = '2026-11-26';
const WELL = '42-255-32810';
const calls = (question: string) => intentOf(question, TOOLS, TODAY).calls;
const assistant = complianceAssistant(() => new Date(`${TODAY}T12:00:00Z`));
const turn = (userText: string, results: BuiltinTurn['results'] = []): BuiltinTurn => ({ userText, systemText: 'You are a compliance assistant.', tools: TOOLS, results, short: false });
const textOf = (step: ReturnType<typeof assistant.next>) => ('text' in step ? step.text : '');

describe('the builtin compliance assistant', () => {
  it('maps portfolio questions, in several phrasings, to the bucket and grouping they ask for', () => {
    for (const q of ['Which of my wells have overdue filings?', 'How many wells are overdue?', 'Show me everything that is past due', 'Which wells are late?']) {
      expect(calls(q), q).to.deep.equal([{ toolName: 'compliance_portfolio', input: { bucket: 'overdue', group_by: 'operator', limit: 10 } }]);
    }
    for (const q of ['What is due in the next 7 days?', 'What is due this week?', 'Anything due within seven days?']) expect(calls(q)[0].input, q).to.deep.include({ bucket: 'due_7d' });
    expect(calls('What is due in the next 30 days?')[0].input).to.deep.include({ bucket: 'due_30d' });
    expect(calls('Which operator has the most overdue wells?')[0].input).to.deep.include({ bucket: 'overdue', group_by: 'operator' });
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
    expect(calls(`Is well ${WELL} compliant?`)).to.deep.equal([{ toolName: 'compliance_status', input: { entity_id: WELL } }]);
    expect(calls(`Is ${WELL} in compliance with the rules?`)).to.deep.equal([{ toolName: 'compliance_status', input: { entity_id: WELL } }]);
    expect(calls(`What is the flaring authorization of well ${WELL}?`)).to.deep.equal([{ toolName: 'flaring_authorizations', input: { entity_id: WELL } }]);
    expect(calls(`Summarize last month's production of well ${WELL}`)).to.deep.equal([{ toolName: 'production_summary', input: { entity_id: WELL, period: '2026-10' } }]);
    expect(calls(`How much oil did ${WELL} produce in March?`)).to.deep.equal([{ toolName: 'production_summary', input: { entity_id: WELL, period: '2026-03' } }]);
    expect(calls(`When are the deadlines of ${WELL}?`)).to.deep.equal([{ toolName: 'compliance_deadlines', input: { entity_id: WELL } }]);
    expect(calls(`Does ${WELL} meet Rule 37 spacing?`)).to.deep.equal([{ toolName: 'offset_wells', input: { entity_id: WELL } }]);
    const vague = intentOf(`Tell me about ${WELL}`, TOOLS, TODAY);
    expect(vague.calls).to.deep.equal([{ toolName: 'compliance_status', input: { entity_id: WELL } }]);
    expect(vague.assumed).to.contain('compliance status');
  });

  it('a filing needs a filing intent: the word "file" alone opens nothing', () => {
    expect(calls('What file formats can I attach?')).to.deep.equal([]);
    expect(calls('Can I upload a PDF file?')).to.deep.equal([]);
    expect(calls(`Prepare the Form PR for well ${WELL} for last month and submit it for review`)).to.deep.equal([{ toolName: 'start_checklist', input: { form: 'form_pr', entity_id: WELL, period: '2026-10' } }]);
    expect(calls(`File the R-32 for ${WELL}`)).to.deep.equal([{ toolName: 'start_checklist', input: { form: 'R-32', entity_id: WELL } }]);
    expect(calls(`Please submit the W-10 for well ${WELL}.`)).to.deep.equal([{ toolName: 'request_approval', input: { checkpoint_type: 'filing_submission', summary: `Please submit the W-10 for well ${WELL}.`, form: 'W-10', entity_id: WELL } }]);
    expect(intentOf(`Submit the filing for well ${WELL}`, TOOLS, TODAY).askBack).to.contain('Which form');
    const noWell = intentOf('Submit the Form PR for last month', TOOLS, TODAY);
    expect(noWell.calls).to.deep.equal([]);
    expect(noWell.askBack).to.contain('Which well');
  });

  it('logs operational events with the fields said in words, and asks back what is missing', () => {
    expect(calls(`Log a flare upset at well ${WELL}: 350 mcf over 6 hours`)).to.deep.equal([
      { toolName: 'log_operational_event', input: { event_type: 'Flare upset', entity_id: WELL, entity_type: 'Well', fields: { volume_mcf: 350, duration_hours: 6, description: `Log a flare upset at well ${WELL}: 350 mcf over 6 hours` } } },
    ]);
    expect(eventFieldsIn('Spill', 'spilled 20 bbl of produced water')).to.deep.equal({ volume_bbl: 20, substance: 'produced water', description: 'spilled 20 bbl of produced water' });
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
    const answer = textOf(assistant.next(turn(`Is well ${WELL} compliant?`, [{ toolName: 'compliance_status', input: { entity_id: WELL }, text: status }, { toolName: 'compliance_status', input: { entity_id: WELL }, text: status }])));
    expect(answer.split('\n')).to.deep.equal(['No.', ...status.split('\n')]);
  });

  it('names the operator with the most, keeps a long list short, and stays under 300 words', () => {
    const rows = Array.from({ length: 40 }, (_, i) => `- WELL ${i} (42-001-${String(10000 + i)}), ACME OPERATING — Form PR production reporting: Form PR for 2026-09 not filed; was due 2026-10-30.`);
    const text = ['Portfolio on 2026-11-26: 40 overdue, 0 due within 7 days, 0 due within 30 days, 0 with anomalies.', '40 wells are overdue.', 'By operator: ACME OPERATING (30); ZETA LLC (10).', ...rows.slice(0, 10), '… and 30 more.'].join('\n');
    const answer = textOf(assistant.next(turn('Which operator has the most overdue wells?', [{ toolName: 'compliance_portfolio', input: {}, text }])));
    expect(answer.split('\n')[0]).to.equal('ACME OPERATING has the most: 30 of the 40 wells overdue.');
    expect(answer).to.contain('… and 35 more (all in the table above).');
    expect(answer.split(/\s+/).length).to.be.lessThan(300);
  });

  it('counts a mixed bucket by what its rows are and names the operator with the most of them', () => {
    const text = ['Portfolio on 2026-11-26: 31 overdue, 0 due within 7 days, 0 due within 30 days, 0 with anomalies.', '31 overdue: 20 leases (Form PR is filed per oil lease), 9 wells, 2 operators.', 'By operator: ACME OPERATING (12); ZETA LLC (10).'].join('\n');
    const answer = textOf(assistant.next(turn('Which operator has the most overdue wells?', [{ toolName: 'compliance_portfolio', input: {}, text }])));
    expect(answer.split('\n')[0]).to.equal('ACME OPERATING has the most: 12 of the 31 overdue.');
    expect(answer).to.contain('20 leases (Form PR is filed per oil lease), 9 wells, 2 operators.');
    const anomalies = ['Portfolio on 2026-11-26: 0 overdue, 0 due within 7 days, 0 due within 30 days, 9 with anomalies.', '9 wells have open anomalies.', 'By operator: ZETA LLC (6); ACME OPERATING (3).'].join('\n');
    expect(textOf(assistant.next(turn('Which operator has the most anomalies?', [{ toolName: 'compliance_portfolio', input: {}, text: anomalies }]))).split('\n')[0]).to.equal('ZETA LLC has the most: 6 of the 9 wells with open anomalies.');
  });

  it('a lease is asked about and filed for like a well: its compliance, its Form PR checklist', () => {
    const LEASE = 'O-01-10074';
    expect(calls(`Is lease ${LEASE} compliant?`)).to.deep.equal([{ toolName: 'compliance_status', input: { entity_id: LEASE } }]);
    expect(calls(`Is well ${LEASE} compliant?`)).to.deep.equal([{ toolName: 'compliance_status', input: { entity_id: LEASE } }]);
    expect(calls(`What do we know about lease ${LEASE}?`)).to.deep.equal([{ toolName: 'graph_context', input: { entity_type_key: 'lease', id: LEASE } }]);
    expect(calls(`Prepare the Form PR for lease ${LEASE} for 2025-12 and submit it for review`)).to.deep.equal([{ toolName: 'start_checklist', input: { form: 'form_pr', entity_id: LEASE, entity_type: 'Lease', period: '2025-12' } }]);
    expect(calls(`Log a flare upset at lease ${LEASE}: 350 mcf`)[0].input).to.deep.include({ entity_id: LEASE, entity_type: 'Lease' });
  });

  it('after the checklist is prepared, asks for the approval with its id; then says what happened', () => {
    const question = `Prepare the Form PR for well ${WELL} for last month and submit it for review`;
    const checklist = `Checklist 0a0b0c0d-0000-4000-8000-000000000001: Form PR monthly production report for well ${WELL}, period 2026-10, due 2026-11-30; status in progress.\nAssessment completed: 7 of 7 checks passed.`;
    const prepared = [{ toolName: 'start_checklist', input: { form: 'form_pr', entity_id: WELL, period: '2026-10' }, text: checklist }];
    const step = assistant.next(turn(question, prepared));
    expect(step).to.have.property('calls');
    expect((step as { calls: Array<{ toolName: string; input: Record<string, unknown> }> }).calls[0]).to.deep.include({ toolName: 'request_approval' });
    expect((step as { calls: Array<{ input: Record<string, unknown> }> }).calls[0].input).to.deep.include({ checkpoint_type: 'filing_submission', form: 'form_pr', entity_id: WELL, period: '2026-10', checklist_id: '0a0b0c0d-0000-4000-8000-000000000001' });
    const answer = textOf(assistant.next(turn(question, [...prepared, { toolName: 'request_approval', input: {}, text: 'A filing_submission approval will be requested.' }])));
    expect(answer.split('\n')[0]).to.equal('I prepared the filing and sent it for review.');
    expect(answer).to.contain('nothing is filed before the decision');
  });

  it('a question it cannot answer gets what it can answer; a failed tool is said in words', () => {
    expect(textOf(assistant.next(turn('What file formats can I attach?')))).to.match(/^I cannot answer that from the tools I have\. I can answer: whether a well or a lease is compliant/);
    const failed = textOf(assistant.next(turn(`Is well ${WELL} compliant?`, [{ toolName: 'compliance_status', input: {}, text: `Error: ${WELL} has no compliance assessment` }])));
    expect(failed).to.equal(`I could not get the compliance status: ${WELL} has no compliance assessment.`);
  });
});
