import { SingleBar, Presets } from 'cli-progress';
import type { Command } from 'commander';
import { loadConfig } from '../src/platform/config';
import { contexts } from '../src/contexts';
import { positionToString } from '../src/platform/eventstore/types';
import { openInfrastructure, type Infrastructure } from '../src/platform/infra/infrastructure';
import { createLogger } from '../src/platform/infra/logger';
import { readCheckpoints } from '../src/platform/projection-runner/checkpoints';
import { openDeadLetters } from '../src/platform/projection-runner/dead-letters';
import { createAdvisoryLeaderLock } from '../src/platform/projection-runner/leader-lock';
import type { Projector } from '../src/platform/projection-runner/projector';
import { ProjectionRunner } from '../src/platform/projection-runner/runner';
import { scheduleProjector } from '../src/platform/scheduling/schedule';
import { REACTOR_PREFIX } from '../src/platform/reactors/runner';

async function countEvents(infrastructure: Infrastructure): Promise<number | null> {
  if (infrastructure.store.kind !== 'postgres') return null;
  const row = await infrastructure.db.knex('events').count<{ count: string }[]>('* as count').first();
  return Number(row?.count ?? 0);
}

/** Rebuilds projectors one by one with a progress bar; prints events/s for each. */
export async function rebuildProjections(
  infrastructure: Infrastructure,
  projectors: Projector[],
  names: string[],
  quiet = false,
) {
  const runner = new ProjectionRunner({
    knex: infrastructure.db.knex,
    store: infrastructure.store,
    projectors,
    logger: createLogger('warn'),
    leaderLock: createAdvisoryLeaderLock(infrastructure.db.url),
  });
  const total = await countEvents(infrastructure);
  const results: Array<{ name: string; events: number; seconds: number; perSecond: number }> = [];
  try {
    for (const name of names) {
      const bar = quiet
        ? null
        : new SingleBar(
            { format: `${name.padEnd(28)} [{bar}] {value}/{total} events  {eta_formatted} left`, hideCursor: true },
            Presets.shades_classic,
          );
      bar?.start(total ?? 0, 0);
      const started = process.hrtime.bigint();
      const result = await runner.rebuild(name, (p) => {
        if (total !== null) bar?.update(Math.min(p.applied, total));
        else {
          bar?.setTotal(p.applied);
          bar?.update(p.applied);
        }
      });
      bar?.update(result.applied);
      bar?.stop();
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      results.push({ name, events: result.applied, seconds, perSecond: result.applied / Math.max(seconds, 1e-9) });
      if (!quiet)
        console.log(
          `${name}: ${result.applied} events in ${seconds.toFixed(2)} s (${Math.round(result.applied / Math.max(seconds, 1e-9))} events/s), at ${positionToString(result.position)}`,
        );
    }
  } finally {
    await runner.stop();
  }
  return results;
}

export function registerProjectionCommands(program: Command): void {
  const projections = program.command('projections').description('read models built from events');
  const all = () => [scheduleProjector, ...contexts.flatMap((c) => c.projectors ?? [])];

  projections
    .command('rebuild [name]')
    .description('drop a read model and replay every event into it')
    .option('--all', 'rebuild every projector')
    .action(async (name: string | undefined, options: { all?: boolean }) => {
      const projectors = all();
      const names = options.all ? projectors.map((p) => p.name) : name ? [name] : [];
      if (names.length === 0) throw new Error('name a projector or pass --all (see `ops projections status`)');
      const unknown = names.filter((n) => !projectors.some((p) => p.name === n));
      if (unknown.length)
        throw new Error(
          `unknown projector ${unknown.join(', ')}; known: ${projectors.map((p) => p.name).join(', ') || '(none)'}`,
        );
      const infrastructure = await openInfrastructure(loadConfig(), createLogger('warn'));
      try {
        const results = await rebuildProjections(infrastructure, projectors, names);
        const events = results.reduce((sum, r) => sum + r.events, 0);
        console.log(
          `rebuilt ${results.length} projector${results.length === 1 ? '' : 's'}: ${events} events in ${results.reduce((sum, r) => sum + r.seconds, 0).toFixed(2)} s`,
        );
      } finally {
        await infrastructure.close();
      }
    });

  projections
    .command('retry <name>')
    .description("apply a projector's dead letters again after a fix; those that still fail stay listed")
    .action(async (name: string) => {
      const projectors = all();
      if (!projectors.some((p) => p.name === name))
        throw new Error(`unknown projector ${name}; known: ${projectors.map((p) => p.name).join(', ')}`);
      const infrastructure = await openInfrastructure(loadConfig(), createLogger('warn'));
      const runner = new ProjectionRunner({
        knex: infrastructure.db.knex,
        store: infrastructure.store,
        projectors,
        logger: createLogger('warn'),
        leaderLock: createAdvisoryLeaderLock(infrastructure.db.url),
      });
      try {
        const { resolved, remaining } = await runner.retryDeadLetters(name);
        console.log(`${name}: ${resolved} dead letter(s) applied, ${remaining} still failing`);
        process.exitCode = remaining > 0 ? 2 : 0;
      } finally {
        await infrastructure.close();
      }
    });

  projections
    .command('status')
    .description("each projector's version, checkpoint and state")
    .action(async () => {
      const infrastructure = await openInfrastructure(loadConfig(), createLogger('warn'));
      try {
        const head = await infrastructure.store.headPosition();
        // Reactor lanes share the table; `ops reactors status` lists them.
        const rows = (await readCheckpoints(infrastructure.db.knex)).filter((r) => !r.name.startsWith(REACTOR_PREFIX));
        const known = new Map(all().map((p) => [p.name, p]));
        console.log(`head of the log: ${positionToString(head)}`);
        console.log(
          ['projector'.padEnd(28), 'version', 'checkpoint'.padEnd(20), 'applied'.padStart(10), 'status'].join('  '),
        );
        for (const name of new Set([...known.keys(), ...rows.map((r) => r.name)])) {
          const row = rows.find((r) => r.name === name);
          const projector = known.get(name);
          const version = row
            ? `${row.version}${projector && projector.version !== row.version ? `→${projector.version}` : ''}`
            : `-→${projector?.version}`;
          const status = !projector
            ? 'retired (not in code)'
            : row
              ? row.status + (row.lastError ? `: ${row.lastError}` : '')
              : 'not started';
          console.log(
            [
              name.padEnd(28),
              version.padEnd(7),
              (row ? positionToString(row.position) : '-').padEnd(20),
              String(row?.eventsApplied ?? 0).padStart(10),
              status,
            ].join('  '),
          );
        }
        const letters = (await openDeadLetters(infrastructure.db.knex)).filter(
          (l) => !l.projector.startsWith(REACTOR_PREFIX),
        );
        if (letters.length > 0) {
          console.log(
            `\ndead letters (${letters.length}): events a projector kept failing on; fix the cause, then \`ops projections retry <name>\``,
          );
          for (const l of letters) {
            console.log(
              `  ${l.projector.padEnd(28)} ${positionToString(l.position).padEnd(20)} ${l.type} ${l.eventId} in ${l.stream} after ${l.attempts} attempts: ${l.error}`,
            );
          }
        }
        const failing = rows.filter((r) => r.status === 'failed').length;
        console.log(
          `${known.size} projectors, ${failing} failing, ${letters.length} dead letter${letters.length === 1 ? '' : 's'}`,
        );
        process.exitCode = letters.length > 0 || failing > 0 ? 2 : 0;
      } finally {
        await infrastructure.close();
      }
    });
}
