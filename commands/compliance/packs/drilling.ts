import type { Neighbor } from '../../../queries/compliance/graph-facts';
import { cite, CITATIONS, TEXAS_RULES, type TexasRules } from '../rules/texas-rules';
import { addDays, dateOf, type DomainPack, neighborsOf, PERMIT_FIELDS, sourceOf, verdict } from './pack';

export interface DrillingFacts {
  permits: Map<string, Neighbor[]>;
}

const W1 = /W-1\b|drilling permit/i;

/**
 * W-2 (oil) / G-1 (gas) completion report due date (Statewide Rule 16): 90 days after completion
 * or 150 days after drilling ended, whichever is earlier, moved to the next working day when it
 * falls on a day the regulator is closed. Null when the completion date is unknown.
 */
export function completionReportDue(
  rules: TexasRules,
  completion: string | null,
  drillingEnded: string | null,
): string | null {
  if (!completion) return null;
  const earliest = [
    addDays(completion, rules.completionReportDays),
    addDays(drillingEnded ?? completion, rules.completionReportAfterDrillingDays),
  ].sort()[0];
  return rules.calendar.move(earliest, 'next');
}

/**
 * Drilling (Form W-1): a drilled well must have been spudded while its W-1 was valid (on or
 * after issuance, not after expiry) → green, else red. A well still only permitted is blue
 * (in progress) while its permit is valid, amber within 30 days of expiry and red once the
 * permit expired before spud. No W-1 on record: grey for a drilled well (history unknown),
 * amber for a permitted one.
 */
export function createDrillingPack(rules: TexasRules = TEXAS_RULES): DomainPack<DrillingFacts> {
  const rule = (what: string) => cite(CITATIONS.rule_5, what);
  return {
    domain: 'drilling',
    title: 'Drilling permits (W-1)',
    short_title: 'Drilling',
    appliesTo: ['Well'],
    entityFields: ['status', 'spud_date'],
    async load(graph, vertexIds) {
      return { permits: await graph.neighbors(vertexIds, 'PART_OF', 'Well', 'Permit', 'in', PERMIT_FIELDS) };
    },
    assess(well, facts, today) {
      const p = well.properties;
      const permitted = p.status === 'permitted';
      const spud = dateOf(p.spud_date);
      const w1 = neighborsOf(facts.permits, well.vertexId)
        .filter((n) => W1.test(n.properties.form ?? '') || W1.test(n.properties.type ?? ''))
        .map((n) => {
          const issued = dateOf(n.properties.issued_date);
          return {
            id: n.entityId,
            issued,
            expires: dateOf(n.properties.expiration_date) ?? (issued ? addDays(issued, rules.w1ValidDays) : null),
            status: n.properties.status ?? null,
          };
        })
        .sort((a, b) => (b.issued ?? '').localeCompare(a.issued ?? ''));
      if (w1.length === 0) {
        return permitted
          ? verdict(today, {
              color: 'amber',
              reason: rule('permitted well without a W-1 permit on record'),
              facts: { source: sourceOf(well), spud_date: spud },
            })
          : verdict(today, {
              color: 'grey',
              reason: rule('no W-1 permit on record'),
              facts: { source: sourceOf(well), spud_date: spud },
            });
      }
      if (!permitted && spud) {
        const covering = w1.find((w) => (!w.issued || w.issued <= spud) && (!w.expires || spud <= w.expires));
        const latest = covering ?? w1[0];
        const facts2 = {
          source: sourceOf(well),
          permit: latest.id,
          issued_date: latest.issued,
          expiration_date: latest.expires,
          spud_date: spud,
        };
        if (covering)
          return verdict(today, {
            color: 'green',
            reason: rule(`spudded ${spud} under W-1 ${covering.id}`),
            facts: facts2,
          });
        const why =
          latest.issued && spud < latest.issued
            ? `spudded ${spud}, before W-1 ${latest.id} was issued on ${latest.issued}`
            : `spudded ${spud}, after W-1 ${latest.id} expired on ${latest.expires}`;
        return verdict(today, { color: 'red', reason: rule(why), facts: facts2 });
      }
      const permit = w1[0];
      const facts2 = {
        source: sourceOf(well),
        permit: permit.id,
        issued_date: permit.issued,
        expiration_date: permit.expires,
        spud_date: spud,
      };
      if (permit.expires && permit.expires < today)
        return verdict(today, {
          color: 'red',
          dueDate: permit.expires,
          reason: rule(`W-1 ${permit.id} expired on ${permit.expires} before spud`),
          facts: facts2,
        });
      if (permit.expires && permit.expires <= addDays(today, rules.expiresSoonDays))
        return verdict(today, {
          color: 'amber',
          dueDate: permit.expires,
          reason: rule(`W-1 ${permit.id} expires on ${permit.expires}; not yet spudded`),
          facts: facts2,
        });
      return verdict(today, {
        color: 'blue',
        dueDate: permit.expires,
        reason: rule(`permitted under W-1 ${permit.id}; not yet spudded`),
        facts: facts2,
      });
    },
  };
}

export const drillingPack = createDrillingPack();
