import type { Knex } from 'knex';
import { Client, type ClientConfig } from 'pg';
import { createEventStoreSchema, dropEventStoreSchema } from '../../eventstore/postgres/schema';
import { createCheckpointsTable, CHECKPOINTS_TABLE } from '../../projection-runner/checkpoints';
import { createSecretsTable, SECRETS_TABLE } from '../secret-store';
import { createSnapshotsTable, SNAPSHOTS_TABLE } from '../../command-handling/snapshots';
import {
  appendAnswersLastPosition,
  appendAnswersPositions,
  createAppendFunction,
  createAppendManyFunction,
  dropAppendFunction,
  dropAppendManyFunction,
  planAppendEachTime,
  planAppendOnce,
} from '../../eventstore/postgres/append-function';
import { createDeadLettersTable, DEAD_LETTERS_TABLE } from '../../projection-runner/dead-letters';
import { ARTIFACT_BLOBS_TABLE, createArtifactBlobsTable } from '../artifact-blobs';
import {
  addInlineGapsShortPath,
  createInlineGapsTable,
  dropInlineGapsShortPath,
  dropInlineGapsTable,
} from '../../projection-runner/inline-gaps';

/**
 * Platform tables, in order. Read-model tables are not here: each projector creates its
 * own (and the runner recreates them on a version change). Append new entries at the end.
 */
export interface Migration {
  name: string;
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

export const migrations: Migration[] = [
  { name: '0001_event_store', up: createEventStoreSchema, down: dropEventStoreSchema },
  {
    name: '0002_projection_checkpoints',
    up: createCheckpointsTable,
    down: (knex) => knex.schema.dropTableIfExists(CHECKPOINTS_TABLE),
  },
  { name: '0003_secret_store', up: createSecretsTable, down: (knex) => knex.schema.dropTableIfExists(SECRETS_TABLE) },
  {
    name: '0004_stream_snapshots',
    up: createSnapshotsTable,
    down: (knex) => knex.schema.dropTableIfExists(SNAPSHOTS_TABLE),
  },
  { name: '0005_append_function', up: createAppendFunction, down: dropAppendFunction },
  {
    name: '0006_projection_dead_letters',
    up: createDeadLettersTable,
    down: (knex) => knex.schema.dropTableIfExists(DEAD_LETTERS_TABLE),
  },
  {
    name: '0007_checklist_artifact_blobs',
    up: createArtifactBlobsTable,
    down: (knex) => knex.schema.dropTableIfExists(ARTIFACT_BLOBS_TABLE),
  },
  { name: '0008_append_generic_plan', up: planAppendOnce, down: planAppendEachTime },
  { name: '0009_append_answers_positions', up: appendAnswersPositions, down: appendAnswersLastPosition },
  { name: '0010_append_to_streams', up: createAppendManyFunction, down: dropAppendManyFunction },
  { name: '0011_inline_projection_gaps', up: createInlineGapsTable, down: dropInlineGapsTable },
  { name: '0012_inline_gaps_short_path', up: addInlineGapsShortPath, down: dropInlineGapsShortPath },
];

class ListMigrationSource implements Knex.MigrationSource<Migration> {
  constructor(private readonly list: Migration[]) {}
  async getMigrations() {
    return this.list;
  }
  getMigrationName(migration: Migration) {
    return migration.name;
  }
  async getMigration(migration: Migration) {
    return migration;
  }
}

// Arbitrary but fixed, distinct from the leader locks: every instance must agree on it.
const MIGRATION_LOCK_KEY = 72_114_000;

/**
 * Applies pending migrations under a session-level advisory lock held on a connection of its
 * own: two instances starting at once on an empty database would otherwise both create
 * knex's bookkeeping tables (`relation "knex_migrations" already exists`). The second waits,
 * then finds nothing left to apply.
 */
export async function migrateToLatest(knex: Knex): Promise<string[]> {
  const connection = (knex.client as { config: { connection: string | ClientConfig } }).config.connection;
  const lock = new Client(typeof connection === 'string' ? { connectionString: connection } : connection);
  // A lock connection lost mid-migration must not end the process: the migration goes on
  // under knex's own lock table, which refuses a second migrator.
  lock.on('error', () => undefined);
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const [, applied] = await knex.migrate.latest({ migrationSource: new ListMigrationSource(migrations) });
    return applied as string[];
  } finally {
    // Ending the session releases the lock, also when the unlock itself cannot be sent.
    await lock.end().catch(() => undefined);
  }
}
