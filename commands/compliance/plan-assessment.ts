import type { Knex } from 'knex';
import { changedSince, currentVerdicts, dueSince, graphMark } from '../../queries/compliance/graph-changes';
import { type DomainPack, rulesVersionOf } from './packs/pack';
import { type PackScope, runPacks } from './run-packs';
import { type AssessedEntity, cellFingerprint, type GraphMark } from '../../streams/compliance/assessment';
import type { PortfolioBaseline } from '../../streams/compliance/runs';
import { namespaceOf } from '../../streams/graph/names';
import { type EventStore, positionFromString } from '../../src/platform/eventstore/types';

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
  /** What the next run plans from (its `assessmentId` is the recording run's). */
  baseline: Omit<PortfolioBaseline, 'assessmentId'>;
}

/** Domain → rules version of the installed packs, in column order. */
export const rulesOf = (packs: readonly DomainPack<any>[]): Record<string, string> =>
  Object.fromEntries(packs.map((p) => [p.domain, rulesVersionOf(p)]));

/** Same domains with the same rules versions (the recorded map comes back from jsonb with its keys reordered). */
const sameRules = (a: Record<string, string>, b: Record<string, string>) => {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => b[k] === a[k]);
};

/**
 * A portfolio assessment does only what changed. Verdicts depend on the graph's facts, on the
 * day and on the packs' rules. After a complete run (`baseline`, read from the tenant's runs
 * stream) judged with the same rules versions, on that day or a later one, a run re-evaluates
 * only the entities near what was written to the graph after the log position that run judged
 * up to (`changedSince`) and, on a later day, those with a verdict that stops holding by then
 * (`dueSince`: each verdict records its `changes_on`): none when neither. A partial or missing
 * previous run, other rules, a day earlier than the previous run's, or a large change run
 * every entity. Either way only the verdicts whose fingerprint differs from the current one
 * are recorded.
 *
 * The previous verdicts come from the dashboard's read model: the caller has waited for it
 * to hold the previous run's verdicts, and records this plan only if no run came between
 * (`assess`), so the comparison is with what is really current.
 */
export async function planPortfolioAssessment(
  deps: { knex: Knex; store: Pick<EventStore, 'headPosition'> },
  tenantId: string,
  packs: DomainPack<any>[],
  today: string,
  baseline: PortfolioBaseline | null,
): Promise<PortfolioPlan> {
  const { knex } = deps;
  const namespace = namespaceOf(tenantId);
  const domains = packs.map((p) => p.domain);
  const rules = rulesOf(packs);
  const labels = [...new Set(packs.flatMap((p) => p.appliesTo))];
  // The horizon first: whatever the packs then read is at or after it, whatever they miss is after it.
  const graph = await graphMark(knex, deps.store, namespace);
  let scope: PackScope = {};
  let removed: string[] = [];
  if (baseline && baseline.judgedOn <= today && baseline.status === 'complete' && sameRules(baseline.rules, rules)) {
    // A later day also re-evaluates the verdicts that stop holding by then (`changes_on`).
    const [changed, due] = await Promise.all([
      changedSince(knex, namespace, positionFromString(baseline.position), labels),
      baseline.judgedOn < today ? dueSince(knex, tenantId, namespace, domains, labels, today) : [],
    ]);
    const vertexIds = due.length === 0 ? changed.vertexIds : [...new Set([...changed.vertexIds, ...due])];
    if (vertexIds.length <= graph.vertices * INCREMENTAL_SHARE) {
      scope = { vertexIds };
      removed = changed.removed;
    }
  }
  const next = (status: 'complete' | 'partial', totals: { entities: number; cells: number }) => ({
    judgedOn: today,
    position: graph.position!,
    status,
    rules,
    ...totals,
  });
  if (baseline && scope.vertexIds?.length === 0 && removed.length === 0) {
    const totals = { entities: baseline.entities, cells: baseline.cells };
    return {
      entities: [],
      domains,
      failedDomains: {},
      totals,
      graph,
      reassessed: 0,
      baseline: next('complete', totals),
    };
  }

  const run = await runPacks(knex, tenantId, packs, today, scope);
  // The deleted entities' verdicts leave the counts: compared like the re-evaluated ones, with nothing now.
  const touched = scope.vertexIds ? [...new Set([...run.entityIds, ...removed])] : null;
  const previous = await currentVerdicts(knex, tenantId, domains, touched);
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
  if (baseline && touched) {
    // The re-evaluated entities' counts replace theirs in the previous totals; a failed domain's verdicts stay current.
    const fresh = new Map(run.entities.map((e) => [e.entityId, cellsOf(e)]));
    totals = { entities: baseline.entities, cells: baseline.cells };
    for (const entityId of touched) {
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
    baseline: next(Object.keys(run.failedDomains).length > 0 ? 'partial' : 'complete', totals),
  };
}
