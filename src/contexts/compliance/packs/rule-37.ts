import type { Neighbor } from '../../../../queries/compliance/graph-facts';
import { DomainPack, neighborsOf, num, PERMIT_FIELDS, verdict } from './pack';

interface Rule37Facts {
  offsets: Map<string, Neighbor[]>;
  permits: Map<string, Neighbor[]>;
}

export const WELL_SPACING_FT = 1200;
export const LEASE_LINE_FT = 467;
const EXCEPTION = /rule\s*37|R-37|spacing exception/i;

/**
 * Rule 37 (spacing): an offset well in the same horizon closer than 1,200 ft, or a lease line
 * closer than 467 ft (`lease_line_distance_ft` when the graph has it), needs an approved
 * Rule 37 exception permit (a Permit PART_OF the well); without one → red.
 */
export const rule37Pack: DomainPack<Rule37Facts> = {
  domain: 'rule_37',
  title: 'Rule 37 well spacing',
  short_title: 'Spacing',
  appliesTo: 'Well',
  entityFields: ['lease_line_distance_ft'],
  async load(graph, vertexIds) {
    const [offsets, permits] = await Promise.all([
      graph.neighbors(vertexIds, 'OFFSET_TO', 'Well', 'Well', 'both', []),
      graph.neighbors(vertexIds, 'PART_OF', 'Well', 'Permit', 'in', PERMIT_FIELDS),
    ]);
    return { offsets, permits };
  },
  assess(well, facts, today) {
    const offsets = neighborsOf(facts.offsets, well.vertexId)
      .filter((o) => o.edge.same_horizon !== 'false' && o.edge.distance_ft !== undefined)
      .map((o) => ({ api: o.entityId, ft: num(o.edge.distance_ft) }))
      .sort((a, b) => a.ft - b.ft);
    const leaseLine = well.properties.lease_line_distance_ft === undefined ? null : num(well.properties.lease_line_distance_ft);
    const exception = neighborsOf(facts.permits, well.vertexId).find(
      (p) => (EXCEPTION.test(p.properties.type ?? '') || EXCEPTION.test(p.properties.form ?? '') || p.properties.rule_37_exception === 'true') && p.properties.status !== 'denied',
    );
    const nearest = offsets[0] ?? null;
    const facts37 = { nearest_offset: nearest?.api ?? null, nearest_offset_ft: nearest?.ft ?? null, lease_line_ft: leaseLine, exception_permit: exception?.entityId ?? null };
    const tooClose = nearest !== null && nearest.ft < WELL_SPACING_FT;
    const nearLine = leaseLine !== null && leaseLine < LEASE_LINE_FT;
    if (!tooClose && !nearLine) {
      return verdict(today, { color: 'green', reason: nearest ? `nearest offset ${nearest.ft} ft` : 'no offset wells on record', facts: facts37 });
    }
    const what = tooClose ? `offset ${nearest!.api} at ${nearest!.ft} ft (< ${WELL_SPACING_FT.toLocaleString('en-US')} ft)` : `lease line at ${leaseLine} ft (< ${LEASE_LINE_FT} ft)`;
    if (exception) return verdict(today, { color: 'green', reason: `${what} under Rule 37 exception ${exception.entityId}`, facts: facts37 });
    return verdict(today, { color: 'red', reason: `${what} without a Rule 37 exception`, facts: facts37 });
  },
};
