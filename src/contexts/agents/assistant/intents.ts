import { entitiesIn, FILING_INTENT, PlannedCall } from '../../../platform/infra/llm/builtin-model';

/**
 * The everyday questions of a Texas compliance engineer, as the builtin model recognises
 * them: what the user asks about (a well, the portfolio, a checklist) and which tools answer
 * it. Deterministic word patterns; where a question is ambiguous the intent carries the
 * reading it took (`assumed`), which the answer states.
 */
export type Topic = 'status' | 'flaring' | 'production' | 'deadlines' | 'offsets' | 'impact' | 'events' | 'log_event' | 'checklist' | 'filing' | 'prepare' | 'portfolio' | 'entity' | 'decision' | 'unknown';

export interface Intent {
  topic: Topic;
  calls: PlannedCall[];
  /** The reading taken of an ambiguous question, said in the answer. */
  assumed: string | null;
  /** The question lacks something only the user can give: ask for it. */
  askBack: string | null;
}

const has = (text: string, pattern: RegExp) => pattern.test(text);
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/i;
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

const W = {
  status: /\b(complian(t|ce)|in good standing|violat\w*|status|any (issues|problems)|red|ok)\b/i,
  flaring: /\b(flar\w*|vent(ed|ing)?|r-?32|rule 32)\b/i,
  production: /\b(produc(e|ed|tion|ing)|volumes?|oil|gas|bbl|mcf|barrels)\b/i,
  deadlines: /\b(deadlines?|due|when|late|overdue)\b/i,
  offsets: /\b(offsets?|spacing|rule 37|r-?37|distance|nearby wells?)\b/i,
  impact: /\b(impact|shut[- ]?in|goes down|affected)\b/i,
  events: /\b(events?|incidents?|spills?|upsets?|h2s|releases?|equipment failures?)\b/i,
  log: /\b(log|record|report(ed)?|register)\b.*\b(flare upset|upset|h2s|spill|equipment failure|failure|release|leak|event|incident)\b/i,
  overdue: /\b(overdue|late|past due|missed)\b/i,
  due7: /\b(7|seven)[- ]days?\b|\b(this|next) week\b|\bweek\b/i,
  due30: /\b(30|thirty)[- ]days?\b|\b(this|next) month\b|\bmonth\b/i,
  due: /\b(due|upcoming|coming up|deadlines?)\b/i,
  anomalies: /\b(anomal\w*|unusual|outliers?)\b/i,
  portfolio: /\b(portfolio|dashboard|overview|summary|how many|which (of my )?wells|my wells|all wells|wells)\b/i,
  byOperator: /\boperators?\b/i,
  byLease: /\bleases?\b/i,
  byDomain: /\b(rules?|domains?|categor\w*|kinds?)\b/i,
  prepare: /\b(prepare|draft|start|open|create)\b/i,
  checklist: /\b(checklist|assessment|validations?)\b/i,
};

/** `YYYY-MM` the user means: explicit, a month name, or "last month" (relative to `today`). */
export function periodIn(text: string, today: string): string | null {
  const explicit = /\b(\d{4})-(0[1-9]|1[0-2])\b/.exec(text);
  if (explicit) return `${explicit[1]}-${explicit[2]}`;
  const [year, month] = today.split('-').map(Number);
  if (/\blast month\b|\bprevious month\b/i.test(text)) return month === 1 ? `${year - 1}-12` : `${year}-${String(month - 1).padStart(2, '0')}`;
  const named = new RegExp(`\\b(${MONTHS.join('|')})\\b(?:\\s+(\\d{4}))?`, 'i').exec(text);
  if (named) {
    const m = MONTHS.indexOf(named[1].toLowerCase()) + 1;
    const y = named[2] ? Number(named[2]) : m > month ? year - 1 : year;
    return `${y}-${String(m).padStart(2, '0')}`;
  }
  return null;
}

/** The form a request names: a checklist template id (`form_pr`, `R-32`…) when one exists, else the form as written (`W-10`). */
export function formIn(text: string): { form: string; template: boolean } | null {
  const m = /\b(?:form\s+)?(PR|R-?32|W-?10|G-?10|W-?1|W-?2|G-?1|W-?3X|P-?5|H-?10|H-?15)\b/i.exec(text);
  if (!m) return null;
  const f = m[1].toUpperCase().replace(/^([A-Z])-?(\d.*)$/, '$1-$2');
  if (f === 'PR') return { form: 'form_pr', template: true };
  return { form: f, template: ['R-32', 'W-1', 'W-2', 'G-1', 'W-3X'].includes(f) };
}

