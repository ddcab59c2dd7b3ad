import type { Pool, PoolClient } from 'pg';
import { APPEND_CHANNEL } from './schema';

/** The shortest time between two NOTIFYs of one process (ms). */
const NOTIFY_GAP_MS = 10;
/** How often this process looks again whether anyone else listens (ms). */
const LISTENERS_CHECK_MS = 1000;
/**
 * Whether another session of this database listens on the channel (as far as this role may
 * see: a session whose statement it may not see counts as listening). A listening
 * connection's last statement names the channel: its LISTEN, a NOTIFY, or this very check,
 * which each process runs on its LISTEN connection. Any other session naming it counts too:
 * a NOTIFY too many costs little, one too few costs a reader its poll interval.
 */
const OTHERS_LISTEN = `SELECT coalesce(bool_or(strpos(query, '${APPEND_CHANNEL}') > 0 OR query = '<insufficient privilege>'), false) AS others
  FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`;

/**
 * One LISTEN connection per store, shared by every subscription. A notification only wakes
 * readers; they re-read the table, so a lost notification costs latency (the poll fallback),
 * never an event.
 */
export class AppendNotifier {
  private client: PoolClient | null = null;
  private connecting: Promise<void> | null = null;
  private waiters = new Set<() => void>();
  private closed = false;
  private generation = 0;
  private sending = false;
  private pending = false;
  private othersListen = true;
  private checkedAt = 0;

  constructor(private readonly pool: Pool) {}

  /** Resolves on the next append notification or after `timeoutMs`, whichever is first. */
  wait(timeoutMs: number): Promise<void> {
    this.ensureListening();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.waiters.add(done);
    });
  }

  /**
   * Tells every listener that events were appended, this process's at once and the others'
   * through the server: one NOTIFY at a time
   * on this connection, appends that land meanwhile share the next one. Never on an
   * appending connection, so appends neither wait for it nor take the notify queue lock.
   */
  poke(): void {
    if (this.closed) return;
    // This process's own readers need no round trip through the server to learn of it.
    this.wake();
    this.send();
  }

  /** The NOTIFY for other processes; appends landing while one is in flight share the next. */
  private send(): void {
    if (this.closed) return;
    if (this.sending) {
      this.pending = true;
      return;
    }
    this.ensureListening();
    const client = this.client;
    if (!client) {
      // Not connected yet: send once the LISTEN connection is up.
      this.pending = true;
      void this.connecting?.then(() => this.flushPending());
      return;
    }
    this.sending = true;
    this.pending = false;
    const sentAt = Date.now();
    this.notifyOthers(client)
      .catch(() => undefined)
      .finally(() => {
        // Appends that landed meanwhile share the next NOTIFY, at most one per gap: each is a
        // round trip and a signal to every listening backend, and under load most appends
        // would otherwise send one. Other instances learn of new events up to a gap later.
        const wait = NOTIFY_GAP_MS - (Date.now() - sentAt);
        const done = () => {
          this.sending = false;
          this.flushPending();
        };
        if (wait > 0 && this.pending) setTimeout(done, wait).unref();
        else done();
      });
  }

  /**
   * The NOTIFY, when another process listens (another instance, a bridge). Alone, a process
   * sends none: its own readers were woken in process, and each NOTIFY is a round trip and a
   * notification delivered back to its own LISTEN connection. A process that starts listening
   * is seen within LISTENERS_CHECK_MS; until then its readers poll (every 500 ms).
   */
  private async notifyOthers(client: PoolClient): Promise<void> {
    if (Date.now() - this.checkedAt >= LISTENERS_CHECK_MS) {
      this.checkedAt = Date.now();
      this.othersListen = await client.query<{ others: boolean }>(OTHERS_LISTEN).then(
        ({ rows }) => rows[0]?.others !== false,
        () => true,
      );
    }
    if (this.othersListen) await client.query(`NOTIFY ${APPEND_CHANNEL}`);
  }

  /** Local readers were woken when their appends landed: only the server still needs telling. */
  private flushPending(): void {
    if (this.pending && !this.sending && this.client) {
      this.pending = false;
      this.send();
    }
  }

  /** Notifications seen so far; a reader compares it to know whether one arrived meanwhile. */
  get seen(): number {
    return this.generation;
  }

  private wake(): void {
    this.generation++;
    for (const waiter of [...this.waiters]) waiter();
  }

  private ensureListening(): void {
    if (this.closed || this.client || this.connecting) return;
    this.connecting = (async () => {
      try {
        const client = await this.pool.connect();
        // Our own NOTIFY woke this process's readers already, when it was sent.
        const ownBackend = (client as unknown as { processID?: number }).processID;
        client.on('notification', (message) => {
          if (message.processId !== ownBackend) this.wake();
        });
        client.on('error', () => this.drop(client));
        await client.query(`LISTEN ${APPEND_CHANNEL}`);
        if (this.closed) {
          this.release(client);
          return;
        }
        this.client = client;
      } catch {
        // Polling carries on; the next wait() tries to listen again.
      } finally {
        this.connecting = null;
      }
    })();
  }

  /** Clients given back to the pool: a connection that errors after close (the server going away) must not be released twice. */
  private readonly released = new WeakSet<PoolClient>();

  private release(client: PoolClient): void {
    if (this.released.has(client)) return;
    this.released.add(client);
    client.release(true);
  }

  private drop(client: PoolClient): void {
    if (this.client === client) this.client = null;
    this.release(client);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.connecting;
    const client = this.client;
    this.client = null;
    if (client) {
      await client.query(`UNLISTEN ${APPEND_CHANNEL}`).catch(() => undefined);
      this.release(client);
    }
    this.wake();
  }
}
