import type { Knex } from 'knex';

/**
 * Decision-state snapshots of long streams. Not a read model: each row is a pure function
 * of its stream up to `revision` (tests verify it against a full fold), and dropping the
 * table only makes the next command read from revision 0.
 */
export const SNAPSHOTS_TABLE = 'stream_snapshots';

export async function createSnapshotsTable(knex: Knex): Promise<void> {
  await knex.schema.createTable(SNAPSHOTS_TABLE, (t) => {
    t.text('stream_id').primary();
    t.bigint('revision').notNullable();
    t.integer('version').notNullable();
    t.jsonb('state').notNullable();
    t.timestamp('taken_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export interface Snapshot {
  revision: bigint;
  version: number;
  state: unknown;
}

export interface SnapshotStore {
  load(stream: string): Promise<Snapshot | null>;
  save(stream: string, snapshot: Snapshot): Promise<void>;
}

export function createSnapshotStore(knex: Knex): SnapshotStore {
  return {
    async load(stream) {
      const row = await knex(SNAPSHOTS_TABLE).where({ stream_id: stream }).first();
      return row ? { revision: BigInt(row.revision), version: Number(row.version), state: row.state } : null;
    },
    async save(stream, snapshot) {
      // Only ever forwards: a slower writer of an older snapshot must not replace a newer one.
      await knex.raw(
        `INSERT INTO ${SNAPSHOTS_TABLE} (stream_id, revision, version, state) VALUES (?, ?, ?, ?::jsonb)
         ON CONFLICT (stream_id) DO UPDATE SET revision = EXCLUDED.revision, version = EXCLUDED.version, state = EXCLUDED.state, taken_at = now()
         WHERE ${SNAPSHOTS_TABLE}.revision < EXCLUDED.revision OR ${SNAPSHOTS_TABLE}.version <> EXCLUDED.version`,
        [stream, snapshot.revision.toString(), snapshot.version, JSON.stringify(snapshot.state)],
      );
    },
  };
}
