import type { Neighbor } from '../../../queries/compliance/graph-facts';
import { cite, CITATIONS, TEXAS_RULES, type TexasRules } from '../rules/texas-rules';
import { createInactiveWellsPack, type InactiveFacts, loadInactiveFacts } from './inactive-wells';
import { addDays, dateOf, type DomainPack, neighborsOf, sourceOf, verdict } from './pack';

export interface OperatorFacts {
  /** Operator vertex id → the wells it operates (status, inactive_since). */
  wells: Map<string, Neighbor[]>;
  inactive: InactiveFacts;
}

const NOT_ACTIVE = new Set(['delinquent', 'inactive', 'denied', 'expired', 'revoked']);

/** The renewal date after `lastRenewed`: the last working day of the renewal month (MM). */
export function p5RenewalDue(rules: TexasRules, month: string, lastRenewed: string | null, today: string): string {
  const after = lastRenewed ?? today;
  let year = Number(after.slice(0, 4));
  let due = rules.calendar.lastWorkingDayOfMonth(`${year}-${month}`);
  // A renewal filed in (or just before) its month covers the year to the next one.
  while (lastRenewed ? due <= addDays(lastRenewed, 45) : due < today)
    due = rules.calendar.lastWorkingDayOfMonth(`${++year}-${month}`);
  return due;
}

/**
 * P-5 organization report (Statewide Rule 1): an operator renews every year in its renewal
 * month (`p5_renewal_month`, MM; last renewal `p5_last_renewed`). A P-5 not active → red;
 * renewal past due → red; renewal denied while the operator has inactive wells out of
 * compliance with Rule 15 (their inactive-wells verdict is red): red within `p5BlockedRedDays`
 * of the renewal date, amber before; renewal due within `expiresSoonDays` → amber; else green.
 * No P-5 number or renewal month on record → grey.
 */
export function createOperatorsPack(rules: TexasRules = TEXAS_RULES): DomainPack<OperatorFacts> {
  const inactivePack = createInactiveWellsPack(rules);
  const rule = (what: string) => cite(CITATIONS.rule_1, what);
  return {
    domain: 'operators',
    title: 'Operators: P-5 organization report',
    short_title: 'P-5',
    appliesTo: ['Operator'],
    entityFields: ['p5_number', 'p5_status', 'p5_renewal_month', 'p5_last_renewed'],
    async load(graph, vertexIds) {
      const wells = await graph.neighbors(vertexIds, 'OPERATED_BY', 'Operator', 'Well', 'in', [
        'status',
        'inactive_since',
      ]);
      const wellIds = vertexIds === null ? null : [...new Set([...wells.values()].flat().map((w) => w.vertexId))];
      const inactive =
        wellIds !== null && wellIds.length === 0
          ? { deadlines: new Map(), permits: new Map() }
          : await loadInactiveFacts(graph, wellIds);
      return { wells, inactive };
    },
    assess(operator, facts, today) {
      const p = operator.properties;
      const source = sourceOf(operator);
      if (!p.p5_number)
        return verdict(today, { color: 'grey', reason: rule('no P-5 number on record'), facts: { source } });
      const status = (p.p5_status ?? '').toLowerCase();
      const base = {
        source,
        p5_number: p.p5_number,
        p5_status: p.p5_status ?? null,
        renewal_month: p.p5_renewal_month ?? null,
        last_renewed: dateOf(p.p5_last_renewed),
      };
      if (NOT_ACTIVE.has(status))
        return verdict(today, {
          color: 'red',
          reason: rule(`P-5 ${p.p5_number} is ${status}: the operator may not operate wells or obtain permits`),
          facts: base,
        });
      if (!status)
        return verdict(today, { color: 'grey', reason: rule(`P-5 ${p.p5_number} status unknown`), facts: base });
      const month = /^(0[1-9]|1[0-2])$/.test(p.p5_renewal_month ?? '') ? p.p5_renewal_month! : null;
      if (!month)
        return verdict(today, {
          color: 'grey',
          reason: rule(`P-5 ${p.p5_number}: renewal month unknown`),
          facts: base,
        });
      const due = p5RenewalDue(rules, month, base.last_renewed, today);
      const blocked = neighborsOf(facts.wells, operator.vertexId)
        .filter((w) => w.properties.status === 'inactive')
        .filter(
          (w) =>
            inactivePack.assess(
              { vertexId: w.vertexId, entityId: w.entityId, label: 'Well', properties: w.properties },
              facts.inactive,
              today,
            )?.color === 'red',
        )
        .map((w) => w.entityId);
      const details = { ...base, renewal_due: due, wells_blocking_renewal: blocked.join(', ') || null };
      if (due < today)
        return verdict(today, {
          color: 'red',
          dueDate: due,
          reason: rule(`P-5 ${p.p5_number} renewal was due ${due}`),
          facts: details,
        });
      if (blocked.length > 0) {
        const why = `P-5 ${p.p5_number} renewal due ${due} will be denied: ${blocked.length} inactive well(s) out of compliance with ${CITATIONS.rule_15} (${blocked.slice(0, 5).join(', ')}${blocked.length > 5 ? ', …' : ''})`;
        return verdict(today, {
          color: due <= addDays(today, rules.p5BlockedRedDays) ? 'red' : 'amber',
          dueDate: due,
          reason: rule(why),
          facts: details,
        });
      }
      if (due <= addDays(today, rules.expiresSoonDays))
        return verdict(today, {
          color: 'amber',
          dueDate: due,
          reason: rule(`P-5 ${p.p5_number} renewal due ${due}`),
          facts: details,
        });
      return verdict(today, {
        color: 'green',
        dueDate: due,
        reason: rule(`P-5 ${p.p5_number} active; renewal due ${due}`),
        facts: details,
      });
    },
  };
}

export const operatorsPack = createOperatorsPack();
