import type { PlatformDeps } from '../../src/platform/context-module';
import type { PlatformMetrics } from '../../src/platform/observability/metrics';
import type { CommandContext } from '../../src/platform/command-handling/command-handler';
import { assertNever, type Decider } from '../../src/platform/command-handling/decider';
import { newId } from '../../src/platform/command-handling/idempotency';
import type { DomainPack } from './packs/pack';
import { runPacks } from './run-packs';
import { Conflict, NotFound, Unavailable } from '../../src/platform/domain-errors';
import {
  type AssessedEntity,
  assessedEntities,
  ASSESSMENT_BATCH_SIZE,
  assessmentAggregate,
  type AssessmentEvent,
  type AssessmentState,
  type GraphMark,
  packVerdicts,
  readAssessmentEvent,
} from '../../streams/compliance/assessment';
import { planPortfolioAssessment } from './plan-assessment';
import {
  type AssessmentRunEvent,
  assessmentRunsAggregate,
  type AssessmentRunsState,
  assessmentRunsStream,
  type PortfolioBaseline,
} from '../../streams/compliance/runs';

export interface RecordAssessment {
  type: 'RecordAssessment';
  assessmentId: string;
  scope: 'portfolio' | 'entity';
  entityId: string | null;
  domains: string[];
  failedDomains: Record<string, string>;
  /** The verdicts to record: all of them, or (a portfolio re-assessed) only those that changed. */
  entities: AssessedEntity[];
  /** The portfolio's counts when `entities` holds only the changed verdicts. */
  totals?: { entities: number; cells: number };
  graph?: GraphMark;
  reassessed?: number;
  /**
   * The date the packs judged (YYYY-MM-DD), taken when the run started: recorded as
   * `assessedOn` even when the run records after midnight, so the next day's run is not
   * taken for a re-run of the day it never judged. Absent: the recording time's date.
   */
  judgedOn?: string;
}

/**
 * Records the packs' verdicts as the day's snapshot: batches of `VerdictsAssessed`, then
 * `AssessmentRecorded`. Every pack failing records nothing (503); some failing records the
 * rest with `status: 'partial'`.
 */
export function decideRecordAssessment(
  command: RecordAssessment,
  state: AssessmentState,
  now: Date,
): AssessmentEvent[] {
  switch (command.type) {
    case 'RecordAssessment': {
      if (state.status === 'recorded') throw new Conflict('this assessment is already recorded');
      const failed = Object.keys(command.failedDomains);
      if (command.domains.length > 0 && failed.length === command.domains.length) {
        throw new Unavailable(
          `every compliance domain failed: ${failed.map((d) => `${d} (${command.failedDomains[d]})`).join('; ')}`,
        );
      }
      const events: AssessmentEvent[] = [];
      for (let i = 0; i < command.entities.length; i += ASSESSMENT_BATCH_SIZE) {
        events.push({
          type: 'VerdictsAssessed',
          data: packVerdicts(command.assessmentId, events.length, command.entities.slice(i, i + ASSESSMENT_BATCH_SIZE)),
        });
      }
      events.push({
        type: 'AssessmentRecorded',
        data: {
          assessmentId: command.assessmentId,
          scope: command.scope,
          entityId: command.entityId,
          assessedOn: command.judgedOn ?? now.toISOString().slice(0, 10),
          assessedAt: now.toISOString(),
          domains: command.domains,
          failedDomains: command.failedDomains,
          status: failed.length > 0 ? 'partial' : 'complete',
          entities: command.totals?.entities ?? command.entities.length,
          cells: command.totals?.cells ?? command.entities.reduce((n, e) => n + e.cells.length, 0),
          ...(command.graph ? { graph: command.graph } : {}),
          ...(command.reassessed !== undefined ? { reassessed: command.reassessed } : {}),
        },
      });
      return events;
    }
    default:
      return assertNever(command.type);
  }
}

const decider: Decider<RecordAssessment, AssessmentState, AssessmentEvent> = {
  ...assessmentAggregate,
  decide: decideRecordAssessment,
};

type Recorded = Extract<AssessmentEvent, { type: 'AssessmentRecorded' }>['data'];

/** The entities and verdict cells this run evaluated (a portfolio run re-evaluates only what changed). */
function countAssessed(metrics: PlatformMetrics, command: RecordAssessment): void {
  metrics.complianceEntities.inc({ scope: command.scope }, command.entities.length);
  const cells = new Map<string, number>();
  for (const entity of command.entities)
    for (const cell of entity.cells) cells.set(cell.color, (cells.get(cell.color) ?? 0) + 1);
  for (const [color, count] of cells) metrics.complianceCells.inc({ color }, count);
}

