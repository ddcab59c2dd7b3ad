import { createWriteStream } from 'node:fs';
import os from 'node:os';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { Command } from 'commander';
import pino from 'pino';
import type { CommandHandler } from '../src/platform/command-handling/command-handler';
import type { AuditFormat } from '../src/contexts/audit/export';
import { AuditUsageError } from '../src/platform/audit/registry';
import { NothingFound, parseReviewDate, type ReviewDeps, type ReviewFilters } from '../src/contexts/audit/review';
import { SYSTEM_USER_ID } from '../streams/identity/system-accounts';
import { DEFAULT_TENANT_ID } from '../streams/identity/tenant';

const FORMATS: readonly AuditFormat[] = ['table', 'json', 'csv', 'xlsx'];

/** Exit codes: 0 done, 2 a tampered entry is in the result, 3 nothing found, 1 any other error. */
export const EXIT_NOTHING_FOUND = 3;

/** The entity keys reviewers use (docs/audit.md); a flag no registered catalog answers fails with a clear message. */
export const ENTITY_FLAGS: Array<[flag: string, value: string, help: string]> = [
  ['user', '<email|id>', 'a user account (and their budget override)'],
  ['well', '<api-number>', 'a well by API number (with its relationships)'],
  ['entity', '<Label:entity_id>', 'a graph entity (with its relationships)'],
  ['approval', '<id>', 'a human-in-the-loop approval'],
  ['checklist', '<id>', 'a filing checklist'],
  ['conversation', '<id>', 'a conversation'],
  ['project', '<id>', 'a conversation project'],
  ['prompt', '<namespace:slug>', 'a prompt template with its versions (or <namespace> alone)'],
  ['connector', '<key>', 'a connector with its exposures'],
  ['settings', 'tenant', "the tenant's settings"],
];

export interface ReviewOptions {
  tenant?: string;
  actor?: string;
  correlation?: string;
  from?: string;
  to?: string;
  [flag: string]: unknown;
}

/** The reviewer's flags to filters; dates parsed here so a bad one names its flag. */
export function filtersFromOptions(options: ReviewOptions): ReviewFilters {
  return {
    tenantId: options.tenant ?? DEFAULT_TENANT_ID,
    entities: ENTITY_FLAGS.filter(([flag]) => typeof options[flag] === 'string').map(([flag]) => ({
      flag,
      value: options[flag] as string,
    })),
    actor: options.actor,
    correlation: options.correlation,
    from: options.from !== undefined ? parseReviewDate('from', options.from) : undefined,
    to: options.to !== undefined ? parseReviewDate('to', options.to, true) : undefined,
  };
}

/**
 * Opens the store and database and brings every read model the review looks keys up in
 * (and the audit index) up to date: projecting when no platform runs, else following the
 * running platform's checkpoints.
 */
async function withReview<T>(work: (deps: ReviewDeps & { handle: CommandHandler }) => Promise<T>): Promise<T> {
  // Loaded here, not at the top: `ops audit verify|anchor` should not load every context.

  const { contexts } = require('../src/contexts') as typeof import('../src/contexts');
  const { buildAuditRegistry } =
    require('../src/platform/audit/registry') as typeof import('../src/platform/audit/registry');
  const { withOfflineProjections } = require('./offline') as typeof import('./offline');

  // stdout carries the timeline (or the workbook): logs go to stderr.
  const logger = pino({ level: 'warn' }, pino.destination(2));
  const projectors = contexts.flatMap((c) => c.projectors ?? []);
  return withOfflineProjections(
    projectors,
    ({ infrastructure, handle }) => {
      const { knex } = infrastructure.db;
      return work({
        knex,
        store: infrastructure.store,
        signer: infrastructure.signer,
        registry: buildAuditRegistry(contexts),
        handle,
      });
    },
    { logger },
  );
}

/** Reviewer errors print as one line with their exit code; anything else goes up as usual. */
async function reviewerErrors(work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (error instanceof NothingFound) {
      console.error(error.message);
      process.exitCode = EXIT_NOTHING_FOUND;
    } else if (error instanceof AuditUsageError) {
      console.error(`ops audit: ${error.message}`);
      process.exitCode = 1;
    } else throw error;
  }
}

function addFinderFlags(command: Command): Command {
  for (const [flag, value, help] of ENTITY_FLAGS) command.option(`--${flag} <${value.replace(/[<>]/g, '')}>`, help);
  return command
    .option('--tenant <id>', 'the tenant (default: the default tenant)')
    .option('--from <date>', 'only events at or after (ISO 8601: 2026-03-03 or 2026-03-03T14:30:00Z)')
    .option('--to <date>', 'only events at or before (a bare date includes that whole day)');
}

