import type { Knex } from 'knex';
import type { CommandContext, CommandHandler } from '../command-handling/command-types';
import type { Decider } from '../command-handling/decider';
import type { Projector } from '../projection-runner/projector';
import type { RecordedEvent } from '../eventstore/types';

/**
 * "At time T, handle command C" as events: a scheduled message is a stream of
 * its own, `platform.schedule-<tenant>-<messageId>`, with `MessageScheduled` and, once its
 * handler ran, `ScheduledMessageFired`. The id is chosen by the scheduler (derived from what
 * the message is about), so scheduling the same thing twice appends nothing, and firing
 * twice appends nothing twice. A message whose handler keeps failing is parked with
 * `ScheduledMessageDeadLettered` (like a projector's dead letter: visible in /health and
 * `ops schedule status`, never lost) until `ScheduledMessageRetried` makes it due again.
 */
export interface ScheduledMessage {
  messageId: string;
  tenantId: string;
  dueAt: string;
  /** A handler name registered by a context (`ContextModule.scheduledHandlers`). */
  handler: string;
  payload: Record<string, unknown>;
  /** Failed firings so far (kept in the stream, so a new leader goes on counting). */
  attempts?: number;
}

export type ScheduleEvent =
  | {
      type: 'MessageScheduled';
      data: { messageId: string; dueAt: string; handler: string; payload: Record<string, unknown> };
    }
  | { type: 'ScheduledMessageFired'; data: { messageId: string; firedAt: string } }
  | {
      type: 'ScheduledMessageFailed';
      data: { messageId: string; attempts: number; error: string; failedAt: string; retryAt: string };
    }
  | {
      type: 'ScheduledMessageDeadLettered';
      data: { messageId: string; attempts: number; error: string; deadLetteredAt: string };
    }
  | { type: 'ScheduledMessageRetried'; data: { messageId: string; retriedAt: string } };

export type ScheduleState =
  { status: 'none' } | { status: 'scheduled' | 'fired' | 'dead_lettered'; messageId: string; attempts: number };

export type ScheduleCommand =
  | { type: 'Schedule'; messageId: string; dueAt: string; handler: string; payload: Record<string, unknown> }
  | { type: 'Fire' }
  | { type: 'Fail'; error: string; retryAt: string }
  | { type: 'DeadLetter'; attempts: number; error: string }
  | { type: 'Retry' };

export const SCHEDULE_EVENT_TYPES = [
  'MessageScheduled',
  'ScheduledMessageFired',
  'ScheduledMessageFailed',
  'ScheduledMessageDeadLettered',
  'ScheduledMessageRetried',
] as const;

export const scheduleStream = (tenantId: string, messageId: string) => `platform.schedule-${tenantId}-${messageId}`;

export const scheduleDecider: Decider<ScheduleCommand, ScheduleState, ScheduleEvent> = {
  initialState: { status: 'none' },
  evolve(state, event) {
    if (event.type === 'MessageScheduled') return { status: 'scheduled', messageId: event.data.messageId, attempts: 0 };
    if (state.status === 'none') return state;
    if (event.type === 'ScheduledMessageFailed') return { ...state, attempts: event.data.attempts };
    if (event.type === 'ScheduledMessageRetried') return { ...state, status: 'scheduled', attempts: 0 };
    return { ...state, status: event.type === 'ScheduledMessageFired' ? 'fired' : 'dead_lettered' };
  },
  decide(command, state, now) {
    if (command.type === 'Schedule') {
      if (state.status !== 'none') return [];
      const { messageId, dueAt, handler, payload } = command;
      return [{ type: 'MessageScheduled', data: { messageId, dueAt, handler, payload } }];
    }
    if (state.status === 'none') return [];
    const at = now.toISOString();
    // Each transition happens once: a second lane, a replay or a retried ops call appends nothing.
    if (command.type === 'Retry')
      return state.status === 'dead_lettered'
        ? [{ type: 'ScheduledMessageRetried', data: { messageId: state.messageId, retriedAt: at } }]
        : [];
    if (state.status !== 'scheduled') return [];
    if (command.type === 'Fail') {
      const data = {
        messageId: state.messageId,
        attempts: state.attempts + 1,
        error: command.error.slice(0, 2000),
        failedAt: at,
        retryAt: command.retryAt,
      };
      return [{ type: 'ScheduledMessageFailed', data }];
    }
    if (command.type === 'DeadLetter')
      return [
        {
          type: 'ScheduledMessageDeadLettered',
          data: {
            messageId: state.messageId,
            attempts: command.attempts,
            error: command.error.slice(0, 2000),
            deadLetteredAt: at,
          },
        },
      ];
    return [{ type: 'ScheduledMessageFired', data: { messageId: state.messageId, firedAt: at } }];
  },
};

