import type { PlatformDeps } from '../../src/platform/context-module';
import { Conflict } from '../../src/platform/domain-errors';
import { type FactReader, type ReactionCommand, type Reactor, tenantOf } from '../../src/platform/reactors/reactor';
import type { ScheduledHandler } from '../../src/platform/scheduling/due-lane';
import { scheduleDecider, type ScheduledMessage, scheduleStream } from '../../src/platform/scheduling/schedule';
import { TERMINAL_TURN_EVENTS, turnAggregate, type TurnEvent, type TurnState } from '../../streams/agents/turn';
import { type FinishTurn, finishTurn } from './finish-turn';
import { localTurnElapsedMs } from './running-turns';
import { type ReleaseApprovalDecision, releaseApprovalDecision } from '../conversations/release-approval-decision';
import { ReviewerDecision } from '../../streams/conversations/conversation';
import { turnEnding } from './conversation-turns';
import type { RecordedEvent } from '../../src/platform/eventstore/types';

type Started = Extract<TurnEvent, { type: 'TurnStarted' }>['data'];

export const TURN_DEADLINE_HANDLER = 'agents.turn-deadline';

/**
 * How long after a turn's own deadline the scheduler ends it: the turn aborts itself at
 * AGENT_TURN_TIMEOUT_MS on its instance's monotonic clock and then stores its reply and its
 * end, which takes a moment; the scheduled message is due by the wall clock of whichever
 * instance leads, which may run ahead of the turn's. A quarter of the timeout, between 10 s and
 * 60 s, covers both (docs/agents.md, "Turn deadlines").
 */
export function deadlineMarginMs(timeoutMs: number): number {
  return Math.min(60_000, Math.max(10_000, Math.round(timeoutMs / 4)));
}

/** Given a turn that started, then the message that ends it if it is still running past its deadline and the margin. */
export function deadlineMessage(started: Started, timeoutMs: number): Omit<ScheduledMessage, 'tenantId'> {
  return {
    messageId: `turn-deadline-${started.executionId}`,
    dueAt: new Date(Date.parse(started.startedAt) + timeoutMs + deadlineMarginMs(timeoutMs)).toISOString(),
    handler: TURN_DEADLINE_HANDLER,
    payload: { execution_id: started.executionId },
  };
}

/**
 * Given the turn at its deadline, then how it is finished: a turn still running ends as
 * `error` through the normal finish (so its readers get the terminal frame and every
 * reaction to a finished turn happens); a turn that ended on its own is left alone. Its usage
 * is unknown (the process that ran it is gone or stuck), and stays unknown, never 0.
 */
export function deadlineFinish(state: TurnState, started: Started, timeoutMs: number): Omit<FinishTurn, 'type'> | null {
  if (state.status !== 'running') return null;
  const error = `the turn passed its deadline (${Math.round(timeoutMs / 1000)} s, AGENT_TURN_TIMEOUT_MS) without finishing`;
  return {
    outcome: {
      status: 'error',
      tokensUsed: null,
      costUsd: null,
      skillsInjected: [],
      thinkingMode: started.thinkingMode,
      referencedEntities: [],
      hitlApprovalId: null,
      hitlCheckpointType: null,
      error,
    },
    usage: {
      userId: started.userId,
      model: started.model,
      inputTokens: null,
      outputTokens: null,
      tokensUsed: null,
      costUsd: null,
    },
  };
}

/**
 * Given the events of a turn ended at its deadline, then the decision it consumed at
 * `resume_guard` and must give back (its process is gone or stuck: it acted on nothing it
 * stored an end for), or null when it resumed from none.
 */
export function consumedDecision(
  events: TurnEvent[],
  executionId: string,
): Omit<ReleaseApprovalDecision, 'type'> | null {
  const guard = events.find((e) => e.type === 'NodeCompleted' && e.data.node === 'resume_guard');
  if (guard?.type !== 'NodeCompleted' || guard.data.status !== 'resumed' || !guard.data.detail) return null;
  const d = guard.data.detail as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  const decision = ReviewerDecision.safeParse({
    decision: d.decision,
    reviewerId: d.reviewer_id,
    comments: text(d.comments),
    modifications: d.modifications ?? null,
    decidedAt: d.decided_at,
  });
  if (typeof d.approval_id !== 'string' || typeof d.checkpoint_type !== 'string' || !decision.success) return null;
  return { approvalId: d.approval_id, checkpointType: d.checkpoint_type, executionId, decision: decision.data };
}

/** The turns of a batch that started and are not seen ending in it: those that may need a deadline. */
export function startedWithoutEnd(events: RecordedEvent[]): RecordedEvent[] {
  const ended = new Set(
    events.filter((e) => (TERMINAL_TURN_EVENTS as readonly string[]).includes(e.type)).map((e) => e.stream),
  );
  return events.filter((e) => e.type === 'TurnStarted' && !ended.has(e.stream));
}

