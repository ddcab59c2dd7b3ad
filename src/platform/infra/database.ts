import knexFactory, { Knex } from 'knex';
import { Pool } from 'pg';

export interface Database {
  url: string;
  /** Read models, migrations, queries. */
  knex: Knex;
  /** The event store's own pool: appends should not queue behind read-model work. */
  pool: Pool;
  close(): Promise<void>;
}

export function connectDatabase(url: string, { poolSize = 10 }: { poolSize?: number } = {}): Database {
  const knex = knexFactory({
    client: 'pg',
    connection: url,
    pool: { min: 0, max: poolSize },
  });
  const pool = new Pool({ connectionString: url, max: poolSize });
  // An idle client that loses its server must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  return {
    url,
    knex,
    pool,
    async close() {
      await Promise.allSettled([knex.destroy(), pool.end()]);
    },
  };
}
