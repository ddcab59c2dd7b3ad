import type { RecordedEvent } from '../../src/platform/eventstore/types';
import type { ReactionCommand, Reactor } from '../../src/platform/reactors/reactor';
import { readChecklistEvent } from '../../streams/checklists/checklist';
import type { DomainPack } from './packs/pack';
import { assess } from './record-assessment';

/** What re-assessing after a filing decides from: the entity the checklist is about. */
export interface FiledChecklistFacts {
  checklistEntityId: string | null;
}

/**
 * Given a checklist filed, then the assessments to record: the unit the filing was recorded
 * on, and the checklist's own entity when that is another (an oil well filed by its lease), so
 * their dashboard cells show the filing within seconds. An entity gone from the graph
 * meanwhile has nothing to assess.
 */
export function reassessmentsAfterFiling(
  recorded: RecordedEvent,
  facts: FiledChecklistFacts,
  packs: DomainPack<any>[],
): ReactionCommand[] {
  const filed = readChecklistEvent(recorded);
  if (filed.type !== 'ChecklistFiled') return [];
  const entityIds = [filed.data.unit.entityId];
  if (facts.checklistEntityId && facts.checklistEntityId !== filed.data.unit.entityId)
    entityIds.push(facts.checklistEntityId);
  return entityIds.map((entityId) => ({
    step: 'reassess',
    // The assessment reads the graph as it is when it runs: an operation of compliance, not one decision.
    operation: {
      name: 'compliance.assess-entity',
      input: { entityId },
      send: (deps, context) => assess(deps, packs, context, entityId),
    },
    expected: ['not_found'],
  }));
}

/**
 * Checklist filed → its unit (and its own entity) re-assessed. It took over the re-assessment
 * the checklists' `checklists.record-filing` did after filing: on its first deployment it starts
 * where that lane stood, so a filing the old lane recorded but had not re-assessed is not missed
 * (one it had re-assessed is assessed once more, which changes nothing).
 */
export function reassessAfterFilingReactor(packs: DomainPack<any>[]): Reactor<FiledChecklistFacts> {
  return {
    name: 'compliance.reassess-after-filing',
    handles: ['ChecklistFiled'],
    replaces: ['checklists.record-filing'],
    async facts(recorded, read) {
      const [created] = await read.store.readStream(recorded.stream, { limit: 1 });
      const first = created ? readChecklistEvent(created) : null;
      return { checklistEntityId: first?.type === 'ChecklistCreated' ? first.data.entityId : null };
    },
    react: (recorded, facts) => reassessmentsAfterFiling(recorded, facts, packs),
  };
}
