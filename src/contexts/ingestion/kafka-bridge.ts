import type { Admin, Kafka, Producer } from 'kafkajs';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { EventStore, Position, RecordedEvent } from '../../platform/eventstore/types';
import { comparePositions, START } from '../../platform/eventstore/types';
import type { LeaderLock } from '../../platform/projection-runner/leader-lock';
import { retryDelayMs } from '../../platform/infra/backoff';
import {
  brokerData,
  brokerEventType,
  ENTITY_EXTRACTION_TOPIC,
  PUBLISHED_EVENT_TYPES,
} from '../../../streams/ingestion/broker-messages';

/**
 * The Kafka bridge: a subscription on the event log that publishes
 * ingestion events as `{event_type, data}` to `entity-extraction-worker`. Its checkpoint
 * (a row of its own table, the (commit, prepare) pair like a projector's) moves only after
 * the broker acknowledged the batch with acks=all, so a broker outage delays messages and
 * never drops one; after a crash between the ack and the checkpoint a batch is published
 * again (at-least-once: consumers dedupe by the `event-id` header or, like the graph
 * consumer, apply idempotently). One instance publishes at a time (advisory lock).
 *
 * The log is filtered by type in the database, and a round whose read comes back short also
 * moves the checkpoint past the events it did not publish (up to the head taken before the
 * read): each round reads only what was appended since the last one, however long the log
 * has grown since the last ingestion event.
 */
export const BRIDGE_CHECKPOINTS = 'ingestion_bridge_checkpoints';
export const BRIDGE_NAME = `kafka:${ENTITY_EXTRACTION_TOPIC}`;
export const BRIDGE_LOCK_KEY = 72_114_015;
export const TOPIC_PARTITIONS = 3;
export const TOPIC_REPLICATION = 1;

export async function ensureBridgeTable(knex: Knex): Promise<void> {
  if (await knex.schema.hasTable(BRIDGE_CHECKPOINTS)) return;
  await knex.raw(
    `CREATE TABLE IF NOT EXISTS ${BRIDGE_CHECKPOINTS} (
       name text PRIMARY KEY,
       commit_position bigint NOT NULL,
       prepare_position bigint NOT NULL,
       published bigint NOT NULL DEFAULT 0,
       last_error text,
       updated_at timestamptz NOT NULL DEFAULT now())`,
  );
}

export interface BridgeCheckpoint {
  position: Position;
  published: number;
  lastError: string | null;
  updatedAt: Date | null;
}

export async function readBridgeCheckpoint(knex: Knex, name = BRIDGE_NAME): Promise<BridgeCheckpoint> {
  if (!(await knex.schema.hasTable(BRIDGE_CHECKPOINTS)))
    return { position: START, published: 0, lastError: null, updatedAt: null };
  const row = await knex(BRIDGE_CHECKPOINTS).where({ name }).first();
  if (!row) return { position: START, published: 0, lastError: null, updatedAt: null };
  return {
    position: { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) },
    published: Number(row.published),
    lastError: row.last_error ?? null,
    updatedAt: row.updated_at,
  };
}

/**
 * Compare-and-set on the position the round started from: a stale leader (its lock lost
 * while it published) cannot move the checkpoint back or past another instance's.
 */
async function advanceCheckpoint(
  knex: Knex,
  name: string,
  from: Position,
  to: Position,
  published: number,
): Promise<boolean> {
  // Skipping past unpublished events says nothing about the broker: its last error stays.
  const outcome = published > 0 ? { published: knex.raw('published + ?', [published]), last_error: null } : {};
  const updated = await knex(BRIDGE_CHECKPOINTS)
    .where({ name, commit_position: from.commit.toString(), prepare_position: from.prepare.toString() })
    .update({
      commit_position: to.commit.toString(),
      prepare_position: to.prepare.toString(),
      ...outcome,
      updated_at: knex.fn.now(),
    });
  if (updated > 0) return true;
  const inserted = await knex(BRIDGE_CHECKPOINTS)
    .insert({
      name,
      commit_position: to.commit.toString(),
      prepare_position: to.prepare.toString(),
      published,
      last_error: null,
      updated_at: knex.fn.now(),
    })
    .onConflict('name')
    .ignore()
    .returning('name');
  return inserted.length > 0;
}

