import type { Knex } from 'knex';
import { type GraphFacts, graphFacts } from '../../queries/compliance/graph-facts';
import type { AssessedEntity } from '../../streams/compliance/assessment';
import { namespaceOf } from '../../streams/graph/names';
import type { AssessedVertex, DomainPack } from './packs/pack';
import { changesOn, DEFAULT_WINDOWS } from './changes-on';

/** The fact every recorded verdict carries: the first day it would differ without new facts (null: none ahead). */
export const CHANGES_ON = 'changes_on';

export interface PackRun {
  entities: AssessedEntity[];
  domains: string[];
  /** domain → why it failed; its cells are left out of the snapshot (the previous ones stay current). */
  failedDomains: Record<string, string>;
  /** How many entities the packs were asked about (0: nothing to assess). */
  found: number;
  /** Those entities (some have no verdict: no rule applies to them). */
  entityIds: string[];
}

/** What to assess: the whole portfolio, one entity, or some vertices (those whose facts changed). */
export type PackScope = { entityId?: string; vertexIds?: readonly string[] };

/**
 * Packs that read the same relationship (three read a well's permits) share one query: the
 * neighbors are loaded once per run and the packs only read them.
 */
function sharedLookups(graph: GraphFacts): GraphFacts {
  const loaded = new Map<string, ReturnType<GraphFacts['neighbors']>>();
  return {
    ...graph,
    neighbors(vertexIds, edgeLabel, ofLabel, neighborLabel, direction, fields) {
      const key = JSON.stringify([edgeLabel, ofLabel, neighborLabel, direction, fields, vertexIds]);
      let neighbors = loaded.get(key);
      if (!neighbors) {
        neighbors = graph.neighbors(vertexIds, edgeLabel, ofLabel, neighborLabel, direction, fields);
        loaded.set(key, neighbors);
      }
      return neighbors;
    },
  };
}

/**
 * Runs every pack over the tenant's graph (the whole portfolio, one entity, or some
 * vertices): each pack loads its facts in a few set-based queries, then assesses every entity
 * in memory. A pack that throws is reported in `failedDomains`; the others still count.
 */
export async function runPacks(
  knex: Knex,
  tenantId: string,
  packs: DomainPack<any>[],
  today: string,
  scope: PackScope = {},
): Promise<PackRun> {
  const whole = scope.entityId === undefined && scope.vertexIds === undefined;
  const graph = sharedLookups(graphFacts(knex, namespaceOf(tenantId)));
  const byEntity = new Map<string, AssessedEntity>();
  const failedDomains: Record<string, string> = {};
  // A whole run's facts do not depend on which vertices there are: the packs load them while
  // the vertices are read (settled, so a failing load waits for its pack to report it).
  const early = whole ? new Map(packs.map((pack) => [pack, settle(pack, null)])) : null;
  const labels = [...new Set(packs.flatMap((p) => p.appliesTo))];
  const read = await Promise.all(
    labels.map((label) => {
      const fields = [
        ...new Set([
          'name',
          'well_name',
          ...packs.filter((p) => p.appliesTo.includes(label)).flatMap((p) => p.entityFields),
        ]),
      ];
      return graph.vertices(label, fields, scope);
    }),
  );
  const vertices = new Map(
    labels.map((label, i) => [
      label,
      read[i].map((r): AssessedVertex => ({
        vertexId: r.id,
        entityId: r.entity_id,
        label: r.label,
        properties: r.properties,
      })),
    ]),
  );
  const found = [...vertices.values()].reduce((n, list) => n + list.length, 0);
  await Promise.all(
    packs.map(async (pack) => {
      const targets = pack.appliesTo.flatMap((label) => vertices.get(label) ?? []);
      if (targets.length === 0) return;
      const loaded = await (early?.get(pack) ??
        settle(
          pack,
          targets.map((t) => t.vertexId),
        ));
      try {
        if ('error' in loaded) throw loaded.error;
        const { facts } = loaded;
        const windows = pack.changeWindows ?? DEFAULT_WINDOWS;
        const cells = targets.map((target) => ({ target, verdict: pack.assess(target, facts, today) }));
        for (const { target, verdict: judged } of cells) {
          // null: the rule does not apply to this entity (an oil well's Form PR is its lease's).
          if (judged === null) continue;
          // The day this verdict stops holding without new facts: the daily run re-evaluates the entity then.
          const read = pack.entityFields.map((f) => target.properties[f]);
          const on = changesOn((day) => pack.assess(target, facts, day), today, judged, read, windows);
          const verdict = { ...judged, facts: { ...judged.facts, [CHANGES_ON]: on } };
          let entity = byEntity.get(target.entityId);
          if (!entity) {
            const p = target.properties;
            entity = {
              entityId: target.entityId,
              entityType: target.label,
              entityName: p.name ?? p.well_name ?? target.entityId,
              cells: [],
            };
            byEntity.set(target.entityId, entity);
          }
          entity.cells.push({ domain: pack.domain, ...verdict });
        }
      } catch (error) {
        failedDomains[pack.domain] = error instanceof Error ? error.message : String(error);
      }
    }),
  );
  // Cells in pack order whatever order the packs finished in.
  const order = new Map(packs.map((p, i) => [p.domain, i]));
  const entities = [...byEntity.values()];
  for (const entity of entities) entity.cells.sort((a, b) => order.get(a.domain)! - order.get(b.domain)!);
  const entityIds = [...new Set([...vertices.values()].flatMap((list) => list.map((v) => v.entityId)))];
  return { entities, domains: packs.map((p) => p.domain), failedDomains, found, entityIds };

  function settle(pack: DomainPack<any>, vertexIds: string[] | null): Promise<{ facts: unknown } | { error: unknown }> {
    return Promise.resolve()
      .then(() => pack.load(graph, vertexIds))
      .then(
        (facts) => ({ facts }),
        (error: unknown) => ({ error }),
      );
  }
}