export async function scheduleMessage(
  handle: CommandHandler,
  context: CommandContext,
  message: Omit<ScheduledMessage, 'tenantId'>,
): Promise<void> {
  await handle(
    scheduleDecider,
    scheduleStream(context.tenantId, message.messageId),
    { type: 'Schedule', ...message },
    context,
  );
}

export async function markFired(handle: CommandHandler, context: CommandContext, messageId: string): Promise<void> {
  await handle(scheduleDecider, scheduleStream(context.tenantId, messageId), { type: 'Fire' }, context);
}

/** Records a failed firing and when to try again; answers the attempts counted so far. */
export async function markFailed(
  handle: CommandHandler,
  context: CommandContext,
  messageId: string,
  error: string,
  retryAt: Date,
): Promise<void> {
  await handle(
    scheduleDecider,
    scheduleStream(context.tenantId, messageId),
    { type: 'Fail', error, retryAt: retryAt.toISOString() },
    context,
  );
}

export async function markDeadLettered(
  handle: CommandHandler,
  context: CommandContext,
  messageId: string,
  attempts: number,
  error: string,
): Promise<void> {
  await handle(
    scheduleDecider,
    scheduleStream(context.tenantId, messageId),
    { type: 'DeadLetter', attempts, error },
    context,
  );
}

/** Makes a dead-lettered message due again (the lane fires it on its next tick). */
export async function retryScheduled(
  handle: CommandHandler,
  context: CommandContext,
  messageId: string,
): Promise<boolean> {
  const result = await handle(scheduleDecider, scheduleStream(context.tenantId, messageId), { type: 'Retry' }, context);
  return result.events.length > 0;
}

export const SCHEDULE_TABLE = 'platform_scheduled_messages';

