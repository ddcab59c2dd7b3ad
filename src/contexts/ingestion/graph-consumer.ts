import type { Consumer, Kafka, KafkaMessage } from 'kafkajs';
import type { Logger } from 'pino';
import { feedGraph, type FeedDeps, type GraphFacts } from '../../../commands/ingestion/feed-graph';
import { ENTITY_EXTRACTION_TOPIC } from '../../../streams/ingestion/broker-messages';
import type { CsvWell } from '../../../streams/ingestion/operator-csv-import';
import type { ExtractedEdge, ExtractedEntity } from '../../../streams/ingestion/entity-extraction';
import { SYSTEM_USER_ID } from '../../../streams/identity/system-accounts';
import { csvFacts, extractionFacts, scrapeFacts } from '../../../commands/ingestion/graph-facts';

/**
 * Consumer mode (`ROLE=graph-consumer`): the knowledge graph fed from the topic, for
 * deployments where ingestion runs apart from the graph. Group `graph-consumer`, earliest
 * offset when none is committed, offsets committed automatically. Feeding is
 * idempotent (vertex and edge ids derive from business keys, unchanged properties append
 * nothing), so a redelivered message changes nothing.
 */
export const GRAPH_CONSUMER_GROUP = 'graph-consumer';

/** The graph facts a broker message carries, or null for a message the graph does not need. */
export function factsOfMessage(eventType: string, data: Record<string, unknown>): GraphFacts | null {
  if (eventType.endsWith('_scraped') && Array.isArray(data.records))
    return scrapeFacts(eventType.slice(0, -'_scraped'.length), data.records as Array<Record<string, unknown>>);
  if (eventType === 'operator_wells_imported' && Array.isArray(data.wells)) return csvFacts(data.wells as CsvWell[]);
  if (eventType === 'entities_extracted' && Array.isArray(data.entities))
    return extractionFacts(data.entities as ExtractedEntity[], (data.edges ?? []) as ExtractedEdge[]);
  return null;
}

export async function applyMessage(
  deps: FeedDeps,
  logger: Logger,
  message: Pick<KafkaMessage, 'value' | 'headers'>,
): Promise<boolean> {
  const header = message.headers?.['tenant-id'];
  const tenantId =
    header === undefined ? undefined : Buffer.isBuffer(header) ? header.toString('utf8') : String(header);
  let body: { event_type?: unknown; data?: unknown };
  try {
    body = JSON.parse(message.value?.toString('utf8') ?? '');
  } catch {
    logger.warn('graph consumer: skipped a message that is not JSON');
    return false;
  }
  if (!tenantId || typeof body.event_type !== 'string' || !body.data || typeof body.data !== 'object') {
    logger.warn(
      { eventType: body.event_type },
      'graph consumer: skipped a message without tenant-id header or {event_type, data}',
    );
    return false;
  }
  const facts = factsOfMessage(body.event_type, body.data as Record<string, unknown>);
  if (!facts) return false;
  await feedGraph(deps, { tenantId, userId: SYSTEM_USER_ID }, facts, {
    source: 'kafka',
    description: `${body.event_type} from ${ENTITY_EXTRACTION_TOPIC}`,
  });
  return true;
}

export async function startGraphConsumer(
  kafka: Pick<Kafka, 'consumer'>,
  deps: FeedDeps,
  logger: Logger,
  topic = ENTITY_EXTRACTION_TOPIC,
): Promise<Consumer> {
  const consumer = kafka.consumer({ groupId: GRAPH_CONSUMER_GROUP });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    autoCommit: true,
    // A failure throws, so kafkajs retries the message instead of committing past it.
    eachMessage: async ({ message }) => {
      await applyMessage(deps, logger, message);
    },
  });
  return consumer;
}
