import type { Knex } from 'knex';
import { graphFacts } from '../../../queries/compliance/graph-facts';
import { namespaceOf } from '../../../streams/graph/names';
import { packOf } from '../../compliance/packs';
import type { AssessedVertex, DomainPack, Verdict } from '../../compliance/packs/pack';
import type { ItemFrames, Severity } from './frames';

/**
 * A checklist judges a rule with the compliance pack's own evaluator: the same
 * `load` over the knowledge graph for one entity and the same `assess`, given the checklist's
 * period. So a checklist item and the dashboard cell give the same verdict and reason.
 */
export interface RuleSubject {
  pack: DomainPack<any>;
  entity: AssessedVertex;
  facts: unknown;
}

export async function loadRuleSubject(
  knex: Knex,
  tenantId: string,
  domain: string,
  label: string,
  entityId: string,
): Promise<RuleSubject | null> {
  const pack = packOf(domain);
  if (!pack || !pack.appliesTo.includes(label)) return null;
  const graph = graphFacts(knex, namespaceOf(tenantId));
  const [row] = await graph.vertices(label, ['name', ...pack.entityFields], { entityId });
  if (!row) return null;
  const entity: AssessedVertex = {
    vertexId: row.id,
    entityId: row.entity_id,
    label: row.label,
    properties: row.properties,
  };
  return { pack, entity, facts: await pack.load(graph, [row.id]) };
}

/** How a verdict reads as a validation: unknown (grey) is a failed check, never a pass. */
export function checkOfVerdict(color: Verdict['color']): { passed: boolean; severity: Severity } {
  switch (color) {
    case 'red':
      return { passed: false, severity: 'error' };
    case 'grey':
      return { passed: false, severity: 'warning' };
    case 'amber':
      return { passed: true, severity: 'warning' };
    default:
      return { passed: true, severity: 'info' };
  }
}

/** Judges the subject for `period`, records the verdict as a check (message = the reason) and its color as a field. */
export function recordVerdict(
  frames: ItemFrames,
  checkName: string,
  subject: RuleSubject,
  today: string,
  period?: string,
): Verdict | null {
  const verdict = subject.pack.assess(subject.entity, subject.facts, today, period);
  if (!verdict) return null;
  const { passed, severity } = checkOfVerdict(verdict.color);
  frames.field(`${checkName}_verdict`, verdict.color, 1, `graph:${subject.entity.label}/${subject.entity.entityId}`);
  frames.check(checkName, passed, verdict.reason, severity);
  return verdict;
}
