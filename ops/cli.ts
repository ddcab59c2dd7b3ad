import { Command } from 'commander';
import { loadConfig } from '../src/platform/config';
import { createLogger } from '../src/platform/infra/logger';
import { registerAuditCommands } from './audit';
import { registerKafkaCommands } from './kafka';
import { registerEvalCommands } from './eval';
import { registerEvidenceCommands } from './evidence';
import { runBenchmarks } from './bench';
import { registerProjectionCommands } from './projections';
import { registerReactorCommands } from './reactors';
import { registerScheduleCommands } from './schedule';
import { registerSeedCommand } from './seed';
import { registerStartCommand } from './start';
import { registerTenantCommands } from './tenants';
import { registerUserCommands } from './users';
import { openInfrastructure } from '../src/platform/infra/infrastructure';
import { sweepOrphanedReservations } from '../src/platform/command-handling/reservation-sweep';
import { SYSTEM_USER_ID } from '../streams/identity/system-accounts';

/** The operator command line: `npm run ops -- <command>`. */
const program = new Command('ops').description('Compliance platform operations').showHelpAfterError();

registerStartCommand(program);

program
  .command('migrate')
  .description('apply pending database migrations and exit')
  .action(async () => {
    const config = loadConfig();
    const infrastructure = await openInfrastructure(config, createLogger('warn'));
    await infrastructure.close();
    console.log('migrations are up to date');
  });

registerProjectionCommands(program);
registerEvidenceCommands(program);
registerReactorCommands(program);
registerScheduleCommands(program);

program
  .command('reservations-sweep')
  .description('release uniqueness reservations whose owner was never written (EventStoreDB; none exist on PostgreSQL)')
  .option('--grace-minutes <n>', 'only claims older than this', '10')
  .action(async (options: { graceMinutes: string }) => {
    const infrastructure = await openInfrastructure(loadConfig(), createLogger('warn'));
    try {
      const result = await sweepOrphanedReservations(infrastructure.store, {
        now: new Date(),
        graceMs: Number(options.graceMinutes) * 60_000,
        actorId: SYSTEM_USER_ID,
        onReleased: (stream, owner) => console.log(`released ${stream} (owner ${owner} was never written)`),
      });
      console.log(`${result.checked} held reservations checked, ${result.released} released`);
    } finally {
      await infrastructure.close();
    }
  });

program
  .command('bench [names...]')
  .description(`run benchmarks and print a table (same as npm run bench)`)
  .action(async (names: string[]) => {
    await runBenchmarks(names ?? []);
  });
registerAuditCommands(program);
registerSeedCommand(program);
registerUserCommands(program);
registerTenantCommands(program);
registerKafkaCommands(program);
registerEvalCommands(program);

program.parseAsync(process.argv).catch((error) => {
  console.error(`ops: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
