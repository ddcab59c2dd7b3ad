import { Conflict, NotFound } from '../../src/platform/domain-errors';
import type { ChecklistState, ExistingChecklist } from '../../streams/checklists/checklist';

export const checklistNotFound = () => new NotFound('Checklist not found');

export function existing(state: ChecklistState): ExistingChecklist {
  if (state.status === 'none') throw checklistNotFound();
  return state;
}

/** Items, metadata and artifacts change only while the checklist is being worked on. */
export function inProgress(state: ChecklistState, what: string): ExistingChecklist {
  const checklist = existing(state);
  if (checklist.status !== 'in_progress')
    throw new Conflict(`Cannot ${what}: the checklist is ${checklist.status}`, { status: checklist.status });
  return checklist;
}

/** Item index out of range answers 404, like a missing resource. */
export function itemAt(checklist: ExistingChecklist, index: number) {
  const item = checklist.items.find((i) => i.index === index);
  if (!item) throw new NotFound(`Checklist item ${index} not found`);
  return item;
}
