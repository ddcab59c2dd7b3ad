import type { Neighbor } from '../../../queries/compliance/graph-facts';
import { cite, CITATIONS } from '../rules/texas-rules';
import { type DomainPack, neighborsOf, num, PERMIT_FIELDS, sourceOf, verdict } from './pack';

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
 * Rule 37 exception permit (a Permit PART_OF the well); without one → red. With neither an
 * offset well nor a lease-line distance on record the spacing is unknown (grey), never a pass.
 */
export const rule37Pack: DomainPack<Rule37Facts> = {
  domain: 'rule_37',
  title: 'Rule 37 well spacing',
  short_title: 'Spacing',
  appliesTo: ['Well'],
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
      .map((o) => ({ api: o.entityId, ft: num(o.edge.distance_ft), sameHorizon: o.edge.same_horizon !== 'false' }))
      .filter((o): o is { api: string; ft: number; sameHorizon: boolean } => o.sameHorizon && o.ft !== null)
      .sort((a, b) => a.ft - b.ft);
    const leaseLine = num(well.properties.lease_line_distance_ft);
    const exception = neighborsOf(facts.permits, well.vertexId).find(
      (p) =>
        (EXCEPTION.test(p.properties.type ?? '') ||
          EXCEPTION.test(p.properties.form ?? '') ||
          p.properties.rule_37_exception === 'true') &&
        p.properties.status !== 'denied',
    );
    const nearest = offsets[0] ?? null;
    const facts37 = {
      source: sourceOf(well),
      nearest_offset: nearest?.api ?? null,
      nearest_offset_ft: nearest?.ft ?? null,
      lease_line_ft: leaseLine,
      exception_permit: exception?.entityId ?? null,
    };
    const tooClose = nearest !== null && nearest.ft < WELL_SPACING_FT;
    const nearLine = leaseLine !== null && leaseLine < LEASE_LINE_FT;
    if (!nearest && leaseLine === null) {
      return verdict(today, {
        color: 'grey',
        reason: cite(
          CITATIONS.rule_37,
          'spacing unknown: no same-horizon offset well and no lease-line distance on record',
        ),
        facts: facts37,
      });
    }
    if (!tooClose && !nearLine) {
      return verdict(today, {
        color: 'green',
        reason: cite(
          CITATIONS.rule_37,
          nearest
            ? `nearest same-horizon offset ${nearest.api} at ${nearest.ft} ft (≥ ${WELL_SPACING_FT.toLocaleString('en-US')} ft)`
            : `lease line at ${leaseLine} ft (≥ ${LEASE_LINE_FT} ft); no same-horizon offset well on record`,
        ),
        facts: facts37,
      });
    }
    const what = tooClose
      ? `offset ${nearest!.api} at ${nearest!.ft} ft (< ${WELL_SPACING_FT.toLocaleString('en-US')} ft)`
      : `lease line at ${leaseLine} ft (< ${LEASE_LINE_FT} ft)`;
    if (exception)
      return verdict(today, {
        color: 'green',
        reason: cite(CITATIONS.rule_37, `${what} under Rule 37 exception ${exception.entityId}`),
        facts: facts37,
      });
    return verdict(today, {
      color: 'red',
      reason: cite(CITATIONS.rule_37, `${what} without a Rule 37 exception`),
      facts: facts37,
    });
  },
};
