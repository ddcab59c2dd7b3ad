import { FILING_INTENT, type PlannedCall } from '../../../platform/infra/llm/builtin-model';
import { type EntityLabel, formIn, parseQuestion, periodIn, type Question } from '../../../../streams/agents/question';

export { formIn, periodIn };

/**
 * What the builtin model does with an everyday question (read into slots by
 * `streams/agents/question.ts`): first it finds the entities the question names
 * (`find_entities`: by API number, lease id, P-5 number or name), then it plans the tools that
 * answer the question's kind with the entity ids found — a list or a count filtered by rule,
 * colour, operator, lease or county; a fact of an entity; one well's status, deadlines,
 * flaring, production, offsets, impact or events; a platform how-to; a filing or an event to
 * log. Where a question is ambiguous the intent carries the reading it took (`assumed`) or
 * what to ask back (`askBack`).
 */
export type Topic =
  | 'resolve'
  | 'status'
  | 'flaring'
  | 'production'
  | 'deadlines'
  | 'offsets'
  | 'impact'
  | 'events'
  | 'log_event'
  | 'checklist'
  | 'filing'
  | 'prepare'
  | 'portfolio'
  | 'list'
  | 'count'
  | 'fact'
  | 'help'
  | 'entity'
  | 'decision'
  | 'unknown';

export interface Intent {
  topic: Topic;
  calls: PlannedCall[];
  /** The reading taken of an ambiguous question, said in the answer. */
  assumed: string | null;
  /** The question lacks something only the user can give: ask for it. */
  askBack: string | null;
  question: Question;
}

/** An entity the question names, as `find_entities` found it. */
export interface FoundEntity {
  type: EntityLabel;
  id: string;
  name: string;
}

const has = (text: string, pattern: RegExp) => pattern.test(text);

const W = {
  status: /\b(complian(t|ce)|in good standing|violat\w*|status|any (issues|problems)|red|ok)\b/i,
  flaring: /\b(flar\w*|vent(ed|ing)?|r-?32|rule 32)\b/i,
  production: /\b(produc(e|ed|tion|ing)|volumes?|oil|gas|bbl|mcf|barrels)\b/i,
  deadlines: /\b(deadlines?|due|when|late|overdue)\b/i,
  offsets: /\b(offsets?|spacing|rule 37|r-?37|distance|nearby wells?)\b/i,
  impact: /\b(impact|shut[- ]?in|goes down|affected)\b/i,
  events: /\b(events?|incidents?|spills?|upsets?|h2s|releases?|equipment failures?)\b/i,
  log: /\b(log|record|report(ed)?|register)\b.*\b(flare upset|upset|h2s|spill|equipment failure|failure|release|leak|event|incident)\b/i,
  portfolio: /\b(portfolio|dashboard|overview|summary)\b/i,
  list: /\b(which|list|show|what|name|give me|find|any)\b/i,
  prepare: /\b(prepare|draft|start|open|create)\b/i,
  checklist: /\b(checklist|assessment|validations?)\b/i,
};

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
    equipment:
      type === 'Equipment failure'
        ? (/\b(compressor|pump|separator|heater treater|tank|valve|pipeline|flare stack)\b/i
            .exec(text)?.[1]
            ?.toLowerCase() ?? 'other')
        : undefined,
    description: text.trim().slice(0, 500),
  };
  return Object.fromEntries(
    Object.entries(found).filter(([, v]) => v !== undefined && !(typeof v === 'number' && Number.isNaN(v))),
  );
}

const SUBSTANCES: Array<[RegExp, string]> = [
  [/produced water|salt ?water|brine/i, 'produced water'],
  [/condensate/i, 'condensate'],
  [/\boil\b|crude/i, 'crude oil'],
];

/** A checklist is opened on a well or a lease (Form PR of an oil well is assessed on its lease either way); a Form PR names its month. */
function checklistInput(form: string, subject: FoundEntity, period: string | null): Record<string, unknown> {
  return {
    form,
    entity_id: subject.id,
    ...(subject.type === 'Lease' ? { entity_type: 'Lease' } : {}),
    ...(period && form === 'form_pr' ? { period } : {}),
  };
}

const noun = (type: EntityLabel) => type.toLowerCase();

/** The calls that find what the question names; none when it names nothing (or the agent cannot search). */
export function resolveCalls(question: Question, tools: ReadonlySet<string>): PlannedCall[] {
  if (!tools.has('find_entities')) return [];
  return question.refs.map((ref) => ({
    toolName: 'find_entities',
    input: { reference: ref.text, ...(ref.type ? { entity_type: ref.type } : {}) },
  }));
}

