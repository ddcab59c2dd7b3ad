import type { Knex } from 'knex';
import type { RecordedEvent } from '../eventstore/types';

/**
 * A read-model builder. Bumping `version` makes the runner drop `tables`,
 * call `createTables` and replay every event into `apply`, so a read model is always
 * whatever its events say.
 */
export interface Projector {
  name: string;
  version: number;
  /** Tables this projector owns; dropped on rebuild, in this order. */
  tables: string[];
  createTables(knex: Knex): Promise<void>;
  /** The event types `apply` cares about; others only advance the checkpoint. Absent: all. */
  eventTypes?: readonly string[];
  /**
   * `inline`: applied in the append's own transaction (PostgreSQL store), so the caller's next
   * read sees it and no command waits for it; for cheap, per-tenant read models a caller reads
   * right after its command. An apply that throws fails the append: nothing is written. The
   * runner never applies it live but rebuilds it from the log like any other; on a store
   * without a shared transaction (EventStoreDB) it runs as `read-your-writes`.
   * `eventual`: nobody reads it in the same breath as the write (the audit index): commands
   * never wait for it, and its readers call `ProjectionRunner.catchUp` when they want the
   * latest. Default `read-your-writes`: a command waits until a lane holds what it appended.
   */
  consistency?: 'inline' | 'read-your-writes' | 'eventual';
  /**
   * Of a `read-your-writes` projector's event types, those it takes as `eventual`: a command
   * that appends only these does not wait for it (the compliance dashboard's graph facts: a
   * new well shows grey within a lane batch, while an assessment, which colors it, waits).
   */
  eventualFor?: readonly string[];
  apply(trx: Knex.Transaction, event: RecordedEvent): Promise<void>;
  /**
   * Optional: applies a whole batch (already filtered to `eventTypes`, in log order) at once,
   * e.g. one multi-row upsert instead of a round trip per event. Used instead of `apply`
   * when present; rebuilds of large logs are where it pays.
   */
  applyBatch?(trx: Knex.Transaction, events: RecordedEvent[]): Promise<void>;
}
