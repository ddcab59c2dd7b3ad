import type { Knex } from 'knex';
import {
  changedSince,
  currentVerdicts,
  graphMark,
  lastPortfolioAssessment,
} from '../../queries/compliance/graph-changes';
import type { DomainPack } from './packs/pack';
import { type PackScope, runPacks } from './run-packs';
import { type AssessedEntity, cellFingerprint, type GraphMark } from '../../streams/compliance/assessment';
import { namespaceOf } from '../../streams/graph/names';

/** Past this share of the graph changed, one whole run is cheaper than a restricted one. */
const INCREMENTAL_SHARE = 0.25;

export interface PortfolioPlan {
  /** Only the verdicts that differ from the current ones (the rest stay current unchanged). */
  entities: AssessedEntity[];
  domains: string[];
  failedDomains: Record<string, string>;
  /** The portfolio's entities with a verdict, and its verdicts, after this assessment. */
  totals: { entities: number; cells: number };
  graph: GraphMark;
  /** Entities the packs re-evaluated. */
  reassessed: number;
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * A portfolio assessment does only what changed. Verdicts depend on the graph's
 * facts and on the day, so a second assessment on the same day, after a complete one with the
 * same packs, re-evaluates only the entities near what changed in the graph since that one
 * (`changedSince`): none when nothing changed. A new day, a partial or missing previous
 * assessment, a deletion in the graph or a large change runs every entity. Either way only
 * the verdicts whose fingerprint differs from the current one are recorded.
 *
 * The previous verdicts come from the dashboard's read model, which the previous assessment
 * waited for; two assessments of one tenant racing each other may both record a verdict,
 * never lose one.
 */
export async function planPortfolioAssessment(
  knex: Knex,
  tenantId: string,
  packs: DomainPack<any>[],
  today: string,
): Promise<PortfolioPlan> {
  const namespace = namespaceOf(tenantId);
  const domains = packs.map((p) => p.domain);
  const labels = [...new Set(packs.flatMap((p) => p.appliesTo))];
  const [graph, last] = await Promise.all([graphMark(knex, namespace), lastPortfolioAssessment(knex, tenantId)]);
  let scope: PackScope = {};
  if (last && last.assessedOn === today && last.status === 'complete' && sameList(last.domains, domains)) {
    const changed = await changedSince(knex, namespace, last.graph, graph, labels);
    if (!changed.deleted && changed.vertexIds.length <= graph.vertices * INCREMENTAL_SHARE)
      scope = { vertexIds: changed.vertexIds };
  }
  if (last && scope.vertexIds?.length === 0)
    return {
      entities: [],
      domains,
      failedDomains: {},
      totals: { entities: last.entities, cells: last.cells },
      graph,
      reassessed: 0,
    };

  const run = await runPacks(knex, tenantId, packs, today, scope);
  const previous = await currentVerdicts(knex, tenantId, domains, scope.vertexIds ? run.entityIds : null);
  const entities: AssessedEntity[] = [];
  for (const entity of run.entities) {
    const before = previous.get(entity.entityId);
    // An entity without a verdict yet (every entity, on a tenant's first assessment) records them all: no fingerprint to compare.
    const cells = before
      ? entity.cells.filter((cell) => before.get(cell.domain) !== cellFingerprint(cell))
      : entity.cells;
    if (cells.length > 0) entities.push({ ...entity, cells });
  }
  const cellsOf = (e: AssessedEntity) => e.cells.length;
  let totals = { entities: run.entities.length, cells: run.entities.reduce((n, e) => n + cellsOf(e), 0) };
  if (last && scope.vertexIds) {
    // The re-evaluated entities' counts replace theirs in the previous totals; a failed domain's verdicts stay current.
    const fresh = new Map(run.entities.map((e) => [e.entityId, cellsOf(e)]));
    totals = { entities: last.entities, cells: last.cells };
    for (const entityId of run.entityIds) {
      const before = previous.get(entityId);
      const kept = before ? [...before.keys()].filter((d) => d in run.failedDomains).length : 0;
      const now = (fresh.get(entityId) ?? 0) + kept;
      const then = before?.size ?? 0;
      totals.entities += (now > 0 ? 1 : 0) - (then > 0 ? 1 : 0);
      totals.cells += now - then;
    }
  }
  return {
    entities,
    domains: run.domains,
    failedDomains: run.failedDomains,
    totals,
    graph,
    reassessed: run.entityIds.length,
  };
}
