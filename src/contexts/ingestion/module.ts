import type { Consumer } from 'kafkajs';
import { ingestionAuditCatalog } from './audit';
import type { ContextModule } from '../../platform/context-module';
import { startGraphConsumer } from './graph-consumer';
import { BRIDGE_LOCK_KEY, KafkaBridge } from './kafka-bridge';
import { ingestionApi } from './openapi';
import { createAdvisoryLeaderLock } from '../../platform/projection-runner/leader-lock';
import { createIngestionApi, createExtractionApi } from './http';
import { importHistoryProjector } from '../../../projections/ingestion/import-history';
import { connectionUrl, kafkaClient } from './kafka-client';
import { ingestionMeters } from './metrics';

/**
 * With KAFKA_BROKERS set the bridge publishes (roles `all` and `bridge`) or, with
 * `ROLE=graph-consumer`, the graph is fed from the topic; without it events stay in the log.
 */
export function createIngestionContext(): ContextModule {
  let bridge: KafkaBridge | null = null;
  let consumer: Consumer | null = null;
  let stopping = false;
  return {
    name: 'ingestion',
    projectors: [importHistoryProjector],
    publicRouter: createIngestionApi,
    internalRouter: createExtractionApi,
    openapi: ingestionApi,
    audit: ingestionAuditCatalog,
    meters: ingestionMeters,
    async start(deps) {
      stopping = false;
      const brokers = deps.config.kafkaBrokers;
      if (!brokers || brokers.length === 0) {
        if (deps.config.role === 'bridge' || deps.config.role === 'graph-consumer')
          deps.logger.warn({ role: deps.config.role }, 'KAFKA_BROKERS is not set: this worker has nothing to do');
        return;
      }
      const logger = deps.logger.child({ component: 'kafka' });
      if (deps.config.role === 'all' || deps.config.role === 'bridge') {
        bridge = new KafkaBridge({
          kafka: kafkaClient(brokers, 'ingestion-bridge'),
          store: deps.store,
          knex: deps.knex,
          logger,
          leaderLock: createAdvisoryLeaderLock(connectionUrl(deps), BRIDGE_LOCK_KEY),
        });
        bridge.start();
        logger.info({ brokers }, 'kafka bridge started');
      }
      if (deps.config.role === 'graph-consumer') {
        // The worker reports healthy at once and joins the group when the broker answers.
        void (async () => {
          for (let delay = 1000; !stopping; delay = Math.min(delay * 2, 30_000)) {
            try {
              const joined = await startGraphConsumer(kafkaClient(brokers, 'graph-consumer'), deps, logger);
              if (stopping) await joined.disconnect();
              else consumer = joined;
              logger.info({ brokers }, 'graph consumer started');
              return;
            } catch (err) {
              logger.warn(
                { err: err instanceof Error ? err.message : String(err), retryInMs: delay },
                'graph consumer: broker unavailable',
              );
              await new Promise((r) => setTimeout(r, delay).unref());
            }
          }
        })();
      }
    },
    async stop() {
      stopping = true;
      await bridge?.stop();
      await consumer?.disconnect();
      bridge = null;
      consumer = null;
    },
  };
}

export const ingestionContext: ContextModule = createIngestionContext();
