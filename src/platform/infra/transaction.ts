import knexFactory, { type Knex } from 'knex';
import type { PoolClient } from 'pg';

type Callback = (error: Error | null, result?: unknown) => void;
type Query = (config: unknown, values?: unknown, callback?: unknown) => unknown;

/** pg's client as far as pipelining goes: a public config flag, read on every query. */
type Pipelining = PoolClient & { pipeline?: boolean; _sentQueryQueue?: unknown[]; _queryQueue?: unknown[] };

/** Statements sent or queued behind the one being answered (pg's own queues). */
const inFlight = (client: Pipelining) => (client._sentQueryQueue?.length ?? 0) + (client._queryQueue?.length ?? 0);

export interface DeferredBegin {
  /**
   * Whether the transaction was opened: false when no statement followed (no BEGIN was sent,
   * so there is nothing to commit or roll back). Rejects with BEGIN's error if it failed.
   */
  opened(): Promise<boolean>;
  /** Puts the connection back as it was, whatever happened (call once the transaction ended). */
  release(): void;
}

/**
 * A transaction whose `begin` (BEGIN, with any SET LOCAL) goes out with its first statement,
 * pipelined, instead of a round trip ahead of it: a command's transaction is BEGIN, its append,
 * the inline projections' statements and COMMIT, and every round trip costs both processes a
 * socket write, a read and a wake-up. BEGIN, two inserts and COMMIT on one
 * connection of the 2-core bench machine: 10–90 µs less client CPU per transaction, and one
 * round trip less of latency (the commands' and the turn's figures: docs/benchmarks.md).
 *
 * The first `query` call on the connection after this sends `begin` and that statement back to
 * back in pg's pipeline mode, and the connection leaves pipeline mode as soon as the statement
 * is answered, so everything after it (a COPY stream among them, which pipeline mode refuses)
 * runs as usual. A first statement that is itself a stream (pg's submittable queries) is
 * queued behind `begin` the ordinary way. BEGIN is answered before the statement behind it;
 * if it failed, the statement reports BEGIN's error, so the caller rolls back.
 */
export function beginWithFirstStatement(connection: PoolClient, begin: string): DeferredBegin {
  const client = connection as Pipelining;
  const own = client.query as unknown as Query;
  let begun: Promise<unknown> | null = null;
  let restored = false;
  // Usually pg's own method, from the prototype; a query patched onto this client is kept.
  const patched = Object.prototype.hasOwnProperty.call(client, 'query');
  const restore = () => {
    if (restored) return;
    restored = true;
    if (patched) (client as unknown as { query: Query }).query = own;
    else delete (client as { query?: unknown }).query;
  };

  let beginError: Error | null = null;
  const sendBegin = () => {
    // pg calls back as it reads BEGIN's answer, before it reads the next statement's.
    begun = new Promise<void>((resolve, reject) =>
      own.call(client, begin, (error: Error | null) => {
        if (!error) return resolve();
        beginError = error;
        reject(error);
      }),
    );
    begun.catch(() => undefined);
  };

  (client as unknown as { query: Query }).query = function first(
    config: unknown,
    values?: unknown,
    callback?: unknown,
  ): unknown {
    restore();
    if (typeof (config as { submit?: unknown })?.submit === 'function') {
      sendBegin();
      return own.call(client, config, values, callback);
    }
    client.pipeline = true;
    sendBegin();
    // Called by pg when the statement is answered (an error arrives before its ReadyForQuery).
    // Leaving pipeline mode is safe once nothing else is on the wire: now, unless the caller
    // sent more statements without waiting (then when they are all answered).
    const settle =
      (done: Callback): Callback =>
      (error, result) => {
        if (inFlight(client) === 0) client.pipeline = false;
        else client.once('drain', () => (client.pipeline = false));
        if (beginError) done(beginError);
        else done(error, result);
      };
    const userCallback = (typeof values === 'function' ? values : callback) as Callback | undefined;
    const args = typeof values === 'function' ? [] : values === undefined ? [] : [values];
    if (userCallback) {
      own.call(client, config, ...args, settle(userCallback));
      return undefined;
    }
    return new Promise((resolve, reject) => {
      own.call(
        client,
        config,
        ...args,
        settle((error, result) => (error ? reject(error) : resolve(result))),
      );
    });
  };

  return {
    async opened() {
      if (!begun) return false;
      await begun;
      return true;
    },
    release() {
      restore();
      client.pipeline = false;
    },
  };
}

/**
 * `fn` between `begin` and COMMIT on `connection`; ROLLBACK when it throws. `begin` travels
 * with fn's first statement (one round trip less); a transaction fn sent nothing in is none.
 */
export async function inTransaction<T>(connection: PoolClient, fn: () => Promise<T>, begin = 'BEGIN'): Promise<T> {
  const transaction = beginWithFirstStatement(connection, begin);
  try {
    const result = await fn();
    if (await transaction.opened()) await connection.query('COMMIT');
    return result;
  } catch (error) {
    if (await transaction.opened().catch(() => true)) await connection.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    transaction.release();
  }
}

/**
 * `fn` in a transaction on a connection of knex's pool, through a knex bound to it (as the
 * inline projectors get theirs), the BEGIN sent with `SET LOCAL` settings and the first
 * statement (`inTransaction`): a lane's batch, a dead letter recorded or retried, is one round
 * trip and one transactor shorter than with `knex.transaction`. What needs savepoints (a
 * rebuild parks a failing inline event inside its batch) keeps knex's transactor.
 */
export async function transactionOnPool<T>(
  knex: Knex,
  fn: (trx: Knex.Transaction) => Promise<T>,
  settings: Record<string, string> = {},
): Promise<T> {
  const connection = (await knex.client.acquireConnection()) as PoolClient;
  try {
    const begin = ['BEGIN', ...Object.entries(settings).map(([name, value]) => `SET LOCAL ${name} = ${value}`)].join(
      '; ',
    );
    return await inTransaction(
      connection,
      () => fn(onConnection(knex, connection) as unknown as Knex.Transaction),
      begin,
    );
  } finally {
    await knex.client.releaseConnection(connection);
  }
}

/** Knex instances bound to one pooled connection each, built once per connection. */
const bound = new WeakMap<PoolClient, Knex>();

/**
 * A knex whose every query runs on `connection`, for the inline projectors of an append the
 * store brackets with BEGIN and COMMIT itself, and for `transactionOnPool`.
 * `knex.transaction(fn, {connection})` built a transactor (a client and a knex function with
 * all their properties) for every append: 180–270 µs of CPU per transaction against 105–130 µs
 * for BEGIN, the same query and COMMIT sent on the client (5,000 of each, local PostgreSQL).
 * This one is built once per pooled connection, through knex's public custom-client hook: the
 * pg dialect's client with its connection fixed.
 */
export function onConnection(knex: Knex, connection: PoolClient): Knex {
  let found = bound.get(connection);
  if (!found) {
    const Dialect = knex.client.constructor as new (config: Knex.Config) => Knex.Client;
    class OnConnection extends Dialect {
      override acquireConnection() {
        return Promise.resolve(connection);
      }
      override releaseConnection() {
        return Promise.resolve();
      }
    }
    // No connection settings: no driver pool is made. The server version the main client read
    // is carried over, as knex's own transactors do.
    found = knexFactory({
      client: OnConnection as unknown as Knex.Config['client'],
      version: (knex.client as { version?: string }).version,
    });
    bound.set(connection, found);
  }
  return found;
}
