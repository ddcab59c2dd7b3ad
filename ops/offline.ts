import pino from 'pino';
import type { Logger } from 'pino';
import { type CommandHandler, createCommandHandler } from '../src/platform/command-handling/command-handler';
import { type Config, loadConfig } from '../src/platform/config';
import { type Infrastructure, openInfrastructure } from '../src/platform/infra/infrastructure';
import { createAdvisoryLeaderLock } from '../src/platform/projection-runner/leader-lock';
import type { Projector } from '../src/platform/projection-runner/projector';
import { ProjectionRunner } from '../src/platform/projection-runner/runner';

/** What an operator command works with once its read models are current. */
export interface OfflineTools {
  config: Config;
  logger: Logger;
  infrastructure: Infrastructure;
  runner: ProjectionRunner;
  handle: CommandHandler;
}

/**
 * Opens the configured store and database, brings the read models `projectors` keep up to date
 * and hands `work` a command handler that waits on them, then closes everything. With no
 * platform running, this process projects (it takes the advisory leader lock); with one
 * running, the runner follows the platform's checkpoints instead, so the two never project
 * the same lane at once. Logs go to `logger` (warn and above on stdout unless given).
 */
export async function withOfflineProjections<T>(
  projectors: readonly Projector[],
  work: (tools: OfflineTools) => Promise<T>,
  options: { config?: Config; logger?: Logger } = {},
): Promise<T> {
  const config = options.config ?? loadConfig();
  const logger = options.logger ?? pino({ level: 'warn' });
  const infrastructure = await openInfrastructure(config, logger);
  const runner = new ProjectionRunner({
    knex: infrastructure.db.knex,
    store: infrastructure.store,
    projectors: [...projectors],
    logger,
    leaderLock: createAdvisoryLeaderLock(infrastructure.db.url),
  });
  try {
    await runner.start();
    while (!runner.caughtUp) await new Promise((r) => setTimeout(r, 20));
    const handle = createCommandHandler({
      store: infrastructure.store,
      projections: runner,
      logger,
      retries: config.commandRetries,
      projectionWaitMs: config.projectionWaitMs,
    });
    return await work({ config, logger, infrastructure, runner, handle });
  } finally {
    await runner.stop();
    await infrastructure.close();
  }
}
