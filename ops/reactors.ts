import type { Command } from 'commander';
import pino from 'pino';
import { contexts } from '../src/contexts';
import { createToolRegistry } from '../src/platform/agent-tools';
import { createCommandHandler } from '../src/platform/command-handling/command-handler';
import { createSnapshotStore } from '../src/platform/command-handling/snapshots';
import { loadConfig } from '../src/platform/config';
import type { PlatformDeps } from '../src/platform/context-module';
import { positionToString } from '../src/platform/eventstore/types';
import { createMemoryCache } from '../src/platform/infra/cache';
import { openInfrastructure } from '../src/platform/infra/infrastructure';
import { readCheckpoints } from '../src/platform/projection-runner/checkpoints';
import { openDeadLetters } from '../src/platform/projection-runner/dead-letters';
import { createAdvisoryLeaderLock, type LeaderLock } from '../src/platform/projection-runner/leader-lock';
import { ProjectionRunner } from '../src/platform/projection-runner/runner';
import { scheduleProjector } from '../src/platform/scheduling/schedule';
import { REACTOR_PREFIX, ReactorRunner } from '../src/platform/reactors/runner';
import { createStreamTail } from '../src/platform/subscriptions/stream-tail';
import { createPlatformMetrics } from '../src/platform/observability/metrics';

const allReactors = () => contexts.flatMap((c) => c.reactors ?? []);
const never: LeaderLock = { tryAcquire: async () => false, isHeld: () => false, release: async () => undefined };

/**
 * `ops reactors status|retry`: the reactors' checkpoints and dead letters (they share the
 * projection tables under the `reactor:` prefix). Retry reacts again with the product's
 * commands, so it builds the platform's deps; with a running platform its projections are
 * followed through their checkpoints, otherwise this process brings them up to date.
 */
export function registerReactorCommands(program: Command): void {
  const reactors = program
    .command('reactors')
    .description('process managers: events of one aggregate → commands on others');

  reactors
    .command('status')
    .description("each reactor's checkpoint, state and dead letters")
    .action(async () => {
      const logger = pino({ level: 'warn' });
      const infrastructure = await openInfrastructure(loadConfig(), logger);
      try {
        const head = await infrastructure.store.headPosition();
        const rows = (await readCheckpoints(infrastructure.db.knex)).filter((r) => r.name.startsWith(REACTOR_PREFIX));
        const known = new Set(allReactors().map((r) => r.name));
        console.log(`head of the log: ${positionToString(head)}`);
        console.log(['reactor'.padEnd(36), 'checkpoint'.padEnd(20), 'reacted'.padStart(8), 'status'].join('  '));
        for (const name of new Set([...known, ...rows.map((r) => r.name.slice(REACTOR_PREFIX.length))])) {
          const row = rows.find((r) => r.name === `${REACTOR_PREFIX}${name}`);
          const status = !known.has(name)
            ? 'retired (not in code)'
            : row
              ? row.status + (row.lastError ? `: ${row.lastError}` : '')
              : 'not started';
          console.log(
            [
              name.padEnd(36),
              (row ? positionToString(row.position) : '-').padEnd(20),
              String(row?.eventsApplied ?? 0).padStart(8),
              status,
            ].join('  '),
          );
        }
        const letters = (await openDeadLetters(infrastructure.db.knex)).filter((l) =>
          l.projector.startsWith(REACTOR_PREFIX),
        );
        if (letters.length > 0) {
          console.log(
            `\ndead letters (${letters.length}): events a reactor kept failing on; fix the cause, then \`ops reactors retry <name>\``,
          );
          for (const l of letters)
            console.log(
              `  ${l.projector.slice(REACTOR_PREFIX.length).padEnd(36)} ${positionToString(l.position).padEnd(20)} ${l.type} ${l.eventId} after ${l.attempts} attempts: ${l.error}`,
            );
        }
      } finally {
        await infrastructure.close();
      }
    });

  reactors
    .command('retry <name>')
    .description("react again to a reactor's dead letters after a fix; those that still fail stay listed")
    .action(async (name: string) => {
      const list = allReactors();
      if (!list.some((r) => r.name === name))
        throw new Error(`unknown reactor ${name}; known: ${list.map((r) => r.name).join(', ') || '(none)'}`);
      const config = loadConfig();
      const logger = pino({ level: 'warn' });
      const infrastructure = await openInfrastructure(config, logger);
      const { store } = infrastructure;
      const knex = infrastructure.db.knex;
      const projections = new ProjectionRunner({
        knex,
        store,
        projectors: [scheduleProjector, ...contexts.flatMap((c) => c.projectors ?? [])],
        logger,
        leaderLock: createAdvisoryLeaderLock(infrastructure.db.url),
      });
      const runner: ReactorRunner = new ReactorRunner({
        knex,
        store,
        reactors: list,
        deps: () => deps,
        logger,
        leaderLock: never,
      });
      const deps: PlatformDeps = {
        config,
        logger,
        knex,
        store,
        handle: createCommandHandler({
          store,
          projections,
          logger,
          snapshots: createSnapshotStore(knex),
          retries: config.commandRetries,
          projectionWaitMs: config.projectionWaitMs,
        }),
        projections,
        reactors: runner,
        cache: createMemoryCache(),
        clock: () => new Date(),
        agentTools: createToolRegistry(),
        streamTail: createStreamTail(store, logger),
        contexts,
        // A one-shot command: its registry is never scraped.
        metrics: createPlatformMetrics({ defaultMetrics: false }),
      };
      try {
        await projections.start();
        while (!projections.caughtUp) await new Promise((r) => setTimeout(r, 20));
        const { resolved, remaining } = await runner.retryDeadLetters(name);
        console.log(`${name}: ${resolved} dead letter(s) reacted to, ${remaining} still failing`);
        process.exitCode = remaining > 0 ? 2 : 0;
      } finally {
        await deps.streamTail.stop();
        await projections.stop();
        await infrastructure.close();
      }
    });
}