/** The assess response: the recorded snapshot, plus the verdicts when one entity was assessed. */
export function assessmentView(recorded: Recorded, entities: AssessedEntity[]) {
  const view: Record<string, unknown> = {
    assessment_id: recorded.assessmentId,
    scope: recorded.scope,
    entity_id: recorded.entityId,
    status: recorded.status,
    assessed_on: recorded.assessedOn,
    assessed_at: recorded.assessedAt,
    domains: recorded.domains,
    failed_domains: recorded.failedDomains,
    entities: recorded.entities,
    cells: recorded.cells,
  };
  if (recorded.scope === 'entity') {
    const cells = entities[0]?.cells ?? [];
    view.results = Object.fromEntries(
      cells.map((c) => [
        c.domain,
        {
          color: c.color,
          bucket: c.bucket,
          due_date: c.dueDate,
          anomaly: c.anomaly,
          reason: c.reason,
          details: { ...c.facts, anomaly: c.anomaly },
        },
      ]),
    );
  }
  return view;
}

/** The previous run planned on is no longer the newest: plan again on what came between. */
export class StaleAssessmentPlan extends Conflict {}

interface RecordAssessmentRun {
  type: 'RecordAssessmentRun';
  /** The newest run when this one was planned (null: none). */
  after: string | null;
  assessmentId: string;
  scope: 'portfolio' | 'entity';
  entityId: string | null;
  judgedOn: string;
  baseline?: PortfolioBaseline;
}

/** A run lands only on the runs stream it was planned on: another run in between makes its plan stale. */
export function decideRecordAssessmentRun(
  command: RecordAssessmentRun,
  state: AssessmentRunsState,
): AssessmentRunEvent[] {
  if (state.lastRun !== command.after)
    throw new StaleAssessmentPlan(`assessment ${state.lastRun} was recorded while this one was planned`);
  const { assessmentId, scope, entityId, judgedOn, baseline } = command;
  return [
    {
      type: 'AssessmentRunRecorded',
      data: { assessmentId, scope, entityId, judgedOn, ...(baseline ? { baseline } : {}) },
    },
  ];
}

const runsDecider: Decider<RecordAssessmentRun, AssessmentRunsState, AssessmentRunEvent> = {
  ...assessmentRunsAggregate,
  decide: decideRecordAssessmentRun,
};

/** Plans racing each other give up after this many rounds (each round another run landed first). */
const MAX_PLANS = 5;

/**
 * The tenant's runs as the next plan starts from them, and where the newest run's verdicts end
 * in the log. Read from the newest back to the newest portfolio run (one page, nearly always),
 * never the whole stream.
 */
async function runsSoFar(store: PlatformDeps['store'], tenantId: string) {
  const stream = assessmentRunsStream(tenantId);
  let state: AssessmentRunsState = assessmentRunsAggregate.initialState;
  let from: bigint | undefined;
  for (;;) {
    const page = await store.readStream(stream, { direction: 'backwards', limit: 50, from });
    for (const event of page) {
      const run = assessmentRunsAggregate.read(event);
      state = { lastRun: state.lastRun ?? run.data.assessmentId, portfolio: run.data.baseline ?? null };
      if (state.portfolio) break;
    }
    const oldest = page[page.length - 1];
    if (state.portfolio || page.length < 50 || !oldest || oldest.revision === 0n) break;
    from = oldest.revision - 1n;
  }
  if (!state.lastRun) return { state, verdictsAt: null };
  const [last] = await store.readStream(assessmentAggregate.stream(tenantId, state.lastRun), {
    direction: 'backwards',
    limit: 1,
  });
  return { state, verdictsAt: last?.position ?? null };
}

const VERDICT_TYPES = ['VerdictsAssessed', 'EntitiesAssessed', 'AssessmentRecorded'] as const;

/**
 * POST /compliance/assess[/{entity_id}], the daily run and the re-assessment after a filing:
 * run the packs over the graph as it is now (reads; for the portfolio, only where it changed
 * since the previous run: `planPortfolioAssessment`), then record the verdicts (the one
 * write). A tenant's runs are serialised on its runs stream: each is planned on the newest
 * run (once the dashboard's read model holds that run's verdicts, which the plan compares
 * with) and recorded together with the runs stream at the revision it read; a run that finds
 * another recorded in between plans again. The day judged is taken at each planning and is
 * the day recorded. The assessment id derives from the Idempotency-Key, so a retried request
 * records nothing new and answers from the events the first one recorded (never from a read
 * model that may still be catching up).
 */
