import type { Command } from 'commander';
import { loadConfig } from '../src/platform/config';
import { createLogger } from '../src/platform/infra/logger';
import { type Platform, startPlatform } from '../src/platform/platform';
import { contexts } from '../src/contexts';
import { ensureConsoleBuilt } from '../src/platform/http/console';
import { EventStoreUnavailableError } from '../src/platform/eventstore/types';
import { isConnectionLoss } from '../src/platform/infra/connection-loss';

/** How long a start keeps trying while the database is unreachable before it gives up. */
const START_RETRY_MS = 5 * 60_000;

/** A start that failed because the database went away (not because of bad config or data). */
const transient = (error: unknown) =>
  error instanceof EventStoreUnavailableError ||
  isConnectionLoss(error) ||
  isConnectionLoss((error as { cause?: unknown })?.cause);

export function registerStartCommand(program: Command): void {
  program
    .command('start')
    .description('run the platform (embedded PostgreSQL unless DATABASE_URL is set)')
    .option('--role <role>', 'all | api | projector | bridge | graph-consumer (overrides ROLE)')
    .action(async (options: { role?: string }) => {
      const config = loadConfig(options.role ? { ...process.env, ROLE: options.role } : process.env);
      const logger = createLogger(config.logLevel);
      let platform: Platform | null = null;
      let stopping = false;
      let requested: string | null = null;
      // Installed before starting: /health answers 200 a moment before startPlatform returns,
      // and a SIGTERM in that moment must still drain and exit cleanly.
      const shutdown = (signal: string) => {
        if (!platform) {
          requested = signal;
          return;
        }
        if (stopping) return;
        stopping = true;
        logger.info({ signal }, 'shutting down');
        platform
          .stop()
          .then(() => process.exit(0))
          .catch((err) => {
            logger.error({ err }, 'shutdown failed');
            process.exit(1);
          });
      };
      process.on('SIGTERM', () => shutdown('SIGTERM'));
      process.on('SIGINT', () => shutdown('SIGINT'));
      // A database blip during start (migrations, bootstrap commands) is retried with backoff,
      // as a supervisor would restart the process: the start undoes itself before it throws.
      const giveUpAt = Date.now() + START_RETRY_MS;
      for (let attempt = 1; ; attempt++) {
        try {
          platform = await startPlatform({ config, contexts, logger });
          break;
        } catch (error) {
          if (!transient(error) || Date.now() > giveUpAt || requested) throw error;
          const delay = Math.min(200 * 2 ** attempt, 5_000);
          logger.warn(
            { err: error, attempt, retryInMs: delay },
            'start failed: the database is unavailable; trying again',
          );
          await new Promise((resolve) => setTimeout(resolve, delay));
        }
      }
      logger.info({ public: platform.publicUrl, internal: platform.internalUrl }, 'platform started');
      // The console is built by `npm install`; a checkout without it is built now, in the background
      // (the console answers 503 until then; the API is unaffected).
      ensureConsoleBuilt(undefined, (msg) => logger.info(msg)).catch((err) =>
        logger.warn({ err }, 'console build failed'),
      );
      if (requested) shutdown(requested);
    });
}
