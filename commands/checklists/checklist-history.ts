import type { EventStore } from '../../src/platform/eventstore/types';
import { type ChecklistEvent, readChecklistEvent } from '../../streams/checklists/checklist';
import type { ChecklistFacts } from './checklist-facts';

type Created = Extract<ChecklistEvent, { type: 'ChecklistCreated' }>['data'];

/** A checklist's events as written (reactors read the write side, never a lagging read model). */
export async function checklistHistory(
  store: EventStore,
  stream: string,
): Promise<{ created: Created; events: ChecklistEvent[] }> {
  const events = (await store.readStream(stream)).map(readChecklistEvent);
  const first = events[0];
  if (first?.type !== 'ChecklistCreated') throw new Error(`${stream} has no ChecklistCreated`);
  return { created: first.data, events };
}

export function checklistFacts(created: Created): ChecklistFacts {
  return {
    checklistId: created.checklistId,
    templateId: created.templateId,
    entityId: created.entityId,
    entityType: created.entityType,
    period: created.period,
    items: created.items.map((i) => ({ index: i.index, key: i.key, label: i.label })),
  };
}
