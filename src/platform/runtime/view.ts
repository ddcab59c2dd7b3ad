import type { Knex } from 'knex';
import { Conflict, NotFound } from '../domain-errors';
import { positionToString } from '../eventstore/types';
import {
  type DeadLetter,
  DEAD_LETTERS_TABLE,
  findDeadLetter,
  openDeadLetters,
  type RetryOutcome,
} from '../projection-runner/dead-letters';
import type { LaneReport } from '../projection-runner/lane-runtime';
import { INSTANCE_NAME, lockHolders, PROJECTOR_LOCK_KEY } from '../projection-runner/leader-lock';
import { REACTOR_LOCK_KEY } from '../reactors/reactor-lock';
import { REACTOR_PREFIX } from '../reactors/runner';
import { SCHEDULER_LOCK_KEY } from '../scheduling/due-lane';
import type { CommandHandler } from '../command-handling/command-types';
import {
  type DeadLetteredMessage,
  deadLetteredMessages,
  retryScheduled,
  SCHEDULE_TABLE,
  scheduledCounts,
  scheduledSummary,
} from '../scheduling/schedule';
import {
  type DeadLetterView,
  type LaneHealth,
  laneState,
  type LeadershipName,
  type ParkedMessageView,
  type RuntimeHealth,
  type RuntimeView,
  type ScheduledView,
  type SystemLane,
} from './report';

/** A kind of lane as the view needs it: its lag report and its dead-letter retry. */
interface Lanes {
  lanesReport(): Promise<LaneReport[]>;
  retryLetters(letters: DeadLetter[]): Promise<RetryOutcome>;
}

export interface RuntimeViewOptions {
  knex: Knex;
  projections: Lanes;
  reactors: Lanes & { readonly names: string[] };
  /** Lists its one lane, kind `scheduler`. */
  scheduler: { lanesReport(): Promise<LaneReport[]> };
  lagDegradedS: number;
  clock: () => Date;
  /** The command handler (a retried scheduled message is an event of its stream); read when a retry runs. */
  handle: () => CommandHandler;
}

/** How many upcoming scheduled messages the System page lists. */
const NEXT_SCHEDULED = 10;
/** How many parked scheduled messages it lists. */
const PARKED_SCHEDULED = 100;

const parkedView = (m: DeadLetteredMessage): ParkedMessageView => ({
  message_id: m.messageId,
  tenant_id: m.tenantId,
  handler: m.handler,
  due_at: m.dueAt,
  attempts: m.attempts,
  error: m.error,
  dead_lettered_at: m.deadLetteredAt,
});

function deadLetterView(letter: DeadLetter & { resolvedAt?: Date | null }): DeadLetterView {
  const reactor = letter.projector.startsWith(REACTOR_PREFIX);
  return {
    id: letter.id,
    lane: reactor ? letter.projector.slice(REACTOR_PREFIX.length) : letter.projector,
    kind: reactor ? 'reactor' : 'projection',
    event_type: letter.type,
    event_id: letter.eventId,
    stream: letter.stream,
    position: positionToString(letter.position),
    error: letter.error,
    attempts: letter.attempts,
    created_at: new Date(letter.createdAt).toISOString(),
    resolved_at: letter.resolvedAt ? letter.resolvedAt.toISOString() : null,
  };
}

/**
 * The one view of the processing runtime behind `/health` and the System page: every lane's
 * lag (from the runners' own lane reports), who leads, the scheduled messages, the dead letters
 * and their retry (the runners' `retryLetters`, which `ops … retry` uses too).
 */
