import type { Knex } from 'knex';

/**
 * The append-only log. `transaction_id` records the writing transaction so readers can
 * order by (transaction_id, position) and never skip an event whose position was taken
 * before a later-committing one (positions come from a sequence and commit out of order).
 */
export async function createEventStoreSchema(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE streams (
      stream_id      text PRIMARY KEY,
      revision       bigint NOT NULL,
      last_signature text,
      created_at     timestamptz NOT NULL DEFAULT now(),
      updated_at     timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE events (
      position       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
      stream_id      text NOT NULL,
      revision       bigint NOT NULL,
      event_id       uuid NOT NULL,
      type           text NOT NULL,
      data           jsonb NOT NULL,
      metadata       jsonb NOT NULL,
      recorded_at    timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT events_event_id_key UNIQUE (event_id),
      CONSTRAINT events_stream_revision_key UNIQUE (stream_id, revision)
    );
    CREATE INDEX events_transaction_position_idx ON events (transaction_id, position);

    CREATE FUNCTION events_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'events are append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
    END $$;
    CREATE TRIGGER events_no_update_delete BEFORE UPDATE OR DELETE ON events
      FOR EACH ROW EXECUTE FUNCTION events_are_append_only();
    CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
      FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();
  `);
}

export async function dropEventStoreSchema(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE IF EXISTS events;
    DROP TABLE IF EXISTS streams;
    DROP FUNCTION IF EXISTS events_are_append_only();
  `);
}

/** Notification channel: a wake-up only; readers always re-read the table. */
export const APPEND_CHANNEL = 'events_appended';
