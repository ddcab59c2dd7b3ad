import type { ExtractedEdge, ExtractedEntity } from '../../streams/ingestion/entity-extraction';
import { normaliseApiNumber } from './csv-wells';

/**
 * Deterministic entity extraction from RRC-style prose (hearing notices, permit letters,
 * inspection reports): wells by API number, operators (company names in capitals, "Operator:"
 * labels), leases, W-1 permits, fields (`SPRABERRY (TREND AREA)` style names or
 * "… Field"), and counties. Edges join entities named in the same sentence: a well is
 * OPERATED_BY its operator and LOCATED_IN its lease, field and county; a lease is
 * OPERATED_BY the operator; a permit is PART_OF the well it was issued for.
 */
const API = /\b(?:API(?:\s+(?:No\.?|Number|#))?[:\s#]*)?(42-?\d{3}-?\d{5})(?:(?:-\d{2}){1,2}|\d{4})?\b/g;
const COMPANY_SUFFIX = String.raw`(?:OPERATING,?\s+LLC|OPERATING\s+COMPANY|L\.?L\.?C\.?|L\.?P\.?|INC\.?|CORPORATION|CORP\.?|COMPANY|CO\.)`;
const OPERATOR = new RegExp(
  String.raw`\b((?:[A-Z][A-Z0-9&'.-]*\s+){0,5}?[A-Z][A-Z0-9&'.-]*,?\s+${COMPANY_SUFFIX})(?![A-Za-z])`,
  'g',
);
const OPERATOR_LABEL =
  /\bOperator(?:\s+Name)?\s*:\s*([A-Z][A-Za-z0-9&'., -]{2,60}?)(?=\s*(?:[(;\n]|,\s|\.\s|\.$|$| P-5))/g;
const LEASE = /\b(?:the\s+)?([A-Z][A-Z0-9'&.]*(?:\s+[A-Z0-9][A-Z0-9'&.]*){0,3})\s+(?:Lease|LEASE|Unit|UNIT)\b/g;
const LEASE_LABEL = /\bLease(?:\s+Name)?\s*:\s*([A-Z][A-Z0-9'&. -]{1,40}?)(?=\s*(?:[(;,\n]|\.\s|$|Lease No| Well))/g;
const PERMIT = /\b(?:W-1\s+)?(?:Drilling\s+)?Permit\s*(?:No\.?|Number|#)?\s*:?\s*(\d{5,7})\b/gi;
const FIELD_PAREN = /\b([A-Z][A-Z0-9.,'-]*(?:\s+[A-Z0-9][A-Z0-9.,'-]*){0,3}\s+\([A-Z0-9][A-Z0-9 .,'&-]{1,40}\))/g;
const FIELD_WORD = /\b(?:the\s+)?([A-Z][A-Z0-9'-]*(?:\s+[A-Z0-9][A-Z0-9'-]*){0,3})\s+(?:Field|FIELD)\b/g;
const COUNTY = /\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)\s+County\b/g;
const STOP_WORDS = new Set([
  'THE',
  'THIS',
  'SAID',
  'SUBJECT',
  'A',
  'AN',
  'IN',
  'ON',
  'OF',
  'AND',
  'FOR',
  'TO',
  'BY',
  'FROM',
  'RAILROAD',
  'COMMISSION',
  'TEXAS',
  'RULE',
  'DISTRICT',
  'APPLICATION',
  'NOTICE',
  'DOCKET',
  'REQUEST',
  'COMPLAINT',
  'ORDER',
]);
/** Parentheses after a company name hold its P-5 number, never a field's horizon. */
const NOT_A_HORIZON = /P-?5|\bNO\.|\d{4,}/i;

interface Found {
  entity: ExtractedEntity;
  at: number;
}

const clean = (name: string) =>
  name
    .replace(/\s+/g, ' ')
    .replace(/^[,\s]+|[,\s]+$/g, '')
    .trim();

function withoutLeadingStopWords(name: string): string {
  const words = name.split(' ');
  while (words.length > 1 && STOP_WORDS.has(words[0].toUpperCase())) words.shift();
  return words.join(' ');
}

function sentences(text: string): Array<{ start: number; end: number }> {
  const out: Array<{ start: number; end: number }> = [];
  // A full stop ends a sentence unless it belongs to an abbreviation (No., INC., CO.).
  const boundary = /(?<!\b(?:No|INC|CO|CORP|Inc|Corp|Co|L\.P|L\.L\.C|St|Mr|Ms|Dr))[.!?](?=\s+[A-Z(]|\s*$)|\n{2,}/g;
  let start = 0;
  for (let m = boundary.exec(text); m; m = boundary.exec(text)) {
    out.push({ start, end: m.index + m[0].length });
    start = m.index + m[0].length;
  }
  if (start < text.length) out.push({ start, end: text.length });
  return out;
}

export function extractEntities(text: string): { entities: ExtractedEntity[]; edges: ExtractedEdge[] } {
  const found: Found[] = [];
  const add = (type: string, name: string, at: number, extra: Partial<ExtractedEntity> = {}) => {
    const n = clean(name);
    if (n.length < 2) return;
    found.push({ entity: { type, name: n, ...extra }, at });
  };
  for (const m of text.matchAll(API)) {
    const api = normaliseApiNumber(m[1]);
    if (api) add('well', api, m.index!, { api_number: api });
  }
  for (const m of text.matchAll(OPERATOR))
    add('operator', withoutLeadingStopWords(clean(m[1]).replace(/,\s*$/, '')), m.index!);
  for (const m of text.matchAll(OPERATOR_LABEL)) add('operator', m[1], m.index!);
  for (const m of text.matchAll(LEASE)) {
    const name = withoutLeadingStopWords(clean(m[1]));
    if (!STOP_WORDS.has(name.toUpperCase())) add('lease', name, m.index!);
  }
  for (const m of text.matchAll(LEASE_LABEL)) add('lease', m[1], m.index!);
  for (const m of text.matchAll(PERMIT)) add('permit', m[1], m.index!);
  for (const m of text.matchAll(FIELD_PAREN)) {
    const horizon = /\(([^)]*)\)/.exec(m[1])![1];
    if (NOT_A_HORIZON.test(horizon)) continue;
    // "BRUNSON 14 LEASE, PHANTOM (WOLFCAMP)": the field starts after the lease or county named before it.
    const name = withoutLeadingStopWords(clean(m[1]).replace(/^.*\b(?:LEASE|UNIT|COUNTY)\b,?\s*/i, ''));
    if (!new RegExp(`${COMPANY_SUFFIX}\\s*\\(`).test(name)) add('field', name, m.index!);
  }
  for (const m of text.matchAll(FIELD_WORD)) {
    const name = withoutLeadingStopWords(clean(m[1]));
    if (!STOP_WORDS.has(name.toUpperCase())) add('field', name, m.index!);
  }
  for (const m of text.matchAll(COUNTY)) add('county', `${m[1]} County`, m.index!);

  // An operator label and a company-name match of the same company are one operator.
  const operators = found.filter((f) => f.entity.type === 'operator');
  const deduped = found.filter(
    (f) =>
      f.entity.type !== 'operator' ||
      !operators.some(
        (o) =>
          o !== f &&
          o.entity.name.length > f.entity.name.length &&
          o.entity.name.toUpperCase().includes(f.entity.name.toUpperCase()),
      ),
  );
  // A field name in parentheses ends in "FIELD" sometimes; a lease name never contains a company suffix.
  const entities: ExtractedEntity[] = [];
  const seen = new Set<string>();
  const ordered = [...deduped].sort((a, b) => a.at - b.at);
  for (const f of ordered) {
    const k = `${f.entity.type}|${f.entity.name.toUpperCase()}`;
    if (seen.has(k)) continue;
    seen.add(k);
    entities.push(f.entity);
  }

  const edges: ExtractedEdge[] = [];
  const edgeKeys = new Set<string>();
  const link = (from: ExtractedEntity, to: ExtractedEntity, type: string) => {
    const k = `${from.name}|${type}|${to.name}`;
    if (edgeKeys.has(k)) return;
    edgeKeys.add(k);
    edges.push({ from: from.name, to: to.name, type });
  };
  const canonical = (e: ExtractedEntity) =>
    entities.find((x) => x.type === e.type && x.name.toUpperCase() === e.name.toUpperCase()) ?? e;
  for (const s of sentences(text)) {
    const inSentence = deduped.filter((f) => f.at >= s.start && f.at < s.end).map((f) => canonical(f.entity));
    const of = (type: string) => inSentence.filter((e) => e.type === type);
    for (const well of of('well')) {
      for (const op of of('operator')) link(well, op, 'OPERATED_BY');
      for (const lease of of('lease')) link(well, lease, 'LOCATED_IN');
      for (const field of of('field')) link(well, field, 'LOCATED_IN');
      for (const county of of('county')) link(well, county, 'LOCATED_IN');
      for (const permit of of('permit')) link(permit, well, 'PART_OF');
    }
    if (of('well').length === 0)
      for (const lease of of('lease')) for (const op of of('operator')) link(lease, op, 'OPERATED_BY');
  }
  return { entities, edges };
}