export function registerAuditReviewCommands(audit: Command): void {
  addFinderFlags(
    audit
      .command('replay')
      .description(
        'a readable timeline of what a reviewer names: an entity, everything one person did (--actor) or one request caused (--correlation); exit 3 when nothing matches, 2 when an entry is tampered',
      ),
  )
    .option('--actor <email>', 'everything this person did')
    .option('--correlation <id>', 'everything one request caused, across streams')
    .option('--format <format>', `table, json, csv or xlsx`, 'table')
    .option('--out <file>', 'write to this file (xlsx needs one unless stdout is redirected)')
    .action((options: ReviewOptions & { format: string; out?: string }) =>
      reviewerErrors(async () => {
        if (!(FORMATS as readonly string[]).includes(options.format))
          throw new AuditUsageError(`--format: "${options.format}" is not one of ${FORMATS.join(', ')}`);
        const format = options.format as AuditFormat;
        const filters = filtersFromOptions(options);
        if (filters.entities.length === 0 && !filters.actor && !filters.correlation && !filters.from && !filters.to) {
          throw new AuditUsageError(
            `say what to replay: ${ENTITY_FLAGS.map(([f]) => `--${f}`).join(', ')}, --actor, --correlation or a --from/--to range`,
          );
        }
        if (format === 'xlsx' && !options.out && process.stdout.isTTY)
          throw new AuditUsageError('--format xlsx writes a workbook: give --out FILE (or redirect stdout)');
        await withReview(async (deps) => {
          const { resolveReview } =
            require('../src/contexts/audit/review') as typeof import('../src/contexts/audit/review');
          const { exportText, exportXlsx } =
            require('../src/contexts/audit/export') as typeof import('../src/contexts/audit/export');
          const { recordAuditExport } =
            require('../commands/audit/record-export') as typeof import('../commands/audit/record-export');
          const review = await resolveReview(deps, filters);
          const exportedBy = `${os.userInfo().username}@${os.hostname()} (ops CLI, system account)`;
          let exportId: string | undefined;
          // Every export is itself on the trail (who exported what); a table on screen is a reading.
          if (format !== 'table') {
            exportId = await recordAuditExport(
              deps,
              {
                tenantId: filters.tenantId,
                actorId: SYSTEM_USER_ID,
                correlationId: `ops-audit-${Date.now()}`,
                metadata: { osUser: os.userInfo().username },
              },
              { format, filters: review.described, via: 'cli' },
            );
          }
          const out: Writable = options.out ? createWriteStream(options.out) : process.stdout;
          const summary =
            format === 'xlsx'
              ? await exportXlsx(deps, review, out, { exportedBy, exportId })
              : await exportText(deps, review, format, out);
          if (options.out) {
            out.end();
            await finished(out);
            console.error(
              `${summary.events} events written to ${options.out}${exportId ? ` (export ${exportId} recorded)` : ''}; ${summary.tampered === 0 ? 'all verified' : `${summary.tampered} TAMPERED`}`,
            );
          }
          if (summary.events === 0) console.error('no events in that range');
          process.exitCode = summary.tampered > 0 ? 2 : 0;
        });
      }),
    );

  const state = audit
    .command('state')
    .description(
      'an entity as it stood at a moment, folded from its events with the aggregate definitions the commands use',
    );
  for (const [flag, value, help] of ENTITY_FLAGS) state.option(`--${flag} <${value.replace(/[<>]/g, '')}>`, help);
  state
    .requiredOption(
      '--as-of <timestamp>',
      'the moment (ISO 8601: 2026-03-03 means the end of that day, or 2026-03-03T14:30:00Z)',
    )
    .option('--tenant <id>', 'the tenant (default: the default tenant)')
    .action((options: ReviewOptions & { asOf: string }) =>
      reviewerErrors(async () => {
        const asOf = parseReviewDate('as-of', options.asOf, true);
        const filters = filtersFromOptions({ ...options, from: undefined, to: undefined });
        if (filters.entities.length === 0)
          throw new AuditUsageError(`say which entity: ${ENTITY_FLAGS.map(([f]) => `--${f}`).join(', ')}`);
        await withReview(async (deps) => {
          const { resolveReview } =
            require('../src/contexts/audit/review') as typeof import('../src/contexts/audit/review');
          const { entityAsOf } = require('../src/contexts/audit/state') as typeof import('../src/contexts/audit/state');
          const review = await resolveReview(deps, filters);
          let tampered = 0;
          for (const target of review.targets) {
            const result = await entityAsOf(deps, filters.tenantId, target, asOf);
            tampered += result.tampered;
            const when =
              result.revision === null
                ? 'did not exist yet'
                : `after ${result.events} events (revision ${result.revision}, last change ${result.lastEventAt})`;
            console.log(
              `${result.title} as of ${asOf.toISOString()}: ${when}; ${result.verified ? 'signatures verified' : `${result.tampered} TAMPERED`}`,
            );
            console.log(JSON.stringify(result.state, null, 2));
          }
          process.exitCode = tampered > 0 ? 2 : 0;
        });
      }),
    );
}
