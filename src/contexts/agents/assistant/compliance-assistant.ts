import {
  type BuiltinAssistant,
  type BuiltinTurn,
  DECISION,
  skillCalls,
} from '../../../platform/infra/llm/builtin-model';
import type { Question } from '../../../../streams/agents/question';
import { type FoundEntity, type Intent, intentOf, planOf } from './intents';

/**
 * The builtin model's compliance assistant (offline, deterministic): it maps the question to
 * the tools of the compliance, graph, checklist and monitoring contexts (intents.ts) and
 * answers in plain sentences composed from what those tools returned in this turn — the
 * tools' own sentences, ordered and led by the direct answer, nothing invented, at most
 * ~300 words cut at a line, no line twice.
 */
const MAX_WORDS = 300;

const CAN_ANSWER =
  "I can answer: whether a well, lease or operator is compliant and why (name it by API number, e.g. 42-255-32810, lease id, e.g. O-01-10074, P-5 number or name); which wells, leases or operators are overdue, not compliant on a rule, in a county or of an operator, and how many; who operates a well, its lease, field, county, status and last filing; a well's deadlines, flaring authorizations, production for a month and offset wells; recent operational events; which files can be attached, the roles and what can be filed. I can also log an operational event, prepare a filing checklist (Form PR, R-32, W-1…) and submit a filing for review.";

const WHAT: Record<string, string> = {
  compliance_status: 'the compliance status',
  compliance_portfolio: "the portfolio's compliance buckets",
  compliance_deadlines: 'the deadlines',
  flaring_authorizations: 'the flaring authorizations',
  production_summary: 'the production',
  offset_wells: 'the offset wells',
  start_checklist: 'the filing checklist',
  checklist_assessment: 'the checklist',
  add_checklist_note: 'the note',
  log_operational_event: 'the event logged',
  recent_operational_events: 'the operational events',
  graph_context: 'the knowledge graph facts',
  graph_query_template: 'the graph query',
  impact_analysis: 'the impact analysis',
  request_approval: 'the approval request',
  find_entities: 'the entity',
  entity_facts: 'the facts',
  compliance_list: 'the list',
  platform_help: 'the answer',
};

/** What the entity searches of this turn found, per reference: one entity, none, or several to choose from. */
interface Resolution {
  found: FoundEntity[];
  missing: string[];
  ambiguous: Array<{ reference: string; lines: string[] }>;
}

const MATCH_LINE = /^- (Well|Lease|Operator) (.+?) — entity_id (\S+?);/;

function resolutionOf(results: BuiltinTurn['results']): Resolution {
  const resolution: Resolution = { found: [], missing: [], ambiguous: [] };
  for (const r of results.filter((x) => x.toolName === 'find_entities')) {
    const reference = String(r.input.reference ?? '');
    const lines = r.text.split('\n').filter((l) => MATCH_LINE.test(l));
    if (lines.length === 0) resolution.missing.push(reference);
    else if (lines.length > 1) resolution.ambiguous.push({ reference, lines });
    else {
      const m = MATCH_LINE.exec(lines[0])!;
      resolution.found.push({ type: m[1] as FoundEntity['type'], name: m[2], id: m[3] });
    }
  }
  return resolution;
}

/** The question cannot go on: nothing matched a name, or several did (the person says which). */
function unresolved(resolution: Resolution, question: Question): string | null {
  const what = (reference: string) =>
    question.refs.find((r) => r.text === reference)?.type?.toLowerCase() ?? 'well, lease or operator';
  if (resolution.ambiguous.length > 0) {
    const { reference, lines } = resolution.ambiguous[0];
    const choices = lines.slice(0, 5).map((l) =>
      l
        .replace(MATCH_LINE, (_, type: string, name: string, id: string) => `- ${type} ${name} (${id}):`)
        .replace(/: (.*)$/, ', $1.')
        .replace(/; found by .*\.$/, '.'),
    );
    return [
      `Which one do you mean? ${lines.length} entities match "${reference}":`,
      ...choices,
      `${lines.length > 5 ? `… and ${lines.length - 5} more. ` : ''}Ask again with the entity id or API number of the one you mean.`,
    ].join('\n');
  }
  if (resolution.missing.length > 0) {
    const reference = resolution.missing[0];
    return `I found no ${what(reference)} matching "${reference}" in the knowledge graph. Give its API number, lease id, P-5 number or name as the platform knows it.`;
  }
  return null;
}

