import { Client } from 'pg';

/**
 * Projector leadership through a session-level advisory lock on a dedicated connection:
 * the lock lives exactly as long as the connection, so a crashed leader frees it at once.
 */
export interface LeaderLock {
  tryAcquire(): Promise<boolean>;
  /** False as soon as the lock's session is known to be gone (killed, server restarted). */
  isHeld(): boolean;
  release(): Promise<void>;
}

// Arbitrary but fixed: every instance of the platform must agree on it.
const PROJECTOR_LOCK_KEY = 72_114_001;

export function createAdvisoryLeaderLock(databaseUrl: string, key = PROJECTOR_LOCK_KEY): LeaderLock {
  let client: Client | null = null;
  return {
    async tryAcquire() {
      if (client) return true;
      const candidate = new Client({ connectionString: databaseUrl });
      const lost = () => {
        // The connection died, and the lock with it; the next tryAcquire starts over.
        if (client === candidate) client = null;
      };
      candidate.on('error', lost);
      candidate.on('end', lost);
      try {
        await candidate.connect();
        const result = await candidate.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [key]);
        if (result.rows[0].locked) {
          client = candidate;
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
      if (held) await held.end().catch(() => undefined);
    },
  };
}
