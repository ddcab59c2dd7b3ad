import type { Pool } from 'pg';

/** A stream's head as the `streams` table records it: what the log must end with. */
export interface StreamHead {
  stream: string;
  revision: bigint;
  signature: string | null;
}

/** The heads, paged by name, for audit verification and anchoring (PostgreSQL store). */
export interface StreamHeads {
  page(after: string | null, limit: number, prefix?: string): Promise<StreamHead[]>;
  totals(prefix?: string): Promise<{ streams: number; events: number }>;
  /** Streams with events but no head row (a removed head row hides a whole stream otherwise). */
  headless(prefix?: string): Promise<string[]>;
}

const like = (prefix?: string) => `${(prefix ?? '').replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export function createStreamHeads(pool: Pool): StreamHeads {
  return {
    async page(after, limit, prefix) {
      const { rows } = await pool.query<{ stream_id: string; revision: string; last_signature: string | null }>(
        `SELECT stream_id, revision::text, last_signature FROM streams
          WHERE stream_id LIKE $1 AND ($2::text IS NULL OR stream_id > $2) ORDER BY stream_id LIMIT $3`,
        [like(prefix), after, limit],
      );
      return rows.map((r) => ({ stream: r.stream_id, revision: BigInt(r.revision), signature: r.last_signature }));
    },
    async totals(prefix) {
      const { rows } = await pool.query<{ streams: string; events: string }>(
        `SELECT count(*)::text AS streams, coalesce(sum(revision + 1), 0)::text AS events FROM streams WHERE stream_id LIKE $1`,
        [like(prefix)],
      );
      return { streams: Number(rows[0].streams), events: Number(rows[0].events) };
    },
    async headless(prefix) {
      const { rows } = await pool.query<{ stream_id: string }>(
        `SELECT DISTINCT e.stream_id FROM events e WHERE e.stream_id LIKE $1
           AND NOT EXISTS (SELECT 1 FROM streams s WHERE s.stream_id = e.stream_id) ORDER BY 1`,
        [like(prefix)],
      );
      return rows.map((r) => r.stream_id);
    },
  };
}
