import type { Knex } from 'knex';
import type { CommandContext, CommandHandler } from '../command-handling/command-handler';
import type { Decider } from '../command-handling/decider';
import type { Projector } from '../projection-runner/projector';
import type { RecordedEvent } from '../eventstore/types';

/**
 * "At time T, handle command C" as events (DESIGN §4): a scheduled message is a stream of
 * its own, `platform.schedule-<tenant>-<messageId>`, with `MessageScheduled` and, once its
 * handler ran, `ScheduledMessageFired`. The id is chosen by the scheduler (derived from what
 * the message is about), so scheduling the same thing twice appends nothing, and firing
 * twice appends nothing twice.
 */
export interface ScheduledMessage {
  messageId: string;
  tenantId: string;
  dueAt: string;
  /** A handler name registered by a context (`ContextModule.scheduledHandlers`). */
  handler: string;
  payload: Record<string, unknown>;
}

export type ScheduleEvent =
  | { type: 'MessageScheduled'; data: { messageId: string; dueAt: string; handler: string; payload: Record<string, unknown> } }
  | { type: 'ScheduledMessageFired'; data: { messageId: string; firedAt: string } };

export type ScheduleState = { status: 'none' } | { status: 'scheduled' | 'fired'; messageId: string };

export type ScheduleCommand = { type: 'Schedule'; messageId: string; dueAt: string; handler: string; payload: Record<string, unknown> } | { type: 'Fire' };

export const scheduleStream = (tenantId: string, messageId: string) => `platform.schedule-${tenantId}-${messageId}`;

export const scheduleDecider: Decider<ScheduleCommand, ScheduleState, ScheduleEvent> = {
  initialState: { status: 'none' },
  evolve(state, event) {
    if (event.type === 'MessageScheduled') return { status: 'scheduled', messageId: event.data.messageId };
    return state.status === 'none' ? state : { ...state, status: 'fired' };
  },
  decide(command, state, now) {
    if (command.type === 'Schedule') {
      if (state.status !== 'none') return [];
      const { messageId, dueAt, handler, payload } = command;
      return [{ type: 'MessageScheduled', data: { messageId, dueAt, handler, payload } }];
    }
    if (state.status !== 'scheduled') return [];
    return [{ type: 'ScheduledMessageFired', data: { messageId: state.messageId, firedAt: now.toISOString() } }];
  },
};

export async function scheduleMessage(handle: CommandHandler, context: CommandContext, message: Omit<ScheduledMessage, 'tenantId'>): Promise<void> {
  await handle(scheduleDecider, scheduleStream(context.tenantId, message.messageId), { type: 'Schedule', ...message }, context);
}

export async function markFired(handle: CommandHandler, context: CommandContext, messageId: string): Promise<void> {
  await handle(scheduleDecider, scheduleStream(context.tenantId, messageId), { type: 'Fire' }, context);
}

export const SCHEDULE_TABLE = 'platform_scheduled_messages';

/** The messages still to fire, by due time: what the due-message lane polls. */
export const scheduleProjector: Projector = {
  name: 'platform.scheduled-messages',
  version: 1,
  tables: [SCHEDULE_TABLE],
  eventTypes: ['MessageScheduled', 'ScheduledMessageFired'],
  async createTables(knex: Knex) {
    await knex.schema.createTable(SCHEDULE_TABLE, (t) => {
      t.text('tenant_id').notNullable();
      t.text('message_id').notNullable();
      t.timestamp('due_at', { useTz: true }).notNullable();
      t.text('handler').notNullable();
      t.jsonb('payload').notNullable();
      t.timestamp('fired_at', { useTz: true });
      t.primary(['tenant_id', 'message_id']);
      t.index(['fired_at', 'due_at']);
    });
  },
  async apply(trx: Knex.Transaction, event: RecordedEvent) {
    const tenantId = String((event.metadata as { tenantId?: string }).tenantId ?? '');
    if (event.type === 'MessageScheduled') {
      const d = event.data as ScheduleEvent['data'] & { dueAt: string; handler: string; payload: Record<string, unknown> };
      await trx(SCHEDULE_TABLE).insert({ tenant_id: tenantId, message_id: d.messageId, due_at: d.dueAt, handler: d.handler, payload: JSON.stringify(d.payload) }).onConflict(['tenant_id', 'message_id']).ignore();
    } else if (event.type === 'ScheduledMessageFired') {
      const d = event.data as { messageId: string; firedAt: string };
      await trx(SCHEDULE_TABLE).where({ tenant_id: tenantId, message_id: d.messageId }).update({ fired_at: d.firedAt });
    }
  },
};

export async function dueMessages(knex: Knex, now: Date, limit: number): Promise<ScheduledMessage[]> {
  const rows = await knex(SCHEDULE_TABLE).whereNull('fired_at').andWhere('due_at', '<=', now).orderBy('due_at').limit(limit);
  return rows.map((r) => ({ messageId: r.message_id, tenantId: r.tenant_id, dueAt: new Date(r.due_at).toISOString(), handler: r.handler, payload: typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload }));
}
