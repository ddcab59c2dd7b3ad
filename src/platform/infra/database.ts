import knexFactory, { Knex } from 'knex';
import { CustomTypesConfig, Pool, types as pgTypes } from 'pg';
import { preparingPgClient } from './prepared-statements';

/**
 * How the platform's connections turn columns into values, fixed here rather than taken from
 * `pg.types`, which is process-wide: a library loaded into the same process (Emmett's dumbo
 * sets int8 to BigInt and JSON to a parse with a reviver per value) would otherwise change what
 * every one of our queries returns, and slow every read of an event. The rest are pg's.
 */
const OWN_PARSERS = new Map<number, (value: string) => unknown>([
  [20, (value) => value], // int8: a string, as pg's default (counts and positions are converted where read)
  [114, JSON.parse], // json
  [3802, JSON.parse], // jsonb
]);
export const platformTypes: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => (format !== 'binary' && OWN_PARSERS.get(oid)) || pgTypes.getTypeParser(oid, format)) as CustomTypesConfig['getTypeParser'],
};

export interface Database {
  url: string;
  /** Read models, migrations, queries. */
  knex: Knex;
  /** The event store's own pool: appends should not queue behind read-model work. */
  pool: Pool;
  close(): Promise<void>;
}

/** `prepare`: repeated read-model statements are prepared on each connection (prepared-statements.ts). */
export function connectDatabase(url: string, { poolSize = 10, prepare = true }: { poolSize?: number; prepare?: boolean } = {}): Database {
  const knex = knexFactory({
    client: prepare ? (preparingPgClient() as Knex.Config['client']) : 'pg',
    connection: { connectionString: url, types: platformTypes } as Knex.PgConnectionConfig,
    pool: { min: 0, max: poolSize },
  });
  const pool = new Pool({ connectionString: url, max: poolSize, types: platformTypes });
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
