import type { Command } from 'commander';
import { loadConfig } from '../src/config';
import { formatTimeline, verifyAuditTrail } from '../src/eventstore/audit-trail';
import { openInfrastructure } from '../src/infra/infrastructure';
import { createLogger } from '../src/infra/logger';

export function registerAuditCommands(program: Command): void {
  const audit = program.command('audit').description('check and read the signed audit trail (the event log)');

  audit
    .command('verify')
    .description('recompute every stream\'s signature chain and list tampered entries')
    .option('--stream-prefix <prefix>', 'only streams whose name starts with this')
    .option('--json', 'print the report as JSON')
    .action(async (options: { streamPrefix?: string; json?: boolean }) => {
      const infrastructure = await openInfrastructure(loadConfig(), createLogger('warn'));
      try {
        const report = await verifyAuditTrail(infrastructure.store, infrastructure.signer, { streamPrefix: options.streamPrefix });
        if (options.json) console.log(JSON.stringify(report, null, 2));
        else {
          console.log(`${report.total} events in ${report.streams} streams: ${report.verified} verified, ${report.tampered.length} tampered`);
          for (const t of report.tampered) console.log(`  TAMPERED ${t.stream} #${t.revision} ${t.type} (${t.eventId}): ${t.reason}`);
        }
        process.exitCode = report.tampered.length > 0 ? 2 : 0;
      } finally {
        await infrastructure.close();
      }
    });

  audit
    .command('replay <stream>')
    .description('print a stream\'s history as a readable timeline')
    .action(async (stream: string) => {
      const infrastructure = await openInfrastructure(loadConfig(), createLogger('warn'));
      try {
        const events = await infrastructure.store.readStream(stream);
        console.log(`${stream}: ${events.length} events`);
        console.log(formatTimeline(events, infrastructure.signer));
      } finally {
        await infrastructure.close();
      }
    });
}
