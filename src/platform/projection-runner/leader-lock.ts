import { hostname } from 'node:os';
import type { Knex } from 'knex';
import { Client } from 'pg';

/**
 * Leadership through a session-level advisory lock on a dedicated connection: the lock lives
 * exactly as long as the connection, so a crashed leader frees it at once. See docs/runtime.md.
 */
export interface LeaderLock {
  tryAcquire(): Promise<boolean>;
  /** False as soon as the lock's session is known to be gone (killed, server restarted, probe failed). */
  isHeld(): boolean;
  release(): Promise<void>;
  /** Called once each time a held lock is found lost (its lanes stop at once). */
  onLost?(listener: (reason: string) => void): void;
}

// Arbitrary but fixed: every instance of the platform must agree on it.
export const PROJECTOR_LOCK_KEY = 72_114_001;

export interface LeaderLockOptions {
  /**
   * How often the held lock is probed (ms): a query on its connection that the session still
   * holds the lock. A half-open connection (a failover, a dropped route) sends no error and no
   * end, so without a probe two instances would lead.
   */
  probeMs?: number;
}

/** This process as the System page names a leader: host and process id. */
export const INSTANCE_NAME = `${hostname()}:${process.pid}`;

/** The lock connection's `application_name`: lets any instance see which instance holds a lock. */
const LOCK_APPLICATION_PREFIX = 'leader ';

/** A probe that takes longer than this many probe periods counts as a lost session. */
const PROBE_TIMEOUT_PERIODS = 2;

export function createAdvisoryLeaderLock(
  databaseUrl: string,
  key = PROJECTOR_LOCK_KEY,
  options: LeaderLockOptions = {},
): LeaderLock {
  const probeMs = options.probeMs ?? 3000;
  let client: Client | null = null;
  let probe: NodeJS.Timeout | null = null;
  const listeners: Array<(reason: string) => void> = [];

  function lose(held: Client, reason: string): void {
    if (client !== held) return;
    client = null;
    if (probe) clearInterval(probe);
    probe = null;
    void held.end().catch(() => undefined);
    for (const listener of listeners) listener(reason);
  }

  function startProbing(held: Client): void {
    probe = setInterval(() => {
      const timeout = new Promise<'timeout'>((resolve) =>
        setTimeout(() => resolve('timeout'), probeMs * PROBE_TIMEOUT_PERIODS).unref(),
      );
      const check = held
        .query<{ held: boolean }>(
          `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted
             AND objid = ($1::bigint & 4294967295) AND classid = ($1::bigint >> 32)) AS held`,
          [key],
        )
        .then((result) => (result.rows[0]?.held ? 'held' : 'not held'))
        .catch((error: Error) => `probe failed: ${error.message}`);
      void Promise.race([check, timeout]).then((answer) => {
        if (answer !== 'held')
          lose(held, answer === 'timeout' ? 'the lock probe got no answer in time' : `lock ${answer}`);
      });
    }, probeMs);
    probe.unref();
  }

  return {
    async tryAcquire() {
      if (client) return true;
      // Keepalive: the kernel notices a dead peer even while no query is in flight.
      const candidate = new Client({
        connectionString: databaseUrl,
        keepAlive: true,
        keepAliveInitialDelayMillis: 1000,
        application_name: `${LOCK_APPLICATION_PREFIX}${INSTANCE_NAME}`.slice(0, 63),
      });
      const lost = (reason: string) => () => {
        // The connection died, and the lock with it; the next tryAcquire starts over.
        if (client === candidate) lose(candidate, reason);
      };
      candidate.on('error', lost('the lock connection failed'));
      candidate.on('end', lost('the lock connection ended'));
      try {
        await candidate.connect();
        const result = await candidate.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [key]);
        if (result.rows[0].locked) {
          client = candidate;
          startProbing(candidate);
          return true;
        }
      } catch {
        // Treated as "not leader"; retried on the next tick.
      }
      await candidate.end().catch(() => undefined);
      return false;
    },
    isHeld() {
      return client !== null;
    },
    async release() {
      const held = client;
      client = null;
      if (probe) clearInterval(probe);
      probe = null;
      if (held) await held.end().catch(() => undefined);
    },
    onLost(listener) {
      listeners.push(listener);
    },
  };
}

/**
 * Which instance holds each of these lock keys now (its `INSTANCE_NAME`, from the lock
 * connection's application name); a key nobody holds is absent. A holder whose connection
 * names no instance (an older build) is `unknown`.
 */
export async function lockHolders(knex: Knex, keys: readonly number[]): Promise<Map<number, string>> {
  const { rows } = await knex.raw<{ rows: Array<{ key: string; application_name: string | null }> }>(
    `SELECT ((l.classid::bigint << 32) | l.objid::bigint)::text AS key, a.application_name
       FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
        AND ((l.classid::bigint << 32) | l.objid::bigint) = ANY(?::bigint[])`,
    [keys.map(String)],
  );
  const named = (app: string | null) =>
    app?.startsWith(LOCK_APPLICATION_PREFIX) ? app.slice(LOCK_APPLICATION_PREFIX.length) : 'unknown';
  return new Map(rows.map((row) => [Number(row.key), named(row.application_name)]));
}