async function saveError(knex: Knex, name: string, message: string): Promise<void> {
  await knex(BRIDGE_CHECKPOINTS)
    .insert({
      name,
      commit_position: START.commit.toString(),
      prepare_position: START.prepare.toString(),
      published: 0,
      last_error: message,
      updated_at: knex.fn.now(),
    })
    .onConflict('name')
    .merge({ last_error: message, updated_at: knex.fn.now() });
}

/** The message for one event: key = broker event type, value = `{event_type, data}`. */
export function toMessage(event: RecordedEvent) {
  const data = brokerData(event.type, event.data as Record<string, unknown>);
  const eventType = brokerEventType(event.type, data);
  return {
    key: eventType,
    value: JSON.stringify({ event_type: eventType, data }),
    headers: {
      source: 'ingestion',
      'event-id': event.id,
      'event-type': event.type,
      'tenant-id': event.metadata.tenantId,
    },
  };
}

export interface KafkaBridgeOptions {
  kafka: Pick<Kafka, 'producer' | 'admin'>;
  store: EventStore;
  knex: Knex;
  logger: Logger;
  leaderLock: LeaderLock;
  topic?: string;
  /** Events read per round; messages are sent in one request per round. */
  batchSize?: number;
  pollMs?: number;
  maxBackoffMs?: number;
  /** Messages per produce request are cut at this many bytes of values (at least one message). */
  maxRequestBytes?: number;
}

function* chunksBySize(events: RecordedEvent[], maxBytes: number): Generator<RecordedEvent[]> {
  let chunk: RecordedEvent[] = [];
  let bytes = 0;
  for (const event of events) {
    const size = JSON.stringify(brokerData(event.type, event.data as Record<string, unknown>)).length;
    if (chunk.length > 0 && bytes + size > maxBytes) {
      yield chunk;
      chunk = [];
      bytes = 0;
    }
    chunk.push(event);
    bytes += size;
  }
  if (chunk.length > 0) yield chunk;
}

export class KafkaBridge {
  private producer: Producer | null = null;
  private topicReady = false;
  private stopped = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private readonly topic: string;
  private readonly batchSize: number;
  private readonly maxRequestBytes: number;
  /** Consecutive failed rounds (0 while the broker answers). */
  failures = 0;

  constructor(private readonly options: KafkaBridgeOptions) {
    this.topic = options.topic ?? ENTITY_EXTRACTION_TOPIC;
    this.batchSize = options.batchSize ?? 100;
    this.maxRequestBytes = options.maxRequestBytes ?? 900 * 1024;
  }

  start(): void {
    this.stopped = false;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    await this.disconnect();
    await this.options.leaderLock.release();
  }

