/**
 * How the builtin assistant reads an everyday question: what it asks for (its kind) and the
 * slots that qualify it — the entities named (by API number, lease id, P-5 number or name),
 * the rule, the colour, the unit counted (wells, leases, operators), the county, the period,
 * the form, the grouping, the fact asked about, the platform topic. Pure and deterministic:
 * word patterns, no model. What each kind becomes (which tools) is the assistant's plan.
 * Reference: docs/agents.md, "The builtin assistant".
 */
export type EntityLabel = 'Well' | 'Lease' | 'Operator';

export interface EntityRef {
  /** What the person wrote, passed to the entity search as is. */
  text: string;
  /** The type the words said (an API number is a well, "lease BAKER 11" a lease), else null. */
  type: EntityLabel | null;
}

export type Attribute =
  'operator' | 'lease' | 'field' | 'county' | 'status' | 'last_filing' | 'api_number' | 'wells' | 'leases';
export type HelpTopic = 'attachments' | 'roles' | 'filings';
export type Grouping = 'operator' | 'lease' | 'domain' | 'county';

export interface Question {
  text: string;
  refs: EntityRef[];
  domain: string | null;
  colors: string[];
  overdue: boolean;
  bucket: 'due_7d' | 'due_30d' | 'anomalies' | null;
  /** The due-soon reading was taken from "due" alone (said in the answer). */
  dueAssumed: boolean;
  unit: EntityLabel | null;
  /** The unit was said in the plural ("wells"): a list or a count, not one entity. */
  many: boolean;
  county: string | null;
  period: string | null;
  form: { form: string; template: boolean } | null;
  groupBy: Grouping | null;
  /** "Which operator has the most …", "… and how many?" */
  most: boolean;
  count: boolean;
  attribute: Attribute | null;
  help: HelpTopic | null;
  checklistId: string | null;
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const MONTH_ABBREVIATIONS = MONTHS.map((m) => m.slice(0, 3));
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/i;

const API = /\b\d{2}-\d{3}-\d{5}\b|\b42\d{8}\b/g;
const LEASE_ID = /\b[OG]-\d{1,2}[A-Z]{0,2}-\d+\b/gi;
const P5 = /\bP-?5(?:[- ]?#?\s?)(\d{4,6})\b/gi;
/** A name after its type word: "lease BAKER 11", "operator Permian Basin Energy", "well smith ranch 3 2h". */
const TYPED = /\b(well|lease|operator)\s+(?:named\s+|called\s+)?([A-Za-z0-9#&'.-]+(?:\s+[A-Za-z0-9#&'.-]+){0,5})/gi;
/** Words that end a name (the question goes on) or cannot start one. */
const STOP = new Set(
  'for in on at during last this next since and or with by from to of is are was were be has have had do does did compliant overdue due produce produced producing production run runs operate operates operated operating right now please the a an it its status report reports filing filed file compliance deadlines deadline flaring flared offsets offset spacing impact events history what which who when where how why today yesterday month quarter year week need needs so that than as if'.split(
    ' ',
  ),
);
/** Capitalised words that are forms, rules or formats, never a lease, well or operator name. */
const NOT_NAMES = new Set(
  'PR API H2S TAC RRC PDF CSV XLSX DOCX TXT ID OK LLC W-1 W-2 W-10 G-1 G-10 H-10 H-15 W-3X R-32 P-5 P5 US TX I A'.split(
    ' ',
  ),
);
const ALL_CAPS_RUN = /\b([A-Z][A-Z&'.-]*[A-Z](?:\s+(?:[A-Z][A-Z0-9&'.-]*|\d+[A-Z]?|#\d+))*)/g;

/** "in Midland county", "Reeves County wells": the county's name as written. */
const COUNTY =
  /\b(?:in\s+)?((?!(?:Which|What|Each|Every|Per|The|This|That|Any|In)\b)(?:[A-Z][a-z]+|La|De)(?:\s[A-Z][a-z]+)?)\s+[Cc]ounty\b/;

/** The rules (compliance domains) as people name them, most specific first. */
const DOMAINS: Array<[RegExp, string]> = [
  [/\b(flar\w*|vent(ed|ing)?|r-?32|rule 32)\b/i, 'rule_32'],
  [/\b(spacing|rule 37|r-?37)\b/i, 'rule_37'],
  [/\b(form pr|production report\w*|rule 58|pr report\w*)\b/i, 'production'],
  [/\b(w-?10|g-?10|h-?15|well tests?|status tests?|rule 53)\b/i, 'well_tests'],
  [/\b(inactive|plugg\w*|rule 1[45]|w-?3x)\b/i, 'inactive_wells'],
  [/\b(drilling|w-?1|rule 5|permits?)\b/i, 'drilling'],
  [/\b(p-?5|organization report|renewals?|rule 1)\b/i, 'operators'],
];

const COLORS: Array<[RegExp, string]> = [
  [/\b(not compliant|non-?compliant|in violation|violat\w*|red|failing|out of compliance)\b/i, 'red'],
  [/\b(action needed|need(s)? action|amber|at risk)\b/i, 'amber'],
  [/\b(in review|blue)\b/i, 'blue'],
  [/\b(not assessed|unassessed|gr[ae]y)\b/i, 'grey'],
  [/\b(?<!not |non-?)(compliant|in good standing|green)\b/i, 'green'],
];

const ATTRIBUTES: Array<[RegExp, Attribute]> = [
  [
    /\b(who (operates|runs|owns)|operator of|operated by|which operator (operates|runs)|what operator|who is the operator)\b/i,
    'operator',
  ],
  [/\b(which|what) lease\b|\blease (is|of)\b.*\bwell\b|\bon which lease\b/i, 'lease'],
  [/\b(which|what) field\b|\bin which field\b/i, 'field'],
  [/\b(which|what) county\b|\bwhere is\b/i, 'county'],
  [/\bapi (number|no)\b/i, 'api_number'],
  [
    /\b(last|latest|most recent) (filing|filed|report|form pr|test)\b|\bwhen was .+ (last )?(filed|reported|tested)\b/i,
    'last_filing',
  ],
  [
    /\b(is|are) .+ (producing|shut[- ]?in|inactive|plugged|permitted)\b|\bwell status\b|\bwhat kind of well\b|\b(oil|gas) well\?/i,
    'status',
  ],
];

/** `YYYY-MM` the person means, against `today` (the turn's clock): explicit, a month name, or a relative month or quarter. */
export function periodIn(text: string, today: string): string | null {
  const ym = (y: number, m: number) => {
    const d = new Date(Date.UTC(y, m - 1, 1));
    return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
  };
  const explicit = /\b(\d{4})-(0[1-9]|1[0-2])\b/.exec(text);
  if (explicit) return ym(Number(explicit[1]), Number(explicit[2]));
  const slashed = /\b(0?[1-9]|1[0-2])\/(\d{4})\b/.exec(text);
  if (slashed) return ym(Number(slashed[2]), Number(slashed[1]));
  const [year, month] = today.split('-').map(Number);
  if (/\b(last|previous|past) month\b/i.test(text)) return ym(year, month - 1);
  if (/\b(this|current) month\b/i.test(text)) return ym(year, month);
  const quarterStart = month - ((month - 1) % 3);
  // A quarter's filing period is its last month that has ended; this quarter's, before any ended, is this month.
  if (/\b(this|current) quarter\b/i.test(text)) return month === quarterStart ? ym(year, month) : ym(year, month - 1);
  if (/\b(last|previous|past) quarter\b/i.test(text)) return ym(year, quarterStart - 1);
  const named = new RegExp(
    `\\b(${MONTHS.join('|')}|(?:${MONTH_ABBREVIATIONS.join('|')})\\.?)(?:\\s+(\\d{4}))?\\b`,
    'i',
  ).exec(text);
  if (named && !(named[1].toLowerCase() === 'may' && !named[2] && !/\bin may\b|\bfor may\b/i.test(text))) {
    const m = MONTH_ABBREVIATIONS.indexOf(named[1].toLowerCase().slice(0, 3)) + 1;
    // A month without a year is its latest occurrence: "September" in November is this year's, in March last year's.
    const y = named[2] ? Number(named[2]) : m > month ? year - 1 : year;
    return ym(y, m);
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

/** The wells, leases and operators a question names, in the order written, at most three. */
export function entityRefs(text: string): EntityRef[] {
  const found: Array<EntityRef & { at: number }> = [];
  const taken: Array<[number, number]> = [];
  const overlaps = (from: number, to: number) => taken.some(([a, b]) => from < b && a < to);
  const add = (at: number, length: number, ref: EntityRef) => {
    if (overlaps(at, at + length) || found.some((f) => f.text.toLowerCase() === ref.text.toLowerCase())) return;
    taken.push([at, at + length]);
    found.push({ ...ref, at });
  };
  for (const m of text.matchAll(API)) add(m.index!, m[0].length, { text: m[0], type: 'Well' });
  for (const m of text.matchAll(LEASE_ID)) add(m.index!, m[0].length, { text: m[0].toUpperCase(), type: 'Lease' });
  for (const m of text.matchAll(P5)) add(m.index!, m[0].length, { text: `P5-${m[1]}`, type: 'Operator' });
  for (const m of text.matchAll(TYPED)) {
    const words = m[2].replace(/[.?!,;:]+$/, '').split(/\s+/);
    const kept: string[] = [];
    for (const w of words) {
      if (STOP.has(w.toLowerCase().replace(/[.?!,;:]+$/, ''))) break;
      kept.push(w.replace(/[?!,;:]+$/, ''));
      if (/[?!,;:]$/.test(w)) break;
    }
    const name = kept.join(' ').replace(/\.$/, '');
    // A name has a number or a capital in it ("BAKER 11", "Acme"): "well tests" is no well.
    if (!/[0-9A-Z]/.test(name)) continue;
    const start = m.index! + m[0].indexOf(m[2]);
    if (name && !overlaps(start, start + name.length))
      add(m.index!, m[0].length, {
        text: name,
        type: (m[1][0].toUpperCase() + m[1].slice(1).toLowerCase()) as EntityLabel,
      });
  }
  for (const m of text.matchAll(ALL_CAPS_RUN)) {
    const words = m[1].split(/\s+/);
    while (words.length && NOT_NAMES.has(words[0])) words.shift();
    const name = words.join(' ');
    if (!words.some((w) => /^[A-Z&'.-]{3,}$/.test(w) && !NOT_NAMES.has(w))) continue;
    const at = m.index! + m[1].indexOf(name);
    add(at, name.length, { text: name, type: null });
  }
  return found
    .sort((a, b) => a.at - b.at)
    .slice(0, 3)
    .map(({ text: t, type }) => ({ text: t, type }));
}

const first = <T>(table: Array<[RegExp, T]>, text: string): T | null =>
  table.find(([pattern]) => pattern.test(text))?.[1] ?? null;

export function parseQuestion(userText: string, today: string): Question {
  const text = userText.split(/\n--- attachment: /)[0];
  const refs = entityRefs(text);
  // The slots are read around the names: "P5-123456" is an operator, not the P-5 rule; "BAKER 11" no county.
  const named = refs.reduce(
    (t, r) => t.split(r.text).join(' '),
    text.replace(API, ' ').replace(LEASE_ID, ' ').replace(P5, ' '),
  );
  const lower = text.toLowerCase();
  const most = /\b(most|worst|top|highest|largest|biggest)\b/i.test(text);
  const groupWord =
    /\bwhich (operator|lease|county|rule)\b.*\b(most|worst|top)\b|\b(by|per|for each|each) (operator|lease|county|rule|domain)s?\b/i.exec(
      text,
    );
  const grouping = groupWord ? (groupWord[1] ?? groupWord[4]).toLowerCase() : null;
  const groupBy: Grouping | null =
    grouping === 'rule' || grouping === 'domain' ? 'domain' : (grouping as Grouping | null);
  // The unit counted is the type word that is not the grouping: "which operator has the most overdue wells" counts wells.
  const units: Array<[RegExp, EntityLabel, Grouping]> = [
    [/\bwells?\b/i, 'Well', 'operator'],
    [/\bleases?\b/i, 'Lease', 'lease'],
    [/\boperators?\b/i, 'Operator', 'operator'],
  ];
  const unitText = named.replace(/\b(well|lease|operator)\s+(?=\s)/gi, ' ');
  const unitWords = units.filter(
    ([pattern, label]) => pattern.test(unitText) && !(grouping && label.toLowerCase() === grouping),
  );
  const unit = unitWords[0]?.[1] ?? null;
  const many = /\b(wells|leases|operators)\b/i.test(unitText);
  const county = COUNTY.exec(text)?.[1]?.replace(/^in\s+/i, '') ?? null;
  const due7 = /\b(7|seven)[- ]days?\b|\b(this|next) week\b/i.test(text);
  const due30 = /\b(30|thirty)[- ]days?\b|\b(next|coming) month\b/i.test(text);
  const dueWord = /\b(due|upcoming|coming up)\b/i.test(text);
  const anomalies = /\b(anomal\w*|unusual|outliers?)\b/i.test(text);
  const overdue = /\b(overdue|past due|late|missed)\b/i.test(text);
  const bucket = anomalies ? 'anomalies' : overdue ? null : due7 ? 'due_7d' : due30 || dueWord ? 'due_30d' : null;
  const help: HelpTopic | null = /\b(attach\w*|upload\w*|file (formats?|types?|size)|formats?)\b/i.test(text)
    ? 'attachments'
    : /\b(roles?|permissions?|who (can|may) (approve|submit|review|edit|manage)|what can (an? )?(admin|operator|reviewer|power[ _]user))\b/i.test(
          text,
        )
      ? 'roles'
      : /\bwhat (can|forms? can) (i|we|you)\b.*\b(file|submit)\b|\b(which|what) (forms|filings)\b|\bwhat can be (filed|submitted)\b/i.test(
            text,
          )
        ? 'filings'
        : null;
  let attribute = first(ATTRIBUTES, text);
  if (!attribute && refs.length > 0 && /\bhow many\b/i.test(text))
    attribute = /\bleases?\b/i.test(text.replace(TYPED, '')) ? 'leases' : /\bwells?\b/i.test(lower) ? 'wells' : null;
  const colors = [...new Set(COLORS.filter(([pattern]) => pattern.test(named)).map(([, c]) => c))];
  return {
    text,
    refs,
    domain: first(DOMAINS, named),
    // "not compliant" also holds "compliant": the negation wins.
    colors: colors.includes('red') ? colors.filter((c) => c !== 'green') : colors,
    overdue,
    bucket,
    dueAssumed: bucket === 'due_30d' && !due30,
    unit,
    many,
    county,
    period: periodIn(text, today),
    form: formIn(named),
    groupBy,
    most,
    count: /\bhow many\b|\bnumber of\b|\bcount\b/i.test(text),
    attribute,
    help,
    checklistId: UUID.exec(text)?.[0] ?? null,
  };
}