/**
 * Given a turn's start and whether it has ended, then the message that ends it at its deadline
 * (none for a turn that ended before the reaction ran: most turns on the embedded model).
 */
export function deadlineCommands(recorded: RecordedEvent, ended: boolean, timeoutMs: number): ReactionCommand[] {
  // The lane also brings the turns' ends (for its batches): nothing to do for those alone.
  if (recorded.type !== 'TurnStarted' || ended) return [];
  const started = turnAggregate.read(recorded);
  if (started.type !== 'TurnStarted') return [];
  const message = deadlineMessage(started.data, timeoutMs);
  return [
    {
      step: 'deadline',
      writes: [
        {
          decider: scheduleDecider,
          stream: scheduleStream(tenantOf(recorded), message.messageId),
          command: { type: 'Schedule', ...message },
        },
      ],
    },
  ];
}

interface DeadlineFacts {
  timeoutMs: number;
  /** The turns (by stream) that ended before the reaction ran. */
  ended: ReadonlySet<string>;
}

/**
 * Which of the turns started in `events` have ended already: one read per turn instead of a
 * scheduled message written now and fired later. A turn ending right after the read gets a
 * message, which then finds it ended and does nothing.
 */
async function deadlineFacts(events: RecordedEvent[], read: FactReader): Promise<DeadlineFacts> {
  const ended = new Set<string>();
  for (const recorded of events) {
    if (recorded.type !== 'TurnStarted') continue;
    const started = turnAggregate.read(recorded);
    if (started.type !== 'TurnStarted') continue;
    if (await turnEnding(read.store, tenantOf(recorded), started.data.executionId)) ended.add(recorded.stream);
  }
  return { timeoutMs: read.config.llm.turnTimeoutMs, ended };
}

/**
 * Turn started → its deadline is scheduled (the due-message lane fires it on the leader).
 * Paced: a turn on the embedded model ends in well under a second, so a batch read every
 * couple of seconds holds most turns' start and end together, and those need nothing at all.
 */
export const scheduleTurnDeadlineReactor: Reactor<DeadlineFacts, DeadlineFacts> = {
  name: 'agents.schedule-turn-deadline',
  handles: ['TurnStarted', ...TERMINAL_TURN_EVENTS],
  // Well inside the deadline itself, which is scheduled from the turn's start, not from here.
  paceMs: (config) => Math.min(2000, Math.floor(config.llm.turnTimeoutMs / 4)),
  facts: (recorded, read) => deadlineFacts([recorded], read),
  react: (recorded, facts) => deadlineCommands(recorded, facts.ended.has(recorded.stream), facts.timeoutMs),
  batchFacts: (events, read) => deadlineFacts(startedWithoutEnd(events), read),
  reactBatch: (events, facts) =>
    startedWithoutEnd(events).flatMap((started) =>
      deadlineCommands(started, facts.ended.has(started.stream), facts.timeoutMs).map((command) => ({
        cause: started,
        command,
      })),
    ),
};

async function endAtDeadline(message: ScheduledMessage, deps: PlatformDeps): Promise<void> {
  const executionId = String(message.payload.execution_id);
  // A turn this instance runs is timed by its own monotonic clock, not by a wall clock: it
  // aborts itself at its deadline and stores its end; only one past that and the margin is ended here.
  const elapsed = localTurnElapsedMs(executionId);
  const timeoutMs = deps.config.llm.turnTimeoutMs;
  if (elapsed !== undefined && elapsed < timeoutMs + deadlineMarginMs(timeoutMs)) return;
  const events = (await deps.store.readStream(turnAggregate.stream(message.tenantId, executionId))).map(
    turnAggregate.read,
  );
  const first = events[0];
  if (first?.type !== 'TurnStarted') return;
  const state = events.reduce(turnAggregate.evolve, turnAggregate.initialState);
  const finish = deadlineFinish(state, first.data, deps.config.llm.turnTimeoutMs);
  if (!finish) return;
  const context = { tenantId: message.tenantId, actorId: first.data.userId };
  const ended = await finishTurn(deps, context, executionId, finish).then(
    () => true,
    (error) => {
      // The turn finished on its own between the read and the write: nothing to end.
      if (!(error instanceof Conflict)) throw error;
      return false;
    },
  );
  const consumed = ended ? consumedDecision(events, executionId) : null;
  if (!consumed) return;
  const release = { type: 'ReleaseApprovalDecision' as const, ...consumed };
  await releaseApprovalDecision(deps, context, first.data.conversationId, release);
}

export const turnDeadlineHandler: ScheduledHandler = { name: TURN_DEADLINE_HANDLER, fire: endAtDeadline };
