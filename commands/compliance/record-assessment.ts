import type { PlatformDeps } from '../../src/context-module';
import type { CommandContext } from '../../src/command-handling/command-handler';
import { assertNever, Decider } from '../../src/command-handling/decider';
import { newId } from '../../src/command-handling/idempotency';
import type { DomainPack } from '../../src/compliance/packs/pack';
import { runPacks } from '../../src/compliance/run-packs';
import { Conflict, NotFound, Unavailable } from '../../src/domain/errors';
import { AssessedEntity, ASSESSMENT_BATCH_SIZE, assessmentAggregate, AssessmentEvent, AssessmentState } from '../../streams/compliance/assessment';

export interface RecordAssessment {
  type: 'RecordAssessment';
  assessmentId: string;
  scope: 'portfolio' | 'entity';
  entityId: string | null;
  domains: string[];
  failedDomains: Record<string, string>;
  entities: AssessedEntity[];
}

/**
 * Records the packs' verdicts as the day's snapshot: batches of `EntitiesAssessed`, then
 * `AssessmentRecorded`. Every pack failing records nothing (503); some failing records the
 * rest with `status: 'partial'`.
 */
export function decideRecordAssessment(command: RecordAssessment, state: AssessmentState, now: Date): AssessmentEvent[] {
  switch (command.type) {
    case 'RecordAssessment': {
      if (state.status === 'recorded') throw new Conflict('this assessment is already recorded');
      const failed = Object.keys(command.failedDomains);
      if (command.domains.length > 0 && failed.length === command.domains.length) {
        throw new Unavailable(`every compliance domain failed: ${failed.map((d) => `${d} (${command.failedDomains[d]})`).join('; ')}`);
      }
      const events: AssessmentEvent[] = [];
      for (let i = 0; i < command.entities.length; i += ASSESSMENT_BATCH_SIZE) {
        events.push({ type: 'EntitiesAssessed', data: { assessmentId: command.assessmentId, batch: events.length, entities: command.entities.slice(i, i + ASSESSMENT_BATCH_SIZE) } });
      }
      events.push({
        type: 'AssessmentRecorded',
        data: {
          assessmentId: command.assessmentId,
          scope: command.scope,
          entityId: command.entityId,
          assessedOn: now.toISOString().slice(0, 10),
          assessedAt: now.toISOString(),
          domains: command.domains,
          failedDomains: command.failedDomains,
          status: failed.length > 0 ? 'partial' : 'complete',
          entities: command.entities.length,
          cells: command.entities.reduce((n, e) => n + e.cells.length, 0),
        },
      });
      return events;
    }
    default:
      return assertNever(command.type);
  }
}

const decider: Decider<RecordAssessment, AssessmentState, AssessmentEvent> = { ...assessmentAggregate, decide: decideRecordAssessment };

/**
 * POST /compliance/assess[/{entity_id}]: run the packs over the graph as it is now (reads),
 * then record the verdicts (the one write). The assessment id derives from the
 * Idempotency-Key, so a retried request records nothing new.
 */
export async function assess(deps: Pick<PlatformDeps, 'knex' | 'handle' | 'clock'>, packs: DomainPack<any>[], context: CommandContext, entityId?: string): Promise<string> {
  const assessmentId = newId(context, 'compliance.assessment');
  const today = deps.clock().toISOString().slice(0, 10);
  const run = await runPacks(deps.knex, context.tenantId, packs, today, entityId);
  if (entityId !== undefined && run.found === 0) throw new NotFound('No such entity');
  const { entities, domains, failedDomains } = run;
  const command: RecordAssessment = { type: 'RecordAssessment', assessmentId, scope: entityId === undefined ? 'portfolio' : 'entity', entityId: entityId ?? null, entities, domains, failedDomains };
  await deps.handle(decider, assessmentAggregate.stream(context.tenantId, assessmentId), command, context);
  return assessmentId;
}
