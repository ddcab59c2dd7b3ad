import type { Neighbor } from '../../../queries/compliance/graph-facts';
import { addMonths } from '../rules/calendar';
import { cite, CITATIONS, TEXAS_RULES, type TexasRules } from '../rules/texas-rules';
import { addDays, dateOf, type DomainPack, earliest, neighborsOf, PERMIT_FIELDS, sourceOf, verdict } from './pack';

export interface InactiveFacts {
  deadlines: Map<string, Neighbor[]>;
  permits: Map<string, Neighbor[]>;
}

const CLOSED = new Set(['completed', 'filed', 'closed', 'waived']);
const W3X = /W-3X|plugging extension/i;

/** The inactive-well verdict's inputs, loaded set-based (the operators pack loads them for an operator's wells). */
export async function loadInactiveFacts(
  graph: Parameters<DomainPack['load']>[0],
  wellIds: string[] | null,
): Promise<InactiveFacts> {
  const [deadlines, permits] = await Promise.all([
    graph.neighbors(wellIds, 'HAS_DEADLINE', 'Well', 'ComplianceDeadline', 'out', [
      'deadline_date',
      'type',
      'form',
      'status',
    ]),
    graph.neighbors(wellIds, 'PART_OF', 'Well', 'Permit', 'in', PERMIT_FIELDS),
  ]);
  return { deadlines, permits };
}

/**
 * Rules 14/15 (inactive wells): a well inactive for 12 months must be plugged within the
 * configured months of `inactive_since` (moved to the next working day) unless a W-3X plugging
 * extension is granted; an extended well still owes its open deadlines (the H-15 fluid-level
 * test). Due date = the earliest of the plugging date and the open ComplianceDeadlines: past →
 * red; without an extension → amber; with one → amber within `expiresSoonDays`, else green.
 * Active wells → green; a well not yet drilled → grey.
 */
export function createInactiveWellsPack(rules: TexasRules = TEXAS_RULES): DomainPack<InactiveFacts> {
  const rule = (what: string) => cite(CITATIONS.rule_15, what);
  return {
    domain: 'inactive_wells',
    title: 'Inactive wells (Rules 14 and 15)',
    short_title: 'Inactive',
    appliesTo: ['Well'],
    entityFields: ['status', 'inactive_since'],
    load: loadInactiveFacts,
    assess(well, facts, today) {
      const p = well.properties;
      const source = sourceOf(well);
      if (p.status === 'permitted')
        return verdict(today, { color: 'grey', reason: rule('not yet drilled'), facts: { source } });
      if (!p.status) return verdict(today, { color: 'grey', reason: rule('well status unknown'), facts: { source } });
      if (p.status !== 'inactive')
        return verdict(today, {
          color: 'green',
          reason: rule(`status ${p.status}: not an inactive well`),
          facts: { source, status: p.status },
        });
      const since = dateOf(p.inactive_since);
      const plugBy = since ? rules.calendar.move(addMonths(since, rules.pluggingDueMonths), 'next') : null;
      const extension = neighborsOf(facts.permits, well.vertexId).find(
        (n) =>
          (W3X.test(n.properties.form ?? '') || W3X.test(n.properties.type ?? '')) &&
          n.properties.status !== 'denied' &&
          (dateOf(n.properties.expiration_date) ?? '9999-12-31') >= today,
      );
      const open = neighborsOf(facts.deadlines, well.vertexId).filter(
        (d) => !CLOSED.has(d.properties.status ?? 'open'),
      );
      const due = earliest([extension ? null : plugBy, ...open.map((d) => dateOf(d.properties.deadline_date))]);
      const next = open.find((d) => dateOf(d.properties.deadline_date) === due);
      const what = next
        ? `${next.properties.type ?? 'deadline'} due ${due}`
        : due
          ? `plugging due ${due}`
          : 'no deadline on record';
      const details = {
        source,
        inactive_since: since,
        plugging_extension: extension?.entityId ?? null,
        next_deadline: next?.entityId ?? null,
      };
      if (due && due < today)
        return verdict(today, {
          color: 'red',
          dueDate: due,
          reason: rule(`inactive well: ${what.replace('due', 'overdue since')}`),
          facts: details,
        });
      if (!extension)
        return verdict(today, {
          color: 'amber',
          dueDate: due,
          reason: rule(`inactive well without a W-3X plugging extension; ${what}`),
          facts: details,
        });
      if (due && due <= addDays(today, rules.expiresSoonDays))
        return verdict(today, {
          color: 'amber',
          dueDate: due,
          reason: rule(`inactive well under extension ${extension.entityId}; ${what}`),
          facts: details,
        });
      return verdict(today, {
        color: 'green',
        dueDate: due,
        reason: rule(`inactive well under extension ${extension.entityId}; ${what}`),
        facts: details,
      });
    },
  };
}

export const inactiveWellsPack = createInactiveWellsPack();