export async function assess(
  deps: Pick<PlatformDeps, 'knex' | 'handle' | 'clock' | 'store' | 'metrics'> &
    Partial<Pick<PlatformDeps, 'projections' | 'config'>>,
  packs: DomainPack<any>[],
  context: CommandContext,
  entityId?: string,
) {
  const scope = entityId === undefined ? 'portfolio' : 'entity';
  const end = deps.metrics.complianceRunDuration.startTimer({ scope });
  try {
    const view = await assessAndRecord(deps, packs, context, entityId);
    end({ status: String(view.status) });
    return view;
  } catch (error) {
    end({ status: 'failed' });
    throw error;
  }
}

async function assessAndRecord(
  deps: Pick<PlatformDeps, 'knex' | 'handle' | 'clock' | 'store' | 'metrics'> &
    Partial<Pick<PlatformDeps, 'projections' | 'config'>>,
  packs: DomainPack<any>[],
  context: CommandContext,
  entityId?: string,
) {
  const assessmentId = newId(context, 'compliance.assessment');
  const stream = assessmentAggregate.stream(context.tenantId, assessmentId);
  const answered = await answerRecorded(deps.store, stream);
  if (answered) return answered;
  for (let plan = 1; ; plan++) {
    const { state, verdictsAt } = await runsSoFar(deps.store, context.tenantId);
    // Only a portfolio plan compares with the current verdicts; one entity's run records all of its own.
    if (entityId === undefined && verdictsAt) {
      if (!deps.projections || !deps.config) throw new Error('a portfolio assessment waits for the dashboard');
      if (!(await deps.projections.waitFor(verdictsAt, deps.config.projectionWaitMs, VERDICT_TYPES)))
        throw new Unavailable('the previous assessment is not yet in the dashboard; please retry');
    }
    const today = deps.clock().toISOString().slice(0, 10);
    let command: RecordAssessment;
    let baseline: PortfolioBaseline | undefined;
    if (entityId === undefined) {
      const { baseline: next, ...plan } = await planPortfolioAssessment(
        deps,
        context.tenantId,
        packs,
        today,
        state.portfolio,
      );
      baseline = { assessmentId, ...next };
      command = {
        type: 'RecordAssessment',
        assessmentId,
        scope: 'portfolio',
        entityId: null,
        ...plan,
        judgedOn: today,
      };
    } else {
      const run = await runPacks(deps.knex, context.tenantId, packs, today, { entityId });
      if (run.found === 0) throw new NotFound('No such entity');
      command = {
        type: 'RecordAssessment',
        assessmentId,
        scope: 'entity',
        entityId,
        entities: run.entities,
        domains: run.domains,
        failedDomains: run.failedDomains,
        judgedOn: today,
      };
    }
    const { entities } = command;
    try {
      const [result] = await deps.handle.together(
        [
          { decider, stream, command },
          {
            decider: runsDecider,
            stream: assessmentRunsStream(context.tenantId),
            command: {
              type: 'RecordAssessmentRun',
              after: state.lastRun,
              assessmentId,
              scope: command.scope,
              entityId: command.entityId,
              judgedOn: today,
              baseline,
            },
          },
        ] as const,
        context,
      );
      const appended = result.events.find((e) => e.type === 'AssessmentRecorded');
      if (appended?.type === 'AssessmentRecorded') {
        countAssessed(deps.metrics, command);
        return assessmentView(appended.data, entities);
      }
    } catch (error) {
      if (!(error instanceof StaleAssessmentPlan) || plan >= MAX_PLANS) throw error;
      continue;
    }
    // Recorded by a request with the same key meanwhile: answer what it recorded.
    const again = await answerRecorded(deps.store, stream);
    if (again) return again;
    throw new Conflict('this assessment is still being recorded');
  }
}

/** The answer of an assessment already recorded on `stream` (a retried request), or null. */
async function answerRecorded(store: PlatformDeps['store'], stream: string) {
  const [last] = await store.readStream(stream, { direction: 'backwards', limit: 1 });
  if (!last) return null;
  const recorded = readAssessmentEvent(last);
  if (recorded.type !== 'AssessmentRecorded') throw new Conflict('this assessment is still being recorded');
  let first: AssessedEntity[] = [];
  if (recorded.data.scope === 'entity') {
    const [batch] = await store.readStream(stream, { limit: 1 });
    first = assessedEntities(readAssessmentEvent(batch));
  }
  return assessmentView(recorded.data, first);
}
