import type { LaneReport } from '../projection-runner/lane-runtime';

/**
 * What the processing runtime says about itself, in the shapes `/health` and the System page
 * share (docs/runtime.md, docs/operations.md). Types only: the deps name them without pulling
 * the runners in.
 */

/** One lane as /health reports it: a projection, a reactor or the scheduler. */
export type LaneHealth = Omit<LaneReport, 'kind'> & { kind: LaneReport['kind'] | 'scheduler' };

/** Every lane's lag, and which leaderships nobody holds. */
export interface RuntimeHealth {
  lanes: LaneHealth[];
  /** Leaderships (`projections`, `reactors`, `scheduler`) no instance holds now: their lanes run nowhere. */
  leaderless: string[];
  /** A lane whose oldest pending event is older than this is `behind`. */
  lagDegradedS: number;
}

/** A lane's state in words, the most urgent first when several hold. */
export type LaneStateName = 'subscription_down' | 'dead_lettered' | 'behind' | 'running' | 'caught_up';

export interface SystemLane extends LaneHealth {
  state: LaneStateName;
  /** Its unresolved dead letters (the scheduler: its dead-lettered messages). */
  dead_letters: number;
}

export type LeadershipName = 'projections' | 'reactors' | 'scheduler';

export interface Leadership {
  name: LeadershipName;
  /** The instance holding it (`host:pid`), null when none does. */
  instance: string | null;
  /** Whether that is the instance answering. */
  this_instance: boolean;
}

export interface ScheduledView {
  due: number;
  overdue: number;
  retrying: number;
  dead_lettered: number;
  oldest_wait_s: number;
  next: Array<{ message_id: string; tenant_id: string; handler: string; due_at: string; attempts: number }>;
  /** Parked after their handler kept failing, oldest first: each can be made due again. */
  parked: ParkedMessageView[];
}

export interface ParkedMessageView {
  message_id: string;
  tenant_id: string;
  handler: string;
  due_at: string;
  attempts: number;
  error: string;
  dead_lettered_at: string;
}

export interface SystemReport {
  /** The instance answering (`host:pid`). */
  instance: string;
  lanes: SystemLane[];
  leadership: Leadership[];
  scheduled: ScheduledView;
  lag_degraded_after_s: number;
}

/**
 * What the lane gauges read on every scrape: the System page's lanes and scheduled backlog,
 * without its lists and leaderships, which a scrape would read for nothing.
 */
export interface RuntimeGauges {
  lanes: SystemLane[];
  scheduled: Pick<ScheduledView, 'due' | 'overdue'>;
}

export interface DeadLetterView {
  id: string;
  /** The lane's name (a projector's or a reactor's, without the checkpoint prefix). */
  lane: string;
  kind: 'projection' | 'reactor';
  event_type: string;
  event_id: string;
  stream: string;
  position: string;
  error: string;
  attempts: number;
  created_at: string;
  resolved_at: string | null;
}

/** The runtime as the admin routes see it (the composition root builds it: runtime/view.ts). */
export interface RuntimeView {
  health(): Promise<RuntimeHealth>;
  system(): Promise<SystemReport>;
  gauges(): Promise<RuntimeGauges>;
  deadLetters(limit: number): Promise<DeadLetterView[]>;
  /** Applies or reacts to one dead letter again: NotFound, Conflict (resolved already, or it still fails). */
  retryDeadLetter(id: string): Promise<DeadLetterView>;
  /**
   * Makes a dead-lettered scheduled message due again, as `actorId` (`ops schedule retry` does
   * the same): NotFound, Conflict when it is not parked.
   */
  retryScheduledMessage(tenantId: string, messageId: string, actorId: string): Promise<ParkedMessageView>;
}

/** A lane's state from its figures: what an operator must look at first. */
export function laneState(lane: LaneHealth, deadLetters: number, lagDegradedS: number): LaneStateName {
  if (lane.subscribed === false) return 'subscription_down';
  if (deadLetters > 0) return 'dead_lettered';
  if (lane.lag_seconds > lagDegradedS) return 'behind';
  return lane.lag_events > 0 ? 'running' : 'caught_up';
}