export function createRuntimeView(options: RuntimeViewOptions): RuntimeView {
  const { knex, projections, reactors, scheduler, lagDegradedS, clock, handle } = options;

  const locks = (): Array<[LeadershipName, number]> => [
    ['projections', PROJECTOR_LOCK_KEY],
    ...(reactors.names.length > 0 ? [['reactors', REACTOR_LOCK_KEY] as [LeadershipName, number]] : []),
    ['scheduler', SCHEDULER_LOCK_KEY],
  ];

  async function laneReports(): Promise<LaneHealth[]> {
    const reports = await Promise.all([projections.lanesReport(), reactors.lanesReport(), scheduler.lanesReport()]);
    return reports.flat();
  }

  async function lanes(): Promise<{ lanes: LaneHealth[]; holders: Map<number, string> }> {
    const keys = locks().map(([, key]) => key);
    const [all, holders] = await Promise.all([laneReports(), lockHolders(knex, keys)]);
    return { lanes: all, holders };
  }

  /**
   * The scheduled messages as the System page shows them: the read to re-point (with the
   * gauges' counts) when the scheduler's lane moves.
   */
  async function readScheduled(): Promise<ScheduledView> {
    const [summary, parked] = await Promise.all([
      scheduledSummary(knex, clock(), { overdueAfterS: lagDegradedS, next: NEXT_SCHEDULED }),
      deadLetteredMessages(knex),
    ]);
    return {
      parked: parked.slice(0, PARKED_SCHEDULED).map(parkedView),
      due: summary.due,
      overdue: summary.overdue,
      retrying: summary.retrying,
      dead_lettered: summary.deadLettered,
      oldest_wait_s: summary.oldestWaitS,
      next: summary.next.map((m) => ({
        message_id: m.messageId,
        tenant_id: m.tenantId,
        handler: m.handler,
        due_at: m.dueAt,
        attempts: m.attempts ?? 0,
      })),
    };
  }

  async function openCounts(): Promise<Map<string, number>> {
    const rows = await knex(DEAD_LETTERS_TABLE)
      .whereNull('resolved_at')
      .groupBy('projector')
      .select('projector', knex.raw('count(*)::int AS open'));
    return new Map(rows.map((r: { projector: string; open: number }) => [r.projector, Number(r.open)]));
  }

  /** The scheduler's dead letters are its parked messages, not rows of the dead-letter table. */
  function withDeadLetters(all: LaneHealth[], open: Map<string, number>, parked: number): SystemLane[] {
    const lettersOf = (lane: LaneHealth) =>
      lane.kind === 'scheduler'
        ? parked
        : (open.get(lane.kind === 'reactor' ? `${REACTOR_PREFIX}${lane.name}` : lane.name) ?? 0);
    return all.map((lane) => ({
      ...lane,
      dead_letters: lettersOf(lane),
      state: laneState(lane, lettersOf(lane), lagDegradedS),
    }));
  }

  return {
    async health(): Promise<RuntimeHealth> {
      const { lanes: all, holders } = await lanes();
      return {
        lanes: all,
        leaderless: locks()
          .filter(([, key]) => !holders.has(key))
          .map(([name]) => name),
        lagDegradedS,
      };
    },

    async system() {
      const [{ lanes: all, holders }, open, scheduled] = await Promise.all([lanes(), openCounts(), readScheduled()]);
      return {
        instance: INSTANCE_NAME,
        lanes: withDeadLetters(all, open, scheduled.dead_lettered),
        leadership: locks().map(([name, key]) => ({
          name,
          instance: holders.get(key) ?? null,
          this_instance: holders.get(key) === INSTANCE_NAME,
        })),
        scheduled,
        lag_degraded_after_s: lagDegradedS,
      };
    },

    async gauges() {
      const [all, open, counts] = await Promise.all([
        laneReports(),
        openCounts(),
        scheduledCounts(knex, clock(), { overdueAfterS: lagDegradedS }),
      ]);
      return {
        lanes: withDeadLetters(all, open, counts.deadLettered),
        scheduled: { due: counts.due, overdue: counts.overdue },
      };
    },

    async deadLetters(limit) {
      return (await openDeadLetters(knex, undefined, limit)).map(deadLetterView);
    },

    async retryDeadLetter(id) {
      const letter = await findDeadLetter(knex, id);
      if (!letter) throw new NotFound('Dead letter not found');
      if (letter.resolvedAt) throw new Conflict('Dead letter already resolved');
      const lanesOf = letter.projector.startsWith(REACTOR_PREFIX) ? reactors : projections;
      const outcome = await lanesOf.retryLetters([letter]);
      if (outcome.failures.length > 0)
        throw new Conflict(`The event still fails: ${outcome.failures[0].error}`, { dead_letter_id: id });
      if (outcome.resolved === 0) throw new Conflict('Dead letter already resolved');
      return deadLetterView((await findDeadLetter(knex, id))!);
    },

    async retryScheduledMessage(tenantId, messageId, actorId) {
      const row = await knex(SCHEDULE_TABLE).where({ tenant_id: tenantId, message_id: messageId }).first();
      if (!row) throw new NotFound('Scheduled message not found');
      const parked = (await deadLetteredMessages(knex)).find(
        (m) => m.tenantId === tenantId && m.messageId === messageId,
      );
      // The stream decides: a message that is not parked (fired, waiting, retried already) appends nothing.
      if (!parked || !(await retryScheduled(handle(), { tenantId, actorId }, messageId)))
        throw new Conflict('Scheduled message is not dead-lettered');
      return parkedView(parked);
    },
  };
}
