import type { EventStore } from '../../src/platform/eventstore/types';
import { readAssessmentEvent, assessmentAggregate } from '../../streams/checklists/assessment';
import { ChecklistEvent, readChecklistEvent } from '../../streams/checklists/checklist';
import type { AssessmentCheck, ChecklistFacts } from './filing-payload';

type Created = Extract<ChecklistEvent, { type: 'ChecklistCreated' }>['data'];

/** A checklist's events as written (reactors read the write side, never a lagging read model). */
export async function checklistHistory(store: EventStore, stream: string): Promise<{ created: Created; events: ChecklistEvent[] }> {
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

/** The checks of the checklist's last workspace assessment run (none when it was never assessed). */
export async function lastAssessmentChecks(store: EventStore, tenantId: string, checklistId: string): Promise<AssessmentCheck[]> {
  const events = (await store.readStream(assessmentAggregate.stream(tenantId, checklistId))).map(readAssessmentEvent);
  const lastRun = [...events].reverse().find((e) => e.type === 'AssessmentStarted')?.data.assessmentId;
  if (!lastRun) return [];
  return events.flatMap((e) => (e.type === 'AssessmentValidationRecorded' && e.data.assessmentId === lastRun ? [{ checkName: e.data.checkName, passed: e.data.passed, message: e.data.message, severity: e.data.severity }] : []));
}
