import type { Consumer } from 'kafkajs';
import { Kafka, logLevel } from 'kafkajs';
import { Router } from 'express';
import { ExtractBody, extractFromText } from '../../commands/ingestion/extract-from-text';
import { importOperatorCsv } from '../../commands/ingestion/import-operator-csv';
import { recordScadaReadings, ScadaBody } from '../../commands/ingestion/record-scada-readings';
import { RrcScrapeBody, runRrcScrape } from '../../commands/ingestion/run-rrc-scrape';
import { ingestionAuditCatalog } from '../audit/catalogs/ingestion';
import type { ContextModule, PlatformDeps } from '../context-module';
import { commandContext } from '../http/command-context';
import { parseBody } from '../http/validation';
import { withCsvUpload } from '../ingestion/csv-upload';
import { startGraphConsumer } from '../ingestion/graph-consumer';
import { BRIDGE_LOCK_KEY, KafkaBridge } from '../ingestion/kafka-bridge';
import { ingestionApi } from './ingestion.openapi';
import { requirePermission } from '../identity/require-permission';
import { createAdvisoryLeaderLock } from '../projection-runner/leader-lock';

/** Ingestion (spec 3 §4): RRC scrape simulator, operator CSV, SCADA readings, entity extraction. */
export function createIngestionApi(deps: PlatformDeps): Router {
  const router = Router();

  router.post('/ingest/rrc-scrape', async (req, res) => {
    requirePermission(req, 'ingest.run', deps);
    const body = parseBody(req, RrcScrapeBody);
    res.json(await runRrcScrape(deps, commandContext(req), body, deps.clock()));
  });

  router.post('/ingest/operator/csv', async (req, res) => {
    requirePermission(req, 'ingest.run', deps);
    const context = commandContext(req);
    res.json(await withCsvUpload(req, res, (file) => importOperatorCsv(deps, context, file)));
  });

  router.post('/ingest/scada', async (req, res) => {
    requirePermission(req, 'ingest.run', deps);
    const body = parseBody(req, ScadaBody);
    res.json(await recordScadaReadings(deps, commandContext(req), body));
  });

  return router;
}

/** `POST /extract` exists only on the internal listener (spec 3 §4), with the same roles. */
export function createExtractionApi(deps: PlatformDeps): Router {
  const router = Router();
  router.post('/extract', async (req, res) => {
    requirePermission(req, 'ingest.run', deps);
    const { text } = parseBody(req, ExtractBody);
    res.json(await extractFromText(deps, commandContext(req), text));
  });
  return router;
}

/** The database URL behind the pool (knex keeps it parsed), for the bridge's advisory-lock connection. */
export function connectionUrl(deps: Pick<PlatformDeps, 'knex'>): string {
  const connection = (deps.knex.client as { config: { connection: unknown } }).config.connection;
  if (typeof connection === 'string') return connection;
  const c = connection as { connectionString?: string; user?: string; password?: string; host?: string; port?: string | number; database?: string };
  if (c.connectionString) return c.connectionString;
  const auth = c.user ? `${encodeURIComponent(c.user)}${c.password ? `:${encodeURIComponent(c.password)}` : ''}@` : '';
  return `postgres://${auth}${c.host ?? '127.0.0.1'}:${c.port ?? 5432}/${encodeURIComponent(c.database ?? 'postgres')}`;
}

export function kafkaClient(brokers: string[], clientId: string): Kafka {
  return new Kafka({ clientId, brokers, logLevel: logLevel.NOTHING, retry: { retries: 3 } });
}

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
    publicRouter: createIngestionApi,
    internalRouter: createExtractionApi,
    openapi: ingestionApi,
    audit: ingestionAuditCatalog,
    async start(deps) {
      stopping = false;
      const brokers = deps.config.kafkaBrokers;
      if (!brokers || brokers.length === 0) {
        if (deps.config.role === 'bridge' || deps.config.role === 'graph-consumer') deps.logger.warn({ role: deps.config.role }, 'KAFKA_BROKERS is not set: this worker has nothing to do');
        return;
      }
      const logger = deps.logger.child({ component: 'kafka' });
      if (deps.config.role === 'all' || deps.config.role === 'bridge') {
        bridge = new KafkaBridge({ kafka: kafkaClient(brokers, 'ingestion-bridge'), store: deps.store, knex: deps.knex, logger, leaderLock: createAdvisoryLeaderLock(connectionUrl(deps), BRIDGE_LOCK_KEY) });
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
              logger.warn({ err: err instanceof Error ? err.message : String(err), retryInMs: delay }, 'graph consumer: broker unavailable');
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