/** The question read and, when it names entities the agent can search for, the searches to run first. */
export function intentOf(
  userText: string,
  tools: ReadonlySet<string>,
  today: string,
  found: FoundEntity[] | null = null,
): Intent {
  const question = parseQuestion(userText, today);
  if (found === null) {
    const searches = resolveCalls(question, tools);
    if (searches.length > 0) return { topic: 'resolve', calls: searches, assumed: null, askBack: null, question };
  }
  // An agent without the search passes what was written (an id, an API number) as it is.
  const entities = found ?? question.refs.map((r) => ({ type: r.type ?? 'Well', id: r.text, name: r.text }));
  return planOf(question, entities, tools);
}

/** The tools that answer the question, given the entities it names (found). */
export function planOf(q: Question, entities: FoundEntity[], tools: ReadonlySet<string>): Intent {
  const text = q.text;
  const wells = entities.filter((e) => e.type === 'Well');
  const others = entities.filter((e) => e.type !== 'Well');
  const subject = entities.find((e) => e.type === 'Well' || e.type === 'Lease') ?? null;
  const intent = (
    topic: Topic,
    calls: PlannedCall[],
    assumed: string | null = null,
    askBack: string | null = null,
  ): Intent => {
    const offered = calls.filter((c) => tools.has(c.toolName));
    // An agent without the tool the question needs still reads the graph about the entities named.
    if (offered.length === 0 && calls.length > 0 && tools.has('graph_context')) {
      offered.push(
        ...entities.map((e) => ({ toolName: 'graph_context', input: { entity_type_key: noun(e.type), id: e.id } })),
      );
    }
    return { topic, calls: offered, assumed, askBack, question: q };
  };

  // A filing needs an intent to submit or file a form, never the word "file" alone.
  if (FILING_INTENT.test(text) && tools.has('request_approval')) {
    const named = q.form;
    if (!subject)
      return intent(
        'filing',
        [],
        null,
        "Which well or lease is the filing for? Give a well's API number (42-CCC-UUUUU), a lease id (O-DD-NNNNN) or its name.",
      );
    if (!named)
      return intent(
        'filing',
        [],
        null,
        `Which form should I file for ${noun(subject.type)} ${subject.name} (${subject.id}): Form PR, R-32, W-1, W-2/G-1 or W-3X?`,
      );
    // A form with a checklist template is prepared (and validated) first; another goes to the reviewer as named.
    if (named.template && tools.has('start_checklist'))
      return intent('filing', [{ toolName: 'start_checklist', input: checklistInput(named.form, subject, q.period) }]);
    return intent('filing', [
      {
        toolName: 'request_approval',
        input: {
          checkpoint_type: 'filing_submission',
          summary: text.trim().slice(0, 300),
          form: named.form,
          entity_id: subject.id,
          ...(q.period ? { period: q.period } : {}),
        },
      },
    ]);
  }
  if (q.checklistId && has(text, W.checklist)) {
    const note = /\bnote\b[:\s]+(.+)$/i.exec(text)?.[1];
    const item = /\bitem\s+(\d+)\b/i.exec(text)?.[1];
    if (note && item !== undefined)
      return intent('checklist', [
        {
          toolName: 'add_checklist_note',
          input: { checklist_id: q.checklistId, item_index: Number(item), notes: note.trim() },
        },
      ]);
    return intent('checklist', [{ toolName: 'checklist_assessment', input: { checklist_id: q.checklistId } }]);
  }
  if (subject && has(text, W.prepare) && q.form?.template)
    return intent('prepare', [{ toolName: 'start_checklist', input: checklistInput(q.form.form, subject, q.period) }]);
  if (has(text, W.log) && tools.has('log_operational_event')) {
    const type = EVENT_TYPES.find(([pattern]) => pattern.test(text))?.[1];
    const at = wells[0] ?? others[0];
    if (!type)
      return intent(
        'log_event',
        [{ toolName: 'recent_operational_events', input: { limit: 5 } }],
        null,
        'Which kind of event is it: a flare upset, an H2S release, a spill or an equipment failure?',
      );
    if (!at)
      return intent(
        'log_event',
        [],
        null,
        `Which well or facility did the ${type.toLowerCase()} happen at? Give its API number, id or name.`,
      );
    return intent('log_event', [
      {
        toolName: 'log_operational_event',
        input: {
          event_type: type,
          entity_id: at.id,
          entity_type: at.type === 'Operator' ? 'Facility' : at.type,
          fields: eventFieldsIn(type, text),
        },
      },
    ]);
  }
  if (q.help && entities.length === 0) return intent('help', [{ toolName: 'platform_help', input: { topic: q.help } }]);

  // Wells, leases or operators of an operator or a lease: a filtered list, counted in the unit asked for.
  const owner = others.find((e) => q.unit && q.unit !== e.type && !(e.type === 'Operator' && q.unit === 'Operator'));
  if (
    owner &&
    (q.count || q.most || q.many) &&
    !q.attribute?.match(/^(operator|lease|field|county|api_number|last_filing)$/)
  ) {
    return intent(q.count ? 'count' : 'list', [
      listCall(q, { [owner.type === 'Operator' ? 'operator' : 'lease']: owner.id }),
    ]);
  }
  if (q.attribute && entities.length > 0) {
    return intent(
      'fact',
      entities.map((e) => ({ toolName: 'entity_facts', input: { entity_id: e.id, entity_type: e.type } })),
    );
  }
  if (wells.length > 0) {
    const calls: PlannedCall[] = [];
    const topics: Topic[] = [];
    const ask = (topic: Topic, call: PlannedCall) => {
      topics.push(topic);
      calls.push(call);
    };
    for (const id of wells.map((w) => w.id)) {
      if (has(text, W.flaring)) ask('flaring', { toolName: 'flaring_authorizations', input: { entity_id: id } });
      if (has(text, W.production) && !has(text, W.flaring))
        ask('production', {
          toolName: 'production_summary',
          input: { entity_id: id, ...(q.period ? { period: q.period } : {}) },
        });
      if (has(text, W.deadlines)) ask('deadlines', { toolName: 'compliance_deadlines', input: { entity_id: id } });
      if (has(text, W.offsets)) ask('offsets', { toolName: 'offset_wells', input: { entity_id: id } });
      if (has(text, W.impact)) ask('impact', { toolName: 'impact_analysis', input: { label: 'Well', id } });
      if (has(text, W.events))
        ask('events', { toolName: 'recent_operational_events', input: { entity_id: id, limit: 10 } });
      if (has(text, W.status) || calls.length === 0)
        ask('status', { toolName: 'compliance_status', input: { entity_id: id } });
    }
    const specific = has(text, W.status) || topics.some((t) => t !== 'status');
    return intent(topics[0], calls, specific ? null : "I took this as a question about the well's compliance status");
  }
  if (others.length > 0) {
    // The dashboard has Lease and Operator rows too: their compliance comes from the same verdicts; anything else is their facts.
    const asked = has(text, W.status) || has(text, W.deadlines);
    if (asked)
      return intent(
        'status',
        others.map((e) => ({ toolName: 'compliance_status', input: { entity_id: e.id } })),
      );
    if (/\bimpact\b/i.test(text))
      return intent(
        'impact',
        others.map((e) => ({ toolName: 'impact_analysis', input: { label: e.type, id: e.id } })),
      );
    return intent(
      'entity',
      others.map((e) => ({ toolName: 'entity_facts', input: { entity_id: e.id, entity_type: e.type } })),
    );
  }

  if (has(text, W.events) && !q.overdue && !q.bucket && !q.domain)
    return intent('events', [{ toolName: 'recent_operational_events', input: { limit: 10 } }]);
  // The dashboard's due-soon and anomaly buckets.
  if (q.bucket && !q.overdue && !q.domain && q.colors.length === 0) {
    return intent(
      'portfolio',
      [
        {
          toolName: 'compliance_portfolio',
          input: {
            bucket: q.bucket,
            group_by: q.groupBy === 'county' ? 'operator' : (q.groupBy ?? 'operator'),
            limit: 10,
          },
        },
      ],
      q.dueAssumed ? 'I took "due" to mean due within the next 30 days' : null,
    );
  }
  if (q.overdue || q.domain || q.colors.length > 0 || q.county || (q.unit && (q.count || has(text, W.list))))
    return intent(q.count ? 'count' : 'list', [listCall(q, {})]);
  if (has(text, W.portfolio) || has(text, W.status)) {
    return intent(
      'portfolio',
      [{ toolName: 'compliance_portfolio', input: { bucket: 'overdue', group_by: 'operator', limit: 10 } }],
      has(text, W.status)
        ? 'I took this as a question about the whole portfolio; name a well by API number or name for one well'
        : null,
    );
  }
  return intent('unknown', []);
}

/** `compliance_list` with the question's slots; overdue or a rule without a colour lists the problems (red) only when nothing else is asked. */
function listCall(q: Question, owner: { operator?: string; lease?: string }): PlannedCall {
  const colors = q.colors.length > 0 ? q.colors : q.domain && !q.overdue ? ['red'] : [];
  return {
    toolName: 'compliance_list',
    input: {
      ...(q.unit ? { entity_type: q.unit } : {}),
      ...(q.domain ? { domain: q.domain } : {}),
      ...(colors.length ? { colors } : {}),
      ...(q.overdue ? { overdue: true } : {}),
      ...owner,
      ...(q.county ? { county: q.county } : {}),
      group_by: q.groupBy ?? 'operator',
      limit: 10,
    },
  };
}
