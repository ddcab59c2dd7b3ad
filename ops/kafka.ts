import type { Command } from 'commander';
import type { Admin } from 'kafkajs';
import type { Knex } from 'knex';
import { kafkaClient } from '../src/contexts/ingestion/kafka-client';
import { loadConfig } from '../src/platform/config';
import { positionToString } from '../src/platform/eventstore/types';
import type { EventStore } from '../src/platform/eventstore/types';
import { openInfrastructure } from '../src/platform/infra/infrastructure';
import { createLogger } from '../src/platform/infra/logger';
import { GRAPH_CONSUMER_GROUP } from '../src/contexts/ingestion/graph-consumer';
import { bridgePending } from '../src/contexts/ingestion/kafka-bridge';
import { ENTITY_EXTRACTION_TOPIC } from '../streams/ingestion/broker-messages';

export interface PartitionLag {
  partition: number;
  high: number;
  committed: number | null;
  lag: number;
}

/** Per partition: the topic's high-water mark minus the group's committed offset (all of it when none). */
export async function consumerLag(
  admin: Pick<Admin, 'fetchTopicOffsets' | 'fetchOffsets'>,
  topic: string,
  groupId: string,
): Promise<PartitionLag[]> {
  const [ends, committed] = await Promise.all([
    admin.fetchTopicOffsets(topic),
    admin.fetchOffsets({ groupId, topics: [topic] }),
  ]);
  const offsets = new Map(
    (committed.find((t) => t.topic === topic)?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]),
  );
  return ends
    .map((end) => {
      const high = Number(end.high);
      const low = Number(end.low);
      const offset = offsets.get(end.partition);
      const known = offset !== undefined && offset >= 0 ? offset : null;
      return { partition: end.partition, high, committed: known, lag: high - (known ?? low) };
    })
    .sort((a, b) => a.partition - b.partition);
}

/** The lines of `ops kafka status`: the bridge's backlog in the log, then the consumer group's lag. */
export async function kafkaStatus(
  store: EventStore,
  knex: Knex,
  admin: Pick<Admin, 'fetchTopicOffsets' | 'fetchOffsets'> | null,
): Promise<string[]> {
  const { checkpoint, pending, capped } = await bridgePending(store, knex);
  const lines = [
    `topic: ${ENTITY_EXTRACTION_TOPIC}`,
    `bridge checkpoint: ${positionToString(checkpoint.position)}  published: ${checkpoint.published}  updated: ${checkpoint.updatedAt?.toISOString() ?? 'never'}`,
    `bridge lag: ${pending}${capped ? '+' : ''} events in the log not yet acknowledged by the broker`,
  ];
  if (checkpoint.lastError) lines.push(`bridge last error: ${checkpoint.lastError}`);
  if (!admin) {
    lines.push('broker: off (KAFKA_BROKERS is not set; events stay in the log)');
    return lines;
  }
  const partitions = await consumerLag(admin, ENTITY_EXTRACTION_TOPIC, GRAPH_CONSUMER_GROUP);
  lines.push(`consumer group ${GRAPH_CONSUMER_GROUP}: lag ${partitions.reduce((sum, p) => sum + p.lag, 0)}`);
  for (const p of partitions)
    lines.push(`  partition ${p.partition}: high ${p.high}  committed ${p.committed ?? '-'}  lag ${p.lag}`);
  return lines;
}

export function registerKafkaCommands(program: Command): void {
  const kafka = program.command('kafka').description('the Kafka bridge and the graph consumer');
  kafka
    .command('status')
    .description('bridge checkpoint and backlog; consumer-group lag per partition when KAFKA_BROKERS is set')
    .action(async () => {
      const config = loadConfig();
      const infrastructure = await openInfrastructure(config, createLogger('warn'));
      const admin = config.kafkaBrokers ? kafkaClient(config.kafkaBrokers, 'ops-kafka-status').admin() : null;
      try {
        await admin?.connect();
        for (const line of await kafkaStatus(infrastructure.store, infrastructure.db.knex, admin)) console.log(line);
      } finally {
        await admin?.disconnect().catch(() => undefined);
        await infrastructure.close();
      }
    });
}
