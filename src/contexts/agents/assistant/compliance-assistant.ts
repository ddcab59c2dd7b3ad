import { BuiltinAssistant, BuiltinTurn, DECISION, skillCalls } from '../../../platform/infra/llm/builtin-model';
import { Intent, intentOf } from './intents';

/**
 * The builtin model's compliance assistant (offline, deterministic): it maps the question to
 * the tools of the compliance, graph, checklist and monitoring contexts (intents.ts) and
 * answers in plain sentences composed from what those tools returned in this turn — the
 * tools' own sentences, ordered and led by the direct answer, nothing invented, at most
 * ~300 words cut at a line, no line twice.
 */
const MAX_WORDS = 300;

const CAN_ANSWER =
  'I can answer: whether a well or a lease is compliant (give its API number, e.g. 42-255-32810, or lease id, e.g. O-01-10074) and why; what is overdue, due within 7 or 30 days or have anomalies, by operator, lease or rule; a well\'s deadlines, flaring authorizations, production and offset wells; recent operational events. I can also log an operational event, prepare a filing checklist (Form PR, R-32, W-1…) and submit a filing for review.';

const WHAT: Record<string, string> = {
  compliance_status: 'the compliance status',
  compliance_portfolio: 'the portfolio\'s compliance buckets',
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
};

const words = (line: string) => line.split(/\s+/).filter(Boolean).length;

/** A graph_context text (markdown sections) as one sentence: the entity and what it is related to. */
function graphSentence(text: string): string {
  const title = /^# (\S+) (.+?) \(entity_id ([^)]+)\)/m.exec(text);
  const related = [...text.matchAll(/^## (\S+) [←→] (\S+) \((\d+)\)/gm)].map((m) => `${m[3]} ${m[2]}${m[3] === '1' ? '' : '(s)'} (${m[1].toLowerCase().replace(/_/g, ' ')})`);
  if (!title) return text.split('\n')[0];
  return `${title[1]} ${title[2]} (${title[3]}) is in the knowledge graph${related.length ? `, related to ${related.join(', ')}` : ''}.`;
}

/** `alone`: no other tool answered, so a loaded skill's own guidance is the answer. */
function linesOf(result: BuiltinTurn['results'][number], alone: boolean): string[] {
  if (result.text.startsWith('Error: ')) return [`I could not get ${WHAT[result.toolName] ?? result.toolName}: ${result.text.slice(7).replace(/\.?$/, '.')}`];
  switch (result.toolName) {
    case 'load_skill': {
      const loaded = /^Skill loaded: (.+?) \([a-z0-9_-]+\)\n?([^\n]*)/.exec(result.text);
      return loaded ? [`Following the ${loaded[1]} skill.`, ...(alone ? [loaded[2]] : [])] : [];
    }
    case 'request_approval':
      return ['I asked a reviewer to approve the submission, with the figures and validations above; nothing is filed before the decision.'];
    case 'graph_context':
      return [graphSentence(result.text)];
    case 'impact_analysis':
      return [result.text.split(' Economic impact:')[0].replace(/\.?$/, '.')];
    case 'compliance_portfolio':
    case 'recent_operational_events':
      return firstBullets(result.text.split('\n').filter((l) => l.trim() !== ''), 5);
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
  const first = results.find((r) => !r.text.startsWith('Error: '));
  if (!first) return null;
  if (first.toolName === 'compliance_status' && /\bcomplian|\bviolat|\bgood standing\b/i.test(question)) {
    return / is not compliant/.test(first.text) ? 'No.' : / is compliant/.test(first.text) ? 'Yes.' : null;
  }
  if (first.toolName === 'compliance_portfolio') {
    const groups = /^By (operator|lease|rule): (.+?) \((\d+)\)/m.exec(first.text);
    const count = first.text.split('\n')[1];
    // "9 wells are overdue." or "31 overdue: 20 leases …, 9 wells, 2 operators."
    const total = /^(\d+) (?:([\w ]+?) (?:is|are|has|have) )?(overdue|due within \d+ days|(?:with )?open anomalies)[.:]/.exec(count ?? '');
    if (groups && total && /\b(most|worst|top|which (operator|lease|rule))\b/i.test(question)) return `${groups[2]} has the most: ${groups[3]} of the ${total[1]} ${total[2] ? `${total[2]} ` : ''}${total[3].replace(/^open/, 'with open')}.`;
    if (/\bhow many\b/i.test(question) && count) return count;
  }
  if (intent.topic === 'filing' && results.some((r) => r.toolName === 'request_approval' && !r.text.startsWith('Error: '))) return 'I prepared the filing and sent it for review.';
  return null;
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
  const alone = turn.results.every((r) => r.toolName === 'load_skill');
  for (const result of turn.results) lines.push(...linesOf(result, alone));
  const attachments = (turn.userText.match(/^--- attachment: /gm) ?? []).length;
  if (attachments > 0) lines.push(`I read ${attachments} attached file${attachments === 1 ? '' : 's'}.`);
  if (turn.results.length === 0 && !decided) {
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
      const intent = intentOf(turn.userText, turn.tools, clock().toISOString().slice(0, 10));
      const decided = DECISION.exec(turn.systemText);
      if (turn.results.length === 0) {
        const reviewed = decided && decided[3] !== 'pending' && intent.topic === 'filing';
        const calls = reviewed ? [] : [...skillCalls(turn.userText, turn.systemText, turn.tools), ...intent.calls];
        if (calls.length > 0) return { calls };
        return { text: compose(turn, intent) };
      }
      // A filing goes to a reviewer once its checklist is prepared: the approval carries the checklist's figures and validations.
      const prepared = turn.results.find((r) => r.toolName === 'start_checklist' && !r.text.startsWith('Error: '));
      if (intent.topic === 'filing' && prepared && !turn.results.some((r) => r.toolName === 'request_approval') && turn.tools.has('request_approval')) {
        const checklistId = /^Checklist ([0-9a-f-]{36})/m.exec(prepared.text)?.[1];
        const input = prepared.input as { form: string; entity_id: string; period?: string };
        const period = /, period (\d{4}-\d{2})/.exec(prepared.text)?.[1] ?? input.period;
        return {
          calls: [
            {
              toolName: 'request_approval',
              input: { checkpoint_type: 'filing_submission', summary: `Submit ${prepared.text.split('\n')[0].replace(/^Checklist \S+: /, '').replace(/;.*$/, '')}`.slice(0, 300), form: input.form, entity_id: input.entity_id, ...(period ? { period } : {}), ...(checklistId ? { checklist_id: checklistId } : {}) },
            },
          ],
        };
      }
      return { text: compose(turn, intent) };
    },
  };
}