const words = (line: string) => line.split(/\s+/).filter(Boolean).length;

/** A graph_context text (markdown sections) as one sentence: the entity and what it is related to. */
function graphSentence(text: string): string {
  const title = /^# (\S+) (.+?) \(entity_id ([^)]+)\)/m.exec(text);
  const related = [...text.matchAll(/^## (\S+) [←→] (\S+) \((\d+)\)/gm)].map(
    (m) => `${m[3]} ${m[2]}${m[3] === '1' ? '' : '(s)'} (${m[1].toLowerCase().replace(/_/g, ' ')})`,
  );
  if (!title) return text.split('\n')[0];
  return `${title[1]} ${title[2]} (${title[3]}) is in the knowledge graph${related.length ? `, related to ${related.join(', ')}` : ''}.`;
}

/** `alone`: no other tool answered, so a loaded skill's own guidance is the answer. */
function linesOf(result: BuiltinTurn['results'][number], alone: boolean): string[] {
  if (result.text.startsWith('Error: '))
    return [
      `I could not get ${WHAT[result.toolName] ?? result.toolName}: ${result.text.slice(7).replace(/\.?$/, '.')}`,
    ];
  switch (result.toolName) {
    case 'load_skill': {
      const loaded = /^Skill loaded: (.+?) \([a-z0-9_-]+\)\n?([^\n]*)/.exec(result.text);
      return loaded ? [`Following the ${loaded[1]} skill.`, ...(alone ? [loaded[2]] : [])] : [];
    }
    case 'request_approval':
      return [
        'I asked a reviewer to approve the submission, with the figures and validations above; nothing is filed before the decision.',
      ];
    case 'graph_context':
      return [graphSentence(result.text)];
    case 'impact_analysis':
      return [result.text.split(' Economic impact:')[0].replace(/\.?$/, '.')];
    case 'find_entities':
      return [];
    case 'compliance_portfolio':
    case 'compliance_list':
    case 'recent_operational_events':
      return firstBullets(
        result.text.split('\n').filter((l) => l.trim() !== ''),
        5,
      );
    default:
      return result.text.split('\n').filter((l) => l.trim() !== '');
  }
}

/** A list answer keeps its first bullets; the tool's table holds the rest. */
function firstBullets(lines: string[], keep: number): string[] {
  const bullets = lines.filter((l) => l.startsWith('- '));
  if (bullets.length <= keep) return lines;
  const dropped = new Set(bullets.slice(keep));
  const more = lines.find((l) => /^… and \d+ more\.$/.test(l));
  const rest = bullets.length - keep + (more ? Number(/\d+/.exec(more)![0]) : 0);
  return [...lines.filter((l) => !dropped.has(l) && l !== more), `… and ${rest} more (all in the table above).`];
}

/** The direct answer to the question, from the first result's own sentences. */
function lead(question: string, intent: Intent, results: BuiltinTurn['results']): string | null {
  // The answering tools' results: the search and the skill only prepared the answer.
  const first = results.find(
    (r) => !r.text.startsWith('Error: ') && r.toolName !== 'load_skill' && r.toolName !== 'find_entities',
  );
  if (!first) return null;
  if (first.toolName === 'compliance_status' && /\bcomplian|\bviolat|\bgood standing\b/i.test(question)) {
    return / is not compliant/.test(first.text) ? 'No.' : / is compliant/.test(first.text) ? 'Yes.' : null;
  }
  if (first.toolName === 'compliance_portfolio') {
    const groups = /^By (operator|lease|rule): (.+?) \((\d+)\)/m.exec(first.text);
    const count = first.text.split('\n')[1];
    // "9 wells are overdue." or "31 overdue: 20 leases …, 9 wells, 2 operators."
    const total =
      /^(\d+) (?:([\w ]+?) (?:is|are|has|have) )?(overdue|due within \d+ days|(?:with )?open anomalies)[.:]/.exec(
        count ?? '',
      );
    if (groups && total && /\b(most|worst|top|which (operator|lease|rule))\b/i.test(question))
      return `${groups[2]} has the most: ${groups[3]} of the ${total[1]} ${total[2] ? `${total[2]} ` : ''}${total[3].replace(/^open/, 'with open')}.`;
    if (/\bhow many\b/i.test(question) && count) return count;
  }
  if (first.toolName === 'compliance_list') return listLead(intent.question, first.text);
  if (first.toolName === 'entity_facts' && intent.question.attribute)
    return factLead(intent.question.attribute, first.text);
  if (
    intent.topic === 'filing' &&
    results.some((r) => r.toolName === 'request_approval' && !r.text.startsWith('Error: '))
  )
    return 'I prepared the filing and sent it for review.';
  return null;
}

/** "X has the most: 29 of the 61 wells that are overdue." for a "most" question; else the count itself. */
function listLead(question: Question, text: string): string | null {
  const [count, groups] = text.split('\n');
  const top = /^By (operator|lease|rule|county): (.+?) \((\d+)\)/.exec(groups ?? '');
  const total = /^(\d+) (\w+) (?:is|are) (.+)\.$/.exec(count ?? '') ?? /^(\d+) (.+?): .+\.$/.exec(count ?? '');
  if (question.most && top && total)
    return `${top[2]} has the most: ${top[3]} of the ${total[1]} ${total.length === 4 ? `${total[2]} that are ${total[3]}` : total[2]}.`;
  return count ?? null;
}

const FACT_LEADS: Record<string, [string, (subject: string, value: string) => string]> = {
  operator: ['Operator', (s, v) => `${s} is operated by ${v}.`],
  lease: ['Lease', (s, v) => `${s} is on lease ${v}.`],
  field: ['Field', (s, v) => `${s} is in the ${v} field.`],
  county: ['County', (s, v) => `${s} is in ${v}.`],
  status: ['Status', (s, v) => `${s} is ${v}.`],
  last_filing: ['Last filing', (s, v) => `The last filing on record for ${s}: ${v}.`],
  api_number: ['API number', (s, v) => `The API number of ${s} is ${v}.`],
  wells: ['Wells', (s, v) => `${s} has ${v} well${v === '1' ? '' : 's'}.`],
  leases: ['Leases', (s, v) => `${s} has ${v} lease${v === '1' ? '' : 's'}.`],
};

/** The one fact asked for, from the entity_facts lines ("- Operator: NAME (P5-…)"). */
function factLead(attribute: string, text: string): string | null {
  const subject = /^(.+):$/m.exec(text)?.[1];
  const [key, sentence] = FACT_LEADS[attribute] ?? [];
  if (!subject || !key) return null;
  const value = new RegExp(`^- ${key}: (.+)$`, 'm').exec(text)?.[1];
  return value ? sentence(subject, value) : `The knowledge graph records no ${key.toLowerCase()} for ${subject}.`;
}

function compose(turn: BuiltinTurn, intent: Intent): string {
  const lines: string[] = [];
  const decided = DECISION.exec(turn.systemText);
  if (decided && (intent.topic === 'unknown' || intent.topic === 'filing')) {
    lines.push(
      decided[3] === 'pending'
        ? `Approval ${decided[1]} (${decided[2]}) is still waiting for a reviewer; nothing is filed before the decision.`
        : `The reviewer ${decided[3]} approval ${decided[1]} (${decided[2]}).${decided[3] === 'rejected' ? ' Nothing will be filed.' : ' The filing can proceed.'}`,
    );
  }
  const direct = lead(turn.userText, intent, turn.results);
  if (direct) lines.push(direct);
  if (intent.assumed) lines.push(`(${intent.assumed}.)`);
  const alone = turn.results.every((r) => r.toolName === 'load_skill' || r.toolName === 'find_entities');
  for (const result of turn.results) lines.push(...linesOf(result, alone));
  const attachments = (turn.userText.match(/^--- attachment: /gm) ?? []).length;
  if (attachments > 0) lines.push(`I read ${attachments} attached file${attachments === 1 ? '' : 's'}.`);
  if (turn.results.every((r) => r.toolName === 'find_entities') && !decided) {
    if (intent.askBack) lines.push(intent.askBack);
    else lines.push(`I cannot answer that from the tools I have. ${CAN_ANSWER}`);
  }
  const seen = new Set<string>();
  const unique = lines.filter((l) => (seen.has(l) ? false : (seen.add(l), true)));
  const kept: string[] = [];
  let count = 0;
  for (const line of turn.short ? unique.slice(0, 2) : unique) {
    if (count + words(line) > MAX_WORDS) {
      kept.push('(More in the table above.)');
      break;
    }
    kept.push(line);
    count += words(line);
  }
  return kept.join('\n');
}

export function complianceAssistant(clock: () => Date): BuiltinAssistant {
  return {
    next(turn) {
      const today = clock().toISOString().slice(0, 10);
      const decided = DECISION.exec(turn.systemText);
      const searching = turn.results.every((r) => r.toolName === 'find_entities' || r.toolName === 'load_skill');
      const searched = turn.results.some((r) => r.toolName === 'find_entities');
      const resolution = searched ? resolutionOf(turn.results) : null;
      const first = intentOf(turn.userText, turn.tools, today, resolution ? resolution.found : null);
      const intent =
        resolution && first.topic === 'resolve' ? planOf(first.question, resolution.found, turn.tools) : first;
      if (turn.results.length === 0 || (searching && searched)) {
        const reviewed =
          decided && decided[3] !== 'pending' && (intent.topic === 'filing' || first.topic === 'resolve');
        if (resolution) {
          const stop = unresolved(resolution, intent.question);
          if (stop) return { text: stop };
          if (intent.calls.length > 0 && !reviewed) return { calls: intent.calls };
          return { text: compose(turn, intent) };
        }
        const calls =
          reviewed && intent.topic === 'filing'
            ? []
            : [...skillCalls(turn.userText, turn.systemText, turn.tools), ...(reviewed ? [] : intent.calls)];
        if (calls.length > 0) return { calls };
        return { text: compose(turn, intent) };
      }
      // A filing goes to a reviewer once its checklist is prepared: the approval carries the checklist's figures and validations.
      const prepared = turn.results.find((r) => r.toolName === 'start_checklist' && !r.text.startsWith('Error: '));
      if (
        intent.topic === 'filing' &&
        prepared &&
        !turn.results.some((r) => r.toolName === 'request_approval') &&
        turn.tools.has('request_approval')
      ) {
        const checklistId = /^Checklist ([0-9a-f-]{36})/m.exec(prepared.text)?.[1];
        const input = prepared.input as { form: string; entity_id: string; period?: string };
        const period = /, period (\d{4}-\d{2})/.exec(prepared.text)?.[1] ?? input.period;
        return {
          calls: [
            {
              toolName: 'request_approval',
              input: {
                checkpoint_type: 'filing_submission',
                summary: `Submit ${prepared.text
                  .split('\n')[0]
                  .replace(/^Checklist \S+: /, '')
                  .replace(/;.*$/, '')}`.slice(0, 300),
                form: input.form,
                entity_id: input.entity_id,
                ...(period ? { period } : {}),
                ...(checklistId ? { checklist_id: checklistId } : {}),
              },
            },
          ],
        };
      }
      return { text: compose(turn, intent) };
    },
  };
}
