import type { Command } from 'commander';
import { loadConfig } from '../src/platform/config';
import { readFile, writeFile } from 'node:fs/promises';
import { Presets, SingleBar } from 'cli-progress';
import { type AuditAnchor, createAnchor, verifyAnchor, verifyAuditTrail } from '../src/platform/eventstore/audit-trail';
import { registerAuditReviewCommands } from './audit-review';
import { createStreamHeads } from '../src/platform/eventstore/postgres/stream-heads';
import { openInfrastructure } from '../src/platform/infra/infrastructure';
import { createLogger } from '../src/platform/infra/logger';

export function registerAuditCommands(program: Command): void {
  const audit = program.command('audit').description('check and read the signed audit trail (the event log)');

  audit
    .command('verify')
    .description(
      "recompute every stream's signature chain, check each stream ends at its recorded head, list tampered entries (exit 2 when any)",
    )
    .option('--stream-prefix <prefix>', 'only streams whose name starts with this')
    .option(
      '--anchor <file>',
      'also prove that every head recorded in this anchor file (ops audit anchor) is still in the log as recorded',
    )
    .option('--json', 'print the report as JSON')
    .action(async (options: { streamPrefix?: string; anchor?: string; json?: boolean }) => {
      const infrastructure = await openInfrastructure(loadConfig(), createLogger('warn'));
      const bar =
        options.json || !process.stderr.isTTY
          ? null
          : new SingleBar(
              { format: 'verifying [{bar}] {value}/{total} events', stream: process.stderr, hideCursor: true },
              Presets.shades_classic,
            );
      try {
        const heads = infrastructure.store.kind === 'postgres' ? createStreamHeads(infrastructure.db.pool) : undefined;
        bar?.start(0, 0);
        const report = await verifyAuditTrail(infrastructure.store, infrastructure.signer, {
          streamPrefix: options.streamPrefix,
          heads,
          onProgress: (checked, total) => {
            if (total !== null) bar?.setTotal(total);
            bar?.update(checked);
          },
        });
        bar?.stop();
        let anchorValid: boolean | null = null;
        if (options.anchor) {
          const anchor = JSON.parse(await readFile(options.anchor, 'utf8')) as AuditAnchor;
          const checked = await verifyAnchor(infrastructure.store, infrastructure.signer, anchor, options.streamPrefix);
          anchorValid = checked.valid;
          report.tampered.push(...checked.tampered);
        }
        if (options.json) console.log(JSON.stringify({ ...report, anchor_valid: anchorValid }, null, 2));
        else {
          for (const t of report.tampered)
            console.log(`  TAMPERED ${t.stream} #${t.revision} ${t.type} (${t.eventId}): ${t.reason}`);
          if (anchorValid !== null)
            console.log(
              anchorValid
                ? `anchor ${options.anchor}: its digest and signature are intact`
                : `anchor ${options.anchor}: FORGED or damaged (digest or signature does not match)`,
            );
          console.log(
            `${report.total} events in ${report.streams} streams: ${report.verified} verified, ${report.tampered.length} tampered`,
          );
        }
        process.exitCode = report.tampered.length > 0 || anchorValid === false ? 2 : 0;
      } finally {
        bar?.stop();
        await infrastructure.close();
      }
    });

  audit
    .command('anchor')
    .description(
      'write a signed digest of every stream head to a file to keep outside the database (verify --anchor FILE checks it later)',
    )
    .requiredOption('--out <file>', 'where to write the anchor (JSON)')
    .action(async (options: { out: string }) => {
      const infrastructure = await openInfrastructure(loadConfig(), createLogger('warn'));
      try {
        if (infrastructure.store.kind !== 'postgres')
          throw new Error('anchors need the PostgreSQL event store (its head table)');
        const anchor = await createAnchor(createStreamHeads(infrastructure.db.pool), infrastructure.signer, new Date());
        await writeFile(options.out, JSON.stringify(anchor));
        console.log(`anchor of ${anchor.streams} stream heads written to ${options.out}; digest ${anchor.digest}`);
      } finally {
        await infrastructure.close();
      }
    });

  registerAuditReviewCommands(audit);
}
