import { z } from 'zod';
import type { Aggregate, EventsOf } from '../../src/platform/command-handling/aggregate';
import { eventReader } from '../../src/platform/command-handling/aggregate';

/**
 * The workspace assessment of a checklist: one
 * stream per checklist, `checklists.assessment-<tenant>-<checklistId>`, holding every run.
 * Each frame the SSE route sends is one event here, so a late or reconnecting reader
 * replays exactly what was streamed (the stream revision is the SSE `id`). Frames are data
 * about the run, not decisions: the checklist itself changes only by its own commands.
 */
const run = { assessmentId: z.string() };
const Row = z.record(z.union([z.string(), z.number(), z.boolean(), z.null()]));

export const AssessmentEventSchemas = {
  AssessmentStarted: z.object({
    ...run,
    checklistId: z.string(),
    templateId: z.string(),
    entityId: z.string(),
    startedBy: z.string(),
    startedAt: z.string(),
  }),
  AssessmentAgentStatusChanged: z.object({
    ...run,
    state: z.enum(['started', 'assessing', 'completed', 'failed']),
    message: z.string(),
    itemIndex: z.number().int().nullable(),
  }),
  AssessmentItemUpdated: z.object({
    ...run,
    itemIndex: z.number().int(),
    itemName: z.string(),
    status: z.enum(['in_progress', 'complete', 'needs_review']),
    summary: z.string(),
    completedBy: z.string().nullable(),
  }),
  AssessmentDataTableUpdated: z.object({
    ...run,
    itemIndex: z.number().int(),
    columns: z.array(z.string()),
    rows: z.array(Row),
    totalRows: z.number().int(),
  }),
  AssessmentFormFieldUpdated: z.object({
    ...run,
    itemIndex: z.number().int(),
    fieldName: z.string(),
    fieldValue: z.union([z.string(), z.number(), z.boolean(), z.null()]),
    confidence: z.number().min(0).max(1),
    source: z.string(),
  }),
  AssessmentValidationRecorded: z.object({
    ...run,
    itemIndex: z.number().int(),
    checkName: z.string(),
    passed: z.boolean(),
    message: z.string(),
    severity: z.enum(['info', 'warning', 'error']),
  }),
  AssessmentArtifactGenerated: z.object({
    ...run,
    itemIndex: z.number().int(),
    artifactId: z.string(),
    artifactType: z.string(),
    filename: z.string(),
    contentType: z.string(),
    sizeBytes: z.number().int(),
    sha256: z.string(),
  }),
  AssessmentSpatialUpdated: z.object({
    ...run,
    entityId: z.string(),
    features: z.array(
      z.object({
        entityId: z.string(),
        label: z.string(),
        name: z.string().nullable(),
        latitude: z.number(),
        longitude: z.number(),
        role: z.string(),
      }),
    ),
  }),
  AssessmentCompleted: z.object({
    ...run,
    status: z.enum(['completed', 'failed']),
    itemsAssessed: z.number().int(),
    validationsPassed: z.number().int(),
    validationsFailed: z.number().int(),
    error: z.string().nullable(),
    completedAt: z.string(),
  }),
};

export type AssessmentEvent = EventsOf<typeof AssessmentEventSchemas>;
export type AssessmentFrame = Exclude<AssessmentEvent, { type: 'AssessmentStarted' }>;
export const readAssessmentEvent = eventReader('assessment', AssessmentEventSchemas);

/** The spec's `event_type` of each frame. */
export const EVENT_TYPE_OF: Record<AssessmentEvent['type'], string> = {
  AssessmentStarted: 'agent_status',
  AssessmentAgentStatusChanged: 'agent_status',
  AssessmentItemUpdated: 'checklist_item_update',
  AssessmentDataTableUpdated: 'data_table_update',
  AssessmentFormFieldUpdated: 'form_field_update',
  AssessmentValidationRecorded: 'validation_result',
  AssessmentArtifactGenerated: 'artifact_generated',
  AssessmentSpatialUpdated: 'spatial_update',
  AssessmentCompleted: 'assessment_complete',
};

/** A run that has not completed within this long is considered abandoned (its process died). */
export const ABANDONED_AFTER_MS = 10 * 60_000;

export type AssessmentState =
  | { status: 'none' }
  | { status: 'running'; assessmentId: string; startedAt: string; runs: number }
  | { status: 'complete'; assessmentId: string; runs: number };

export function evolveAssessment(state: AssessmentState, event: AssessmentEvent): AssessmentState {
  const runs = state.status === 'none' ? 0 : state.runs;
  switch (event.type) {
    case 'AssessmentStarted':
      return {
        status: 'running',
        assessmentId: event.data.assessmentId,
        startedAt: event.data.startedAt,
        runs: runs + 1,
      };
    case 'AssessmentCompleted':
      return state.status === 'running' && state.assessmentId === event.data.assessmentId
        ? { status: 'complete', assessmentId: state.assessmentId, runs }
        : state;
    default:
      return state;
  }
}

export const assessmentAggregate: Aggregate<AssessmentState, AssessmentEvent> = {
  stream: (tenantId, checklistId) => `checklists.assessment-${tenantId}-${checklistId}`,
  eventTypes: Object.keys(AssessmentEventSchemas) as AssessmentEvent['type'][],
  initialState: { status: 'none' },
  evolve: evolveAssessment,
  read: readAssessmentEvent,
  // Every run adds a few dozen frames; deciding folds from the latest snapshot.
  snapshot: { every: 100, version: 1, toJSON: (state) => state, fromJSON: (json) => json as AssessmentState },
};
