import { listTenants } from '../../queries/identity/tenants';
import type { DomainPack } from './packs/pack';
import type { PlatformDeps } from '../../src/platform/context-module';
import type { ScheduledHandler } from '../../src/platform/scheduling/due-lane';
import { scheduleMessage, type ScheduledMessage } from '../../src/platform/scheduling/schedule';
import { assess } from './record-assessment';

export const DAILY_ASSESSMENT_HANDLER = 'compliance.daily-assessment';
/** The schedule stream of platform-wide messages (not one tenant's). */
const PLATFORM_SCOPE = 'platform';
const SCHEDULER_ACTOR = 'system:scheduler';

/** The first `HH:MM` UTC strictly after `now`. */
export function nextAssessmentAt(now: Date, assessAt: string): Date {
  const [h, m] = assessAt.split(':').map(Number);
  const at = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), h, m));
  if (at <= now) at.setUTCDate(at.getUTCDate() + 1);
  return at;
}

/** One message per due instant: scheduling it again (every instance starts, every run ends) appends nothing. */
export function dailyAssessmentMessage(dueAt: Date): Omit<ScheduledMessage, 'tenantId'> {
  const iso = dueAt.toISOString();
  return {
    messageId: `daily-assessment-${iso.slice(0, 16)}`,
    dueAt: iso,
    handler: DAILY_ASSESSMENT_HANDLER,
    payload: { due_at: iso },
  };
}

export async function scheduleDailyAssessment(
  deps: Pick<PlatformDeps, 'handle' | 'clock' | 'config'>,
  after: Date = deps.clock(),
): Promise<void> {
  await scheduleMessage(
    deps.handle,
    { tenantId: PLATFORM_SCOPE, actorId: SCHEDULER_ACTOR },
    dailyAssessmentMessage(nextAssessmentAt(after, deps.config.compliance.assessAt)),
  );
}

/**
 * The daily assessment: every tenant's portfolio is assessed on the leader, so
 * trends and weekly deltas build up without an outside cron, then the next day's is
 * scheduled. Each tenant's assessment id derives from the message, so a handler run again
 * after a crash records no tenant twice; one tenant failing does not stop the others, but
 * fails the run so it is retried (the tenants done already replay as no-ops).
 */
export function dailyAssessmentHandler(packs: DomainPack<any>[]): ScheduledHandler {
  return {
    name: DAILY_ASSESSMENT_HANDLER,
    async fire(message, deps) {
      const failures: string[] = [];
      for (const tenant of await listTenants(deps.knex)) {
        await assess(deps, packs, {
          tenantId: tenant.id,
          actorId: SCHEDULER_ACTOR,
          idempotencyKey: `${message.messageId}:${tenant.id}`,
        }).catch((error) => {
          deps.logger.error({ err: error, tenantId: tenant.id }, 'daily assessment of a tenant failed');
          failures.push(tenant.id);
        });
      }
      await scheduleDailyAssessment(deps, new Date(message.dueAt));
      if (failures.length > 0)
        throw new Error(`daily assessment failed for ${failures.length} tenant(s): ${failures.join(', ')}`);
    },
  };
}