  private async disconnect(): Promise<void> {
    const producer = this.producer;
    this.producer = null;
    this.topicReady = false;
    if (producer) await producer.disconnect().catch(() => undefined);
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private async run(): Promise<void> {
    const pollMs = this.options.pollMs ?? 500;
    const maxBackoff = this.options.maxBackoffMs ?? 30_000;
    await ensureBridgeTable(this.options.knex);
    while (!this.stopped) {
      try {
        const published = await this.tick();
        if (published === 0) await this.sleep(pollMs);
      } catch (error) {
        this.failures++;
        // The first failure already waits twice the poll.
        const delay = retryDelayMs(this.failures + 1, pollMs, maxBackoff);
        const message = error instanceof Error ? error.message : String(error);
        this.options.logger.warn(
          { err: message, failures: this.failures, retryInMs: delay },
          'kafka bridge: broker unavailable; events stay in the log and are published when it returns',
        );
        await saveError(this.options.knex, BRIDGE_NAME, message).catch(() => undefined);
        await this.disconnect();
        await this.sleep(delay);
      }
    }
  }

  private async ensureTopic(): Promise<void> {
    if (this.topicReady) return;
    const admin: Admin = this.options.kafka.admin();
    await admin.connect();
    try {
      // false when the topic exists already; the broker keeps its partitioning.
      await admin.createTopics({
        waitForLeaders: true,
        topics: [{ topic: this.topic, numPartitions: TOPIC_PARTITIONS, replicationFactor: TOPIC_REPLICATION }],
      });
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
    this.topicReady = true;
  }

  /**
   * One round: as leader, read the next events after the checkpoint, publish them, and once
   * the broker acknowledged, move the checkpoint past them. Returns how many were published.
   */
  async tick(): Promise<number> {
    if (!(await this.options.leaderLock.tryAcquire())) {
      this.options.logger.debug('kafka bridge: another instance holds the bridge lock');
      return 0;
    }
    const { knex, store } = this.options;
    const { position } = await readBridgeCheckpoint(knex);
    // Taken before the read: when the read comes back short, every event up to here was seen.
    const head = await store.headPosition();
    // Nothing appended since the last round: no read at all (an idle bridge costs two lookups).
    if (comparePositions(head, position) <= 0) return 0;
    const events = await store.readAll({
      from: position,
      limit: this.batchSize,
      filter: { eventTypes: [...PUBLISHED_EVENT_TYPES] },
    });
    this.options.logger.debug({ events: events.length }, 'kafka bridge: round');
    const seenTo = events.length < this.batchSize && comparePositions(head, position) > 0 ? head : null;
    if (events.length === 0) {
      if (seenTo) await advanceCheckpoint(knex, BRIDGE_NAME, position, seenTo, 0);
      return 0;
    }
    await this.ensureTopic();
    if (!this.producer) {
      const producer = this.options.kafka.producer({
        allowAutoTopicCreation: false,
        idempotent: true,
        maxInFlightRequests: 1,
      });
      await producer.connect();
      this.producer = producer;
    }
    // One request per ~900 kB (the broker's default limit is 1 MB), checkpointed after each ack.
    let from = position;
    let published = 0;
    for (const chunk of chunksBySize(events, this.maxRequestBytes)) {
      // A leader that lost its lock mid-round stops before publishing more.
      if (!this.options.leaderLock.isHeld()) return published;
      await this.producer.send({ topic: this.topic, acks: -1, messages: chunk.map(toMessage) });
      const to = chunk[chunk.length - 1].position;
      if (!(await advanceCheckpoint(knex, BRIDGE_NAME, from, to, chunk.length))) {
        this.options.logger.warn(
          'kafka bridge: another instance moved the checkpoint; this round stops (its messages may be published twice)',
        );
        return published;
      }
      from = to;
      published += chunk.length;
    }
    if (seenTo && comparePositions(seenTo, from) > 0) await advanceCheckpoint(knex, BRIDGE_NAME, from, seenTo, 0);
    if (this.failures > 0)
      this.options.logger.info({ failures: this.failures }, 'kafka bridge: broker back; publishing resumed');
    this.failures = 0;
    return published;
  }
}

/** Events of the published types still after the checkpoint (counted up to `cap`). */
export async function bridgePending(
  store: EventStore,
  knex: Knex,
  cap = 100_000,
): Promise<{ checkpoint: BridgeCheckpoint; pending: number; capped: boolean }> {
  const checkpoint = await readBridgeCheckpoint(knex);
  let pending = 0;
  let from = checkpoint.position;
  while (pending < cap) {
    const page = await store.readAll({ from, limit: 1000, filter: { eventTypes: [...PUBLISHED_EVENT_TYPES] } });
    pending += page.length;
    if (page.length < 1000) break;
    from = page[page.length - 1].position;
  }
  return { checkpoint, pending, capped: pending >= cap };
}
