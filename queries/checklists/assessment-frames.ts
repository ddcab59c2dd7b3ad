import type { RecordedEvent } from '../../src/platform/eventstore/types';
import { EVENT_TYPE_OF, readAssessmentEvent } from '../../streams/checklists/assessment';

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function snakeKeys(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [snake(k), v]));
}

/**
 * A recorded assessment event as the spec's frame: `{event_type, assessment_id, …fields}`
 * in snake_case (data-table rows keep their column names). The start of a run is an
 * `agent_status` frame with state `queued`.
 */
export function assessmentFrame(event: RecordedEvent): { eventType: string; data: Record<string, unknown> } {
  const e = readAssessmentEvent(event);
  const eventType = EVENT_TYPE_OF[e.type];
  let fields: Record<string, unknown>;
  switch (e.type) {
    case 'AssessmentStarted':
      fields = {
        assessmentId: e.data.assessmentId,
        state: 'queued',
        message: `Assessment of ${e.data.entityId} started`,
        itemIndex: null,
        checklistId: e.data.checklistId,
        templateId: e.data.templateId,
        startedBy: e.data.startedBy,
        startedAt: e.data.startedAt,
      };
      break;
    case 'AssessmentSpatialUpdated':
      fields = { ...e.data, features: e.data.features.map((f) => snakeKeys(f)) };
      break;
    default:
      fields = { ...e.data };
  }
  return {
    eventType,
    data: { event_type: eventType, ...snakeKeys(fields), recorded_at: event.recordedAt.toISOString() },
  };
}