/** The messages still to fire, by due time: what the due-message lane polls. */
export const scheduleProjector: Projector = {
  name: 'platform.scheduled-messages',
  version: 3,
  tables: [SCHEDULE_TABLE],
  eventTypes: SCHEDULE_EVENT_TYPES,
  async createTables(knex: Knex) {
    await knex.schema.createTable(SCHEDULE_TABLE, (t) => {
      t.text('tenant_id').notNullable();
      t.text('message_id').notNullable();
      t.timestamp('due_at', { useTz: true }).notNullable();
      t.text('handler').notNullable();
      t.jsonb('payload').notNullable();
      t.timestamp('fired_at', { useTz: true });
      t.timestamp('dead_lettered_at', { useTz: true });
      t.integer('attempts');
      t.text('last_error');
      // A message in backoff is not due before this, whatever its due time.
      t.timestamp('retry_at', { useTz: true });
      t.primary(['tenant_id', 'message_id']);
      t.index(['fired_at', 'due_at']);
    });
  },
  async apply(trx: Knex.Transaction, event: RecordedEvent) {
    const tenantId = String((event.metadata as { tenantId?: string }).tenantId ?? '');
    if (event.type === 'MessageScheduled') {
      const d = event.data as ScheduleEvent['data'] & {
        dueAt: string;
        handler: string;
        payload: Record<string, unknown>;
      };
      await trx(SCHEDULE_TABLE)
        .insert({
          tenant_id: tenantId,
          message_id: d.messageId,
          due_at: d.dueAt,
          handler: d.handler,
          payload: JSON.stringify(d.payload),
        })
        .onConflict(['tenant_id', 'message_id'])
        .ignore();
    } else if (event.type === 'ScheduledMessageFired') {
      const d = event.data as { messageId: string; firedAt: string };
      await trx(SCHEDULE_TABLE).where({ tenant_id: tenantId, message_id: d.messageId }).update({ fired_at: d.firedAt });
    } else if (event.type === 'ScheduledMessageFailed') {
      const d = event.data as { messageId: string; attempts: number; error: string; retryAt: string };
      await trx(SCHEDULE_TABLE)
        .where({ tenant_id: tenantId, message_id: d.messageId })
        .update({ attempts: d.attempts, last_error: d.error, retry_at: d.retryAt });
    } else if (event.type === 'ScheduledMessageDeadLettered') {
      const d = event.data as { messageId: string; attempts: number; error: string; deadLetteredAt: string };
      await trx(SCHEDULE_TABLE)
        .where({ tenant_id: tenantId, message_id: d.messageId })
        .update({ dead_lettered_at: d.deadLetteredAt, attempts: d.attempts, last_error: d.error });
    } else if (event.type === 'ScheduledMessageRetried') {
      const d = event.data as { messageId: string };
      await trx(SCHEDULE_TABLE)
        .where({ tenant_id: tenantId, message_id: d.messageId })
        .update({ dead_lettered_at: null, retry_at: null, attempts: 0 });
    }
  },
};

const messageOf = (r: Record<string, any>): ScheduledMessage => ({
  messageId: r.message_id,
  tenantId: r.tenant_id,
  dueAt: new Date(r.due_at).toISOString(),
  handler: r.handler,
  payload: typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload,
  attempts: Number(r.attempts ?? 0),
});

/**
 * The messages due now whose handler is one of `handlers`: a message in backoff is due again
 * only at its retry time, so however many fail, the others still fire; a handler this build
 * does not know (retired, or a newer instance's) is left for an instance that knows it.
 */
export async function dueMessages(
  knex: Knex,
  now: Date,
  limit: number,
  handlers: readonly string[],
): Promise<ScheduledMessage[]> {
  const rows = await pending(knex, now)
    .whereIn('handler', [...handlers])
    .orderByRaw('coalesce(retry_at, due_at)')
    .limit(limit);
  return rows.map(messageOf);
}

/** Messages not fired yet, parked or not. */
const unfired = (knex: Knex) => knex(SCHEDULE_TABLE).whereNull('fired_at');
/** Messages still to fire: not fired, not parked (due now, later, or in backoff). */
const toFire = (knex: Knex) => unfired(knex).whereNull('dead_lettered_at');

function pending(knex: Knex, now: Date) {
  return toFire(knex)
    .andWhere('due_at', '<=', now)
    .andWhere((q) => void q.whereNull('retry_at').orWhere('retry_at', '<=', now));
}

/** When the next message whose handler is one of `handlers` falls due after `now` (retry time for one in backoff); null: none waits. */
export async function nextDueAt(knex: Knex, now: Date, handlers: readonly string[]): Promise<Date | null> {
  const [row] = await toFire(knex)
    .whereIn('handler', [...handlers])
    .andWhereRaw('coalesce(retry_at, due_at) > ?', [now])
    .select(knex.raw('min(coalesce(retry_at, due_at)) AS next'));
  return row?.next ? new Date(row.next) : null;
}

