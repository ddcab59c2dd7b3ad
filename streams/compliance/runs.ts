import { z } from 'zod';
import type { Aggregate, EventsOf } from '../../src/platform/command-handling/aggregate';
import { eventReader } from '../../src/platform/command-handling/aggregate';

/**
 * A tenant's assessment runs in the order they were recorded (`compliance.runs-<tenant>-all`):
 * every run (the daily one, `POST /compliance/assess`, one entity's after a filing) appends
 * here in the same atomic write as its own assessment stream, with the revision it planned
 * against. Two runs racing each other therefore cannot both land: the second finds the stream
 * moved, plans again on what the first recorded, and only then records, so an older verdict
 * never lands after a newer one. The portfolio runs also leave here what the next run plans
 * from: the log position the packs judged up to, the day, the packs and their rules.
 */
export const PortfolioBaseline = z.object({
  assessmentId: z.string(),
  /** The day the packs judged (YYYY-MM-DD). */
  judgedOn: z.string(),
  /** The store's visibility horizon when the packs read the graph (`commit/prepare`). */
  position: z.string(),
  status: z.enum(['complete', 'partial']),
  /** Domain → the rules version its pack judged with; any difference makes the next run whole. */
  rules: z.record(z.string()),
  entities: z.number().int(),
  cells: z.number().int(),
});
export type PortfolioBaseline = z.infer<typeof PortfolioBaseline>;

export const AssessmentRunEventSchemas = {
  AssessmentRunRecorded: z.object({
    assessmentId: z.string(),
    scope: z.enum(['portfolio', 'entity']),
    entityId: z.string().nullable(),
    judgedOn: z.string(),
    /** A portfolio run's baseline for the next one (absent for one entity's run). */
    baseline: PortfolioBaseline.optional(),
  }),
};
export type AssessmentRunEvent = EventsOf<typeof AssessmentRunEventSchemas>;

export interface AssessmentRunsState {
  /** The newest run recorded (null: none yet): a run planned after another names it. */
  lastRun: string | null;
  /** The newest portfolio run's baseline. */
  portfolio: PortfolioBaseline | null;
}

export function evolveAssessmentRuns(state: AssessmentRunsState, event: AssessmentRunEvent): AssessmentRunsState {
  switch (event.type) {
    case 'AssessmentRunRecorded':
      return { lastRun: event.data.assessmentId, portfolio: event.data.baseline ?? state.portfolio };
  }
}

export const assessmentRunsAggregate: Aggregate<AssessmentRunsState, AssessmentRunEvent> = {
  stream: (tenantId, id) => `compliance.runs-${tenantId}-${id}`,
  eventTypes: Object.keys(AssessmentRunEventSchemas) as AssessmentRunEvent['type'][],
  initialState: { lastRun: null, portfolio: null },
  evolve: evolveAssessmentRuns,
  read: eventReader('compliance assessment run', AssessmentRunEventSchemas),
  // A run a few times a day for years: decisions start from the latest snapshot.
  snapshot: { every: 100, version: 1, toJSON: (state) => state, fromJSON: (json) => json as AssessmentRunsState },
};

/** The one runs stream of a tenant. */
export const assessmentRunsStream = (tenantId: string) => assessmentRunsAggregate.stream(tenantId, 'all');