const EVENT_TYPES: Array<[RegExp, string]> = [
  [/\bh2s\b|hydrogen sulfide|sour gas/i, 'H2S release'],
  [/\bspill|leak(ed)? (oil|water|produced water)|released? \d+ ?bbl/i, 'Spill'],
  [/\bflar\w* upset|upset|emergency flar/i, 'Flare upset'],
  [/\bequipment failure|failed|broke|compressor|pump|separator|failure\b/i, 'Equipment failure'],
];

/** The fields of the seeded event types (commands/monitoring/seed-event-types.ts) stated in words; the user's sentence is the description. */
export function eventFieldsIn(type: string, text: string): Record<string, unknown> {
  const number = (pattern: RegExp) => {
    const m = pattern.exec(text);
    return m ? Number(m[1].replace(/,/g, '')) : undefined;
  };
  const found: Record<string, unknown> = {
    volume_mcf: type === 'Flare upset' ? number(/([\d,.]+)\s*mcf\b/i) : undefined,
    volume_bbl: type === 'Spill' ? number(/([\d,.]+)\s*(?:bbls?|barrels?)\b/i) : undefined,
    concentration_ppm: type === 'H2S release' ? number(/([\d,.]+)\s*ppm\b/i) : undefined,
    duration_hours: type === 'Spill' ? undefined : number(/([\d.]+)\s*(?:hours?|hrs?)\b/i),
    substance: type === 'Spill' ? SUBSTANCES.find(([pattern]) => pattern.test(text))?.[1] : undefined,
    equipment: type === 'Equipment failure' ? (/\b(compressor|pump|separator|heater treater|tank|valve|pipeline|flare stack)\b/i.exec(text)?.[1]?.toLowerCase() ?? 'other') : undefined,
    description: text.trim().slice(0, 500),
  };
  return Object.fromEntries(Object.entries(found).filter(([, v]) => v !== undefined && !(typeof v === 'number' && Number.isNaN(v))));
}

const SUBSTANCES: Array<[RegExp, string]> = [
  [/produced water|salt ?water|brine/i, 'produced water'],
  [/condensate/i, 'condensate'],
  [/\boil\b|crude/i, 'crude oil'],
];

/** A checklist is opened on a well or a lease (Form PR of an oil well is assessed on its lease either way); a Form PR names its month. */
function checklistInput(form: string, subject: { type: string; id: string }, period: string | null): Record<string, unknown> {
  return { form, entity_id: subject.id, ...(subject.type === 'lease' ? { entity_type: 'Lease' } : {}), ...(period && form === 'form_pr' ? { period } : {}) };
}

