import { hash } from 'node:crypto';
import type { Properties } from '../../../streams/graph/properties';
import type { AssessedCell, Bucket, Color } from '../../../streams/compliance/assessment';
import type { GraphFacts, Neighbor } from '../../../queries/compliance/graph-facts';
import { addDays } from '../rules/calendar';

/** A graph entity a pack assesses (a Well, Lease or Operator vertex of the tenant's graph). */
export interface AssessedVertex {
  vertexId: string;
  entityId: string;
  label: string;
  properties: Properties;
}

export type Verdict = Omit<AssessedCell, 'domain'>;

/**
 * A compliance domain pack: registered data (`domain`, titles, the entity labels it
 * applies to) plus two functions — `load` gathers the pack's facts from the knowledge graph's
 * read model for a set of vertices (null: the whole portfolio) in a few set-based queries,
 * and the pure `assess` turns one entity's facts into a verdict for `today` (YYYY-MM-DD).
 *
 * `assess` is the rule's one evaluator: the dashboard calls it without `period`
 * (the rule judges the latest reported period, or the filing currently owed, and names it);
 * a checklist calls it with the checklist's period. It answers null where the rule does not
 * apply to that entity (an oil well's Form PR is filed on its lease).
 */
export interface DomainPack<Facts = unknown> {
  domain: string;
  title: string;
  short_title?: string;
  appliesTo: readonly string[];
  /** The entity's properties `assess` reads (only these are loaded). */
  entityFields: readonly string[];
  load(graph: GraphFacts, vertexIds: string[] | null): Promise<Facts>;
  assess(entity: AssessedVertex, facts: Facts, today: string, period?: string): Verdict | null;
  /**
   * What the verdicts depend on besides the facts and the day: the rules' configuration (and
   * a revision to bump when a rule's code changes its verdicts). A run judged with other rules
   * versions is no base for re-evaluating only what changed. Absent: the code of `assess`.
   */
  rulesVersion?: string;
  /**
   * Days before a date (a due date, an expiry) at which a verdict may change, besides the
   * date itself: the rules' warning windows. Absent: the buckets' 30 and 7 days.
   */
  changeWindows?: readonly number[];
}

/** A pack's rules version: its own, else a digest of its evaluator's code. */
export const rulesVersionOf = (pack: DomainPack<any>): string =>
  pack.rulesVersion ?? `code:${hash('md5', pack.assess.toString())}`;

/** `graph:Well/42-501-30001`: how a verdict names the entity whose facts it used. */
export const sourceOf = (entity: { label: string; entityId: string }) => `graph:${entity.label}/${entity.entityId}`;

export { addDays } from '../rules/calendar';
export const isDate = (value: string | undefined): value is string =>
  !!value && /^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(Date.parse(value.slice(0, 10)));
export const dateOf = (value: string | undefined): string | null => (isDate(value) ? value.slice(0, 10) : null);

/** A figure of the graph, or null when it holds none: a missing figure is unknown, never 0. */
export function num(value: string | undefined | null): number | null {
  if (value === undefined || value === null || value.trim() === '') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

/** The 7- and 30-day limits of the last day asked: a run (and each `changes_on` probe) asks for one day many times. */
let limits = { today: '', week: '', month: '' };

/**
 * The deadline bucket of a verdict: a violation (red) is overdue whatever its date; otherwise
 * the due date against today (overdue, within 7 days, within 30 days); an anomaly with no
 * deadline lands in `anomalies`.
 */
export function bucketOf(color: Color, dueDate: string | null, anomaly: boolean, today: string): Bucket | null {
  if (color === 'red') return 'overdue';
  if (dueDate) {
    if (dueDate < today) return 'overdue';
    if (limits.today !== today) limits = { today, week: addDays(today, 7), month: addDays(today, 30) };
    if (dueDate <= limits.week) return 'due_7d';
    if (dueDate <= limits.month) return 'due_30d';
  }
  return anomaly ? 'anomalies' : null;
}

export function verdict(
  today: string,
  v: { color: Color; reason: string; dueDate?: string | null; anomaly?: boolean; facts?: Verdict['facts'] },
): Verdict {
  const dueDate = v.dueDate ?? null;
  const anomaly = v.anomaly ?? false;
  return {
    color: v.color,
    bucket: bucketOf(v.color, dueDate, anomaly, today),
    dueDate,
    anomaly,
    reason: v.reason,
    facts: v.facts ?? {},
  };
}

/** Neighbors of one vertex from a pack's loaded map (none when absent). */
export const neighborsOf = (map: Map<string, Neighbor[]>, vertexId: string): Neighbor[] => map.get(vertexId) ?? [];

export const earliest = (dates: Array<string | null>): string | null =>
  dates.filter((d): d is string => !!d).sort()[0] ?? null;

/** Permit properties the packs read (W-1, Rule 37 exception, W-3X). */
export const PERMIT_FIELDS = ['form', 'type', 'status', 'issued_date', 'expiration_date', 'rule_37_exception'] as const;
