import { Command } from 'commander';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/infra/logger';
import { registerAuditCommands } from './audit';
import { registerKafkaCommands } from './kafka';
import { runBenchmarks } from './bench';
import { registerProjectionCommands } from './projections';
import { registerSeedCommand } from './seed';
import { registerStartCommand } from './start';
import { registerTenantCommands } from './tenants';
import { registerUserCommands } from './users';
import { openInfrastructure } from '../src/infra/infrastructure';

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

program.parseAsync(process.argv).catch((error) => {
  console.error(`ops: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