/** How many messages are due now and how long the oldest has waited past its time (the scheduler's lag). */
export async function dueLag(knex: Knex, now: Date): Promise<{ due: number; oldestDueAt: Date | null }> {
  const [row] = await pending(knex, now).select(
    knex.raw('count(*)::int AS due'),
    knex.raw('min(coalesce(retry_at, due_at)) AS oldest'),
  );
  return { due: Number(row?.due ?? 0), oldestDueAt: row?.oldest ? new Date(row.oldest) : null };
}

export interface DeadLetteredMessage extends ScheduledMessage {
  attempts: number;
  error: string;
  deadLetteredAt: string;
}

/** Messages parked after their handler kept failing (for /health and `ops schedule`). */
export async function deadLetteredMessages(knex: Knex): Promise<DeadLetteredMessage[]> {
  const rows = await unfired(knex).whereNotNull('dead_lettered_at').orderBy('dead_lettered_at');
  return rows.map((r) => ({
    ...messageOf(r),
    attempts: Number(r.attempts),
    error: String(r.last_error ?? ''),
    deadLetteredAt: new Date(r.dead_lettered_at).toISOString(),
  }));
}

/** Handler names with parked messages, prefixed for /health's `degraded_scheduled_handlers`. */
export const SCHEDULED_PREFIX = 'scheduled:';
export async function degradedScheduledHandlers(knex: Knex): Promise<string[]> {
  const rows = await unfired(knex).whereNotNull('dead_lettered_at').distinct('handler').orderBy('handler');
  return rows.map((r) => `${SCHEDULED_PREFIX}${r.handler}`);
}

/** The scheduled backlog in figures only: what the gauges read on every scrape. */
export interface ScheduledCounts {
  /** Waiting to fire now (their time has come, not in backoff). */
  due: number;
  /** Of those, the ones that have waited longer than the bound. */
  overdue: number;
  /** Parked after repeated failures (`ops schedule retry`). */
  deadLettered: number;
  /** How long the oldest due message has waited past its time (s). */
  oldestWaitS: number;
}

/** The scheduled messages at a glance, as the System page shows them. */
export interface ScheduledSummary extends ScheduledCounts {
  /** Failed at least once and waiting for their retry time. */
  retrying: number;
  /** The next messages to fire, soonest first (due ones included). */
  next: ScheduledMessage[];
}

export async function scheduledCounts(
  knex: Knex,
  now: Date,
  options: { overdueAfterS: number },
): Promise<ScheduledCounts> {
  const overdueBefore = new Date(now.getTime() - options.overdueAfterS * 1000);
  const [[counts], [parked]] = await Promise.all([
    pending(knex, now).select(
      knex.raw('count(*)::int AS due'),
      knex.raw('count(*) FILTER (WHERE coalesce(retry_at, due_at) < ?)::int AS overdue', [overdueBefore]),
      knex.raw('min(coalesce(retry_at, due_at)) AS oldest'),
    ),
    unfired(knex).whereNotNull('dead_lettered_at').count<{ count: string }[]>('* as count'),
  ]);
  const oldest = counts?.oldest ? new Date(counts.oldest) : null;
  return {
    due: Number(counts?.due ?? 0),
    overdue: Number(counts?.overdue ?? 0),
    deadLettered: Number(parked?.count ?? 0),
    oldestWaitS: oldest ? Math.max(0, Math.round((now.getTime() - oldest.getTime()) / 100) / 10) : 0,
  };
}

export async function scheduledSummary(
  knex: Knex,
  now: Date,
  options: { overdueAfterS: number; next: number },
): Promise<ScheduledSummary> {
  const [counts, [waiting], next] = await Promise.all([
    scheduledCounts(knex, now, options),
    toFire(knex).where('retry_at', '>', now).count<{ count: string }[]>('* as count'),
    toFire(knex).orderByRaw('coalesce(retry_at, due_at)').limit(options.next),
  ]);
  return { ...counts, retrying: Number(waiting?.count ?? 0), next: next.map(messageOf) };
}
