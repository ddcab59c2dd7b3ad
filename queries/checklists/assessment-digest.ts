import type { EventStore } from '../../src/platform/eventstore/types';
import { assessmentAggregate, readAssessmentEvent } from '../../streams/checklists/assessment';

/**
 * The latest assessment run of a checklist, folded from its stream (the frames the workspace
 * SSE replays): each item's outcome and summary, every validation, the data tables, and
 * whether the run completed. Null when no run was ever started.
 */
export interface AssessmentDigest {
  assessment_id: string;
  status: 'running' | 'completed' | 'failed';
  error: string | null;
  items: Array<{ index: number; name: string; status: string; summary: string }>;
  validations: Array<{
    item_index: number;
    check: string;
    passed: boolean;
    severity: 'info' | 'warning' | 'error';
    message: string;
  }>;
  tables: Array<{
    item_index: number;
    columns: string[];
    rows: Array<Record<string, string | number | boolean | null>>;
  }>;
}

export async function assessmentDigest(
  store: EventStore,
  tenantId: string,
  checklistId: string,
): Promise<AssessmentDigest | null> {
  const events = (await store.readStream(assessmentAggregate.stream(tenantId, checklistId))).map(readAssessmentEvent);
  const start = events.map((e) => e.type).lastIndexOf('AssessmentStarted');
  if (start < 0) return null;
  const digest: AssessmentDigest = {
    assessment_id: events[start].data.assessmentId,
    status: 'running',
    error: null,
    items: [],
    validations: [],
    tables: [],
  };
  for (const e of events.slice(start + 1)) {
    if (e.data.assessmentId !== digest.assessment_id) continue;
    switch (e.type) {
      case 'AssessmentItemUpdated': {
        const item = { index: e.data.itemIndex, name: e.data.itemName, status: e.data.status, summary: e.data.summary };
        const at = digest.items.findIndex((i) => i.index === item.index);
        if (at >= 0) digest.items[at] = item;
        else digest.items.push(item);
        break;
      }
      case 'AssessmentValidationRecorded':
        digest.validations.push({
          item_index: e.data.itemIndex,
          check: e.data.checkName,
          passed: e.data.passed,
          severity: e.data.severity,
          message: e.data.message,
        });
        break;
      case 'AssessmentDataTableUpdated':
        digest.tables.push({ item_index: e.data.itemIndex, columns: e.data.columns, rows: e.data.rows });
        break;
      case 'AssessmentCompleted':
        digest.status = e.data.status;
        digest.error = e.data.error;
        break;
      default:
        break;
    }
  }
  return digest;
}
