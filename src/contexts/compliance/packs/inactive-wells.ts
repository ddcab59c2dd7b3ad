import type { Neighbor } from '../../../../queries/compliance/graph-facts';
import { addDays, dateOf, DomainPack, earliest, neighborsOf, PERMIT_FIELDS, verdict } from './pack';

interface InactiveFacts {
  deadlines: Map<string, Neighbor[]>;
  permits: Map<string, Neighbor[]>;
}

const CLOSED = new Set(['completed', 'filed', 'closed', 'waived']);
const W3X = /W-3X|plugging extension/i;

/**
 * Rules 14/15 (inactive wells): a well inactive for 12 months must be plugged unless a W-3X
 * plugging extension is granted; an extended well still owes its open deadlines (the H-15
 * fluid-level test). Due date = the earliest of the plugging date (12 months after
 * `inactive_since`, when known) and the open ComplianceDeadlines: past → red; without an
 * extension → amber; with one → amber within 30 days, else green. Active wells → green.
 */
export const inactiveWellsPack: DomainPack<InactiveFacts> = {
  domain: 'inactive_wells',
  title: 'Inactive wells (Rules 14 and 15)',
  short_title: 'Inactive',
  appliesTo: 'Well',
  entityFields: ['status', 'inactive_since'],
  async load(graph, vertexIds) {
    const [deadlines, permits] = await Promise.all([
      graph.neighbors(vertexIds, 'HAS_DEADLINE', 'Well', 'ComplianceDeadline', 'out', ['deadline_date', 'type', 'status']),
      graph.neighbors(vertexIds, 'PART_OF', 'Well', 'Permit', 'in', PERMIT_FIELDS),
    ]);
    return { deadlines, permits };
  },
  assess(well, facts, today) {
    const p = well.properties;
    if (p.status === 'permitted') return verdict(today, { color: 'grey', reason: 'not yet drilled' });
    if (p.status !== 'inactive') return verdict(today, { color: 'green', reason: `status ${p.status ?? 'unknown'}: not an inactive well` });
    const since = dateOf(p.inactive_since);
    const plugBy = since ? addDays(since, 365) : null;
    const extension = neighborsOf(facts.permits, well.vertexId).find(
      (n) => (W3X.test(n.properties.form ?? '') || W3X.test(n.properties.type ?? '')) && n.properties.status !== 'denied' && (dateOf(n.properties.expiration_date) ?? '9999-12-31') >= today,
    );
    const open = neighborsOf(facts.deadlines, well.vertexId).filter((d) => !CLOSED.has(d.properties.status ?? 'open'));
    const due = earliest([extension ? null : plugBy, ...open.map((d) => dateOf(d.properties.deadline_date))]);
    const next = open.find((d) => dateOf(d.properties.deadline_date) === due);
    const what = next ? `${next.properties.type ?? 'deadline'} due ${due}` : due ? `plugging due ${due}` : 'no deadline on record';
    const details = { inactive_since: since, plugging_extension: extension?.entityId ?? null, next_deadline: next?.entityId ?? null };
    if (due && due < today) return verdict(today, { color: 'red', dueDate: due, reason: `inactive well: ${what.replace('due', 'overdue since')}`, facts: details });
    if (!extension) return verdict(today, { color: 'amber', dueDate: due, reason: `inactive well without a W-3X plugging extension; ${what}`, facts: details });
    if (due && due <= addDays(today, 30)) return verdict(today, { color: 'amber', dueDate: due, reason: `inactive well under extension ${extension.entityId}; ${what}`, facts: details });
    return verdict(today, { color: 'green', dueDate: due, reason: `inactive well under extension ${extension.entityId}; ${what}`, facts: details });
  },
};
