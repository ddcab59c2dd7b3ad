import { z } from 'zod';
import type { Aggregate, EventsOf } from '../../src/platform/command-handling/aggregate';
import { eventReader } from '../../src/platform/command-handling/aggregate';

/**
 * One evaluation run: started with its model, tag, code
 * version and judge threshold, one EvalCaseGraded per replayed case, then completed with the
 * totals. A run of many cases is a long stream, so it keeps snapshots.
 */
export const CASE_SOURCES = ['pin', 'expert'] as const;
export const GRADERS = ['pin_check', 'llm_judge'] as const;
export const VERDICTS = ['pass', 'fail', 'degraded'] as const;
export type Verdict = (typeof VERDICTS)[number];
export type CaseSource = (typeof CASE_SOURCES)[number];

const CaseResult = z.object({
  caseSource: z.enum(CASE_SOURCES),
  caseRef: z.string(),
  executionId: z.string(),
  grader: z.enum(GRADERS),
  verdict: z.enum(VERDICTS),
  judgeScore: z.number().nullable(),
  /** Pins: the failed shape assertions. Judged cases: `{rationale}`. */
  violations: z.union([z.array(z.string()), z.object({ rationale: z.string() }).passthrough()]),
  replayExecutionId: z.string().nullable(),
  tokensUsed: z.number().int().nullable(),
  costUsd: z.number().nullable(),
});
export type CaseResult = z.infer<typeof CaseResult>;

export const RunEventSchemas = {
  EvalRunStarted: z.object({
    runId: z.string(),
    tag: z.string().nullable(),
    modelId: z.string(),
    gitSha: z.string().nullable(),
    judgeThreshold: z.number(),
    /** `live`: replayed against the current code; `frozen`: graded on the recorded outputs. */
    replay: z.enum(['live', 'frozen']),
    startedAt: z.string(),
  }),
  EvalCaseGraded: CaseResult,
  EvalRunCompleted: z.object({
    nCases: z.number().int(),
    nPass: z.number().int(),
    nFail: z.number().int(),
    nDegraded: z.number().int(),
    tokensUsed: z.number().int(),
    costUsd: z.number(),
    completedAt: z.string(),
  }),
};

export type RunEvent = EventsOf<typeof RunEventSchemas>;
export const readRunEvent = eventReader('evaluation run', RunEventSchemas);

interface Counters {
  runId: string;
  modelId: string;
  nCases: number;
  nPass: number;
  nFail: number;
  nDegraded: number;
  tokensUsed: number;
  costUsd: number;
}
export type RunState = { status: 'none' } | ({ status: 'running' } & Counters) | ({ status: 'completed' } & Counters);

export function evolveRun(state: RunState, event: RunEvent): RunState {
  switch (event.type) {
    case 'EvalRunStarted':
      return {
        status: 'running',
        runId: event.data.runId,
        modelId: event.data.modelId,
        nCases: 0,
        nPass: 0,
        nFail: 0,
        nDegraded: 0,
        tokensUsed: 0,
        costUsd: 0,
      };
    case 'EvalCaseGraded': {
      if (state.status === 'none') return state;
      const v = event.data.verdict;
      return {
        ...state,
        nCases: state.nCases + 1,
        nPass: state.nPass + (v === 'pass' ? 1 : 0),
        nFail: state.nFail + (v === 'fail' ? 1 : 0),
        nDegraded: state.nDegraded + (v === 'degraded' ? 1 : 0),
        tokensUsed: state.tokensUsed + (event.data.tokensUsed ?? 0),
        costUsd: state.costUsd + (event.data.costUsd ?? 0),
      };
    }
    case 'EvalRunCompleted':
      return state.status === 'none' ? state : { ...state, status: 'completed' };
  }
}

export const runAggregate: Aggregate<RunState, RunEvent> = {
  stream: (tenantId, runId) => `evaluation.run-${tenantId}-${runId}`,
  eventTypes: Object.keys(RunEventSchemas) as RunEvent['type'][],
  initialState: { status: 'none' },
  evolve: evolveRun,
  read: readRunEvent,
  snapshot: { every: 100, version: 1, toJSON: (state) => state, fromJSON: (json) => json as RunState },
};
