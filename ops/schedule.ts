import type { Command } from 'commander';
import type { Knex } from 'knex';
import type { CommandHandler } from '../src/platform/command-handling/command-handler';
import { deadLetteredMessages, retryScheduled, scheduleProjector } from '../src/platform/scheduling/schedule';
import { withOfflineProjections } from './offline';

const OPS_ACTOR = 'system:ops';

/**
 * `ops schedule status|retry`: scheduled messages whose handler kept failing are parked
 * (dead-lettered) instead of firing forever; after a fix, retry makes them due again and the
 * running platform's scheduler fires them on its next tick. The schedule's read model is
 * brought up to date first (or followed through its checkpoint with a running platform).
 */
async function withSchedule<T>(work: (tools: { knex: Knex; handle: CommandHandler }) => Promise<T>): Promise<T> {
  return withOfflineProjections([scheduleProjector], ({ infrastructure, handle }) =>
    work({ knex: infrastructure.db.knex, handle }),
  );
}

export function registerScheduleCommands(program: Command): void {
  const schedule = program
    .command('schedule')
    .description('scheduled messages (turn deadlines, the daily assessment): dead letters and retry');

  schedule
    .command('status')
    .description('dead-lettered scheduled messages with their error; exits 2 while any is parked')
    .action(async () => {
      await withSchedule(async ({ knex }) => {
        const parked = await deadLetteredMessages(knex);
        for (const m of parked)
          console.log(
            `  ${m.handler.padEnd(32)} ${m.messageId} (tenant ${m.tenantId}, due ${m.dueAt}) after ${m.attempts} attempts: ${m.error}`,
          );
        console.log(
          parked.length === 0
            ? 'scheduled messages: none dead-lettered'
            : `scheduled messages: ${parked.length} dead-lettered; fix the cause, then \`ops schedule retry <handler|message id>\``,
        );
        process.exitCode = parked.length > 0 ? 2 : 0;
      });
    });

  schedule
    .command('retry <handlerOrMessageId>')
    .description('makes the dead-lettered messages of a handler (or one message) due again')
    .action(async (which: string) => {
      await withSchedule(async ({ knex, handle }) => {
        const parked = (await deadLetteredMessages(knex)).filter((m) => m.handler === which || m.messageId === which);
        let retried = 0;
        for (const m of parked)
          if (await retryScheduled(handle, { tenantId: m.tenantId, actorId: OPS_ACTOR }, m.messageId)) retried++;
        console.log(`scheduled messages: ${retried} of ${parked.length} dead-lettered made due again (${which})`);
        process.exitCode = parked.length === 0 ? 2 : 0;
      });
    });
}