export function intentOf(userText: string, tools: ReadonlySet<string>, today: string): Intent {
  const text = userText.split(/\n--- attachment: /)[0];
  const wells = entitiesIn(text).filter((e) => e.type === 'well');
  const others = entitiesIn(text).filter((e) => e.type !== 'well');
  const well = wells[0]?.id ?? null;
  // What a filing or a status question can be about: a well, or the lease that files Form PR for its oil wells.
  const subject = entitiesIn(text).find((e) => e.type === 'well' || e.type === 'lease') ?? null;
  const labelOf = (e: { type: string }) => `${e.type[0].toUpperCase()}${e.type.slice(1)}`;
  const checklistId = UUID.exec(text)?.[0] ?? null;
  const intent = (topic: Topic, calls: PlannedCall[], assumed: string | null = null, askBack: string | null = null): Intent => {
    const offered = calls.filter((c) => tools.has(c.toolName));
    // An agent without the tool the question needs still reads the graph about the entities named.
    if (offered.length === 0 && calls.length > 0 && tools.has('graph_context')) {
      offered.push(...entitiesIn(text).map((e) => ({ toolName: 'graph_context', input: { entity_type_key: e.type, id: e.id } })));
    }
    return { topic, calls: offered, assumed, askBack };
  };

  // A filing needs an intent to submit or file a form, never the word "file" alone.
  if (FILING_INTENT.test(text) && tools.has('request_approval')) {
    const named = formIn(text);
    if (!subject) return intent('filing', [], null, 'Which well or lease is the filing for? Give a well\'s API number (42-CCC-UUUUU) or a lease id (O-DD-NNNNN).');
    if (!named) return intent('filing', [], null, `Which form should I file for ${subject.type} ${subject.id}: Form PR, R-32, W-1, W-2/G-1 or W-3X?`);
    const period = periodIn(text, today);
    // A form with a checklist template is prepared (and validated) first; another goes to the reviewer as named.
    if (named.template && tools.has('start_checklist')) return intent('filing', [{ toolName: 'start_checklist', input: checklistInput(named.form, subject, period) }]);
    return intent('filing', [{ toolName: 'request_approval', input: { checkpoint_type: 'filing_submission', summary: text.trim().slice(0, 300), form: named.form, entity_id: subject.id, ...(period ? { period } : {}) } }]);
  }
  if (checklistId && has(text, W.checklist)) {
    const note = /\bnote\b[:\s]+(.+)$/i.exec(text)?.[1];
    const item = /\bitem\s+(\d+)\b/i.exec(text)?.[1];
    if (note && item !== undefined) return intent('checklist', [{ toolName: 'add_checklist_note', input: { checklist_id: checklistId, item_index: Number(item), notes: note.trim() } }]);
    return intent('checklist', [{ toolName: 'checklist_assessment', input: { checklist_id: checklistId } }]);
  }
  if (subject && has(text, W.prepare) && formIn(text)?.template) {
    return intent('prepare', [{ toolName: 'start_checklist', input: checklistInput(formIn(text)!.form, subject, periodIn(text, today)) }]);
  }
  if (has(text, W.log) && tools.has('log_operational_event')) {
    const type = EVENT_TYPES.find(([pattern]) => pattern.test(text))?.[1];
    const at = wells[0] ?? others[0];
    const entity = at?.id;
    if (!type) return intent('log_event', [{ toolName: 'recent_operational_events', input: { limit: 5 } }], null, 'Which kind of event is it: a flare upset, an H2S release, a spill or an equipment failure?');
    if (!entity) return intent('log_event', [], null, `Which well or facility did the ${type.toLowerCase()} happen at? Give its API number or id.`);
    return intent('log_event', [{ toolName: 'log_operational_event', input: { event_type: type, entity_id: entity, entity_type: at.type === 'operator' ? 'Facility' : labelOf(at), fields: eventFieldsIn(type, text) } }]);
  }

  if (well) {
    const calls: PlannedCall[] = [];
    const topics: Topic[] = [];
    const ask = (topic: Topic, call: PlannedCall) => {
      topics.push(topic);
      calls.push(call);
    };
    for (const id of wells.map((w) => w.id)) {
      if (has(text, W.flaring)) ask('flaring', { toolName: 'flaring_authorizations', input: { entity_id: id } });
      if (has(text, W.production) && !has(text, W.flaring)) ask('production', { toolName: 'production_summary', input: { entity_id: id, ...(periodIn(text, today) ? { period: periodIn(text, today) } : {}) } });
      if (has(text, W.deadlines)) ask('deadlines', { toolName: 'compliance_deadlines', input: { entity_id: id } });
      if (has(text, W.offsets)) ask('offsets', { toolName: 'offset_wells', input: { entity_id: id } });
      if (has(text, W.impact)) ask('impact', { toolName: 'impact_analysis', input: { label: 'Well', id } });
      if (has(text, W.events)) ask('events', { toolName: 'recent_operational_events', input: { entity_id: id, limit: 10 } });
      if (has(text, W.status) || calls.length === 0) ask('status', { toolName: 'compliance_status', input: { entity_id: id } });
    }
    const specific = has(text, W.status) || topics.some((t) => t !== 'status');
    return intent(topics[0], calls, specific ? null : 'I took this as a question about the well\'s compliance status');
  }
  if (others.length > 0) {
    // The dashboard has Lease and Operator rows too: their compliance comes from the same verdicts; anything else from the graph.
    const asked = has(text, W.status) || has(text, W.deadlines);
    const calls: PlannedCall[] = others.map((e) => (asked ? { toolName: 'compliance_status', input: { entity_id: e.id } } : { toolName: 'graph_context', input: { entity_type_key: e.type, id: e.id } }));
    if (asked) return intent('status', calls);
    for (const e of others) if (e.type === 'operator') calls.push({ toolName: 'graph_query_template', input: { template_id: 'operator_wells', params: { operator_id: e.id } } });
    return intent('entity', calls);
  }

  if (has(text, W.events) && !has(text, W.overdue) && !has(text, W.due)) return intent('events', [{ toolName: 'recent_operational_events', input: { limit: 10 } }]);
  const groupBy = has(text, W.byOperator) ? 'operator' : has(text, W.byLease) ? 'lease' : has(text, W.byDomain) ? 'domain' : 'operator';
  const portfolio = (bucket: string, assumed: string | null = null) => intent('portfolio', [{ toolName: 'compliance_portfolio', input: { bucket, group_by: groupBy, limit: 10 } }], assumed);
  if (has(text, W.anomalies)) return portfolio('anomalies');
  if (has(text, W.overdue)) return portfolio('overdue');
  if (has(text, W.due7)) return portfolio('due_7d');
  if (has(text, W.due30)) return portfolio('due_30d');
  if (has(text, W.due)) return portfolio('due_30d', 'I took "due" to mean due within the next 30 days');
  if (has(text, W.portfolio) || has(text, W.status)) return portfolio('overdue', has(text, W.status) ? 'I took this as a question about the whole portfolio; name a well by API number for one well' : null);
  return intent('unknown', []);
}
