import knexFactory, { type Knex } from 'knex';
import { type CustomTypesConfig, Pool, types as pgTypes } from 'pg';
import type { Logger } from 'pino';
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
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    (format !== 'binary' && OWN_PARSERS.get(oid)) ||
    pgTypes.getTypeParser(oid, format)) as CustomTypesConfig['getTypeParser'],
};

export interface Database {
  url: string;
  /** Read models, migrations, queries. */
  knex: Knex;
  /** The event store's own pool: appends should not queue behind read-model work. */
  pool: Pool;
  close(): Promise<void>;
}

/**
 * A connection that loses its server (reset, closed, its backend terminated) emits 'error',
 * also while a holder has it checked out and between two of its queries, when pg-pool has
 * taken its own listener off: unheard, that event ends the process. Every connection gets a
 * listener for its whole life that only logs: the holder's pending and next queries fail
 * (a 503 to a request, a retry to a lane), and the pool discards the dead connection when it
 * is given back and opens a new one on next use (docs/operations.md, "Connection faults").
 */
export function logConnectionErrors(
  emitter: { on(event: 'error', listener: (error: Error) => void): unknown },
  logger: Logger | undefined,
  holder: string,
): void {
  emitter.on('error', (error) =>
    logger?.warn({ err: error, holder }, 'database connection lost; it is replaced on next use'),
  );
}

/** `prepare`: repeated read-model statements are prepared on each connection (prepared-statements.ts). */
export function connectDatabase(
  url: string,
  { poolSize = 10, prepare = true, logger }: { poolSize?: number; prepare?: boolean; logger?: Logger } = {},
): Database {
  const knex = knexFactory({
    client: prepare ? (preparingPgClient() as Knex.Config['client']) : 'pg',
    connection: { connectionString: url, types: platformTypes } as Knex.PgConnectionConfig,
    // knex reports a connection it discards as a warning on the console otherwise.
    log: logger && { warn: (message: unknown) => logger.warn({ knex: String(message) }, 'read-model pool') },
    pool: {
      min: 0,
      max: poolSize,
      // knex's dialect listens too, and discards the connection when it is given back.
      afterCreate: (
        connection: Parameters<typeof logConnectionErrors>[0],
        done: (error: Error | null, c: unknown) => void,
      ) => {
        logConnectionErrors(connection, logger, 'read-model pool');
        done(null, connection);
      },
    },
  });
  const pool = new Pool({ connectionString: url, max: poolSize, types: platformTypes });
  // An idle client that loses its server: pg-pool discards it and re-emits here.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => logConnectionErrors(client, logger, 'event store pool'));
  return {
    url,
    knex,
    pool,
    async close() {
      await Promise.allSettled([knex.destroy(), pool.end()]);
    },
  };
}
