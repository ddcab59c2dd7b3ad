import net from 'node:net';

/**
 * A TCP relay between the platform and its database, for fault tests: every connection made
 * to the relay is piped to the target, and the test cuts, refuses or interrupts them at will.
 * node:net only, so it works with any client (pg, ioredis, psql) and needs no privileges.
 */
export interface Relay {
  host: string;
  port: number;
  /** `databaseUrl` with its host and port replaced by the relay's (user, password, database, query kept). */
  url(databaseUrl: string): string;
  /**
   * Ends every open connection. `reset` (the default) destroys both sides with a TCP reset, as
   * a dead network or a killed server would; `end` closes both sides cleanly (FIN) after what
   * is in flight, as a server closing its end of the connection would.
   */
  dropAll(mode?: 'reset' | 'end'): number;
  /**
   * Stops forwarding on every open connection without closing either side: a half-open path
   * (a peer gone without a word, a middlebox that lost its state), where queries get no
   * answer and no error. Answers how many connections it stalled.
   */
  stall(): number;
  /** Closes every new connection at once, until `accept()`, or for `ms` if given. */
  refuse(ms?: number): void;
  accept(): void;
  /** Drops every connection and refuses new ones for `ms`; resolves when connections are accepted again. */
  outage(ms: number, mode?: 'reset' | 'end'): Promise<void>;
  /** Connections open through the relay now. */
  readonly connections: number;
  /** Connections accepted and piped since the start. */
  readonly accepted: number;
  /** Connections closed at once while refusing. */
  readonly refused: number;
  /** Stops listening and resets every open connection. */
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  server: net.Socket;
}

export async function startRelay(options: { targetHost: string; targetPort: number }): Promise<Relay> {
  const pairs = new Set<Pair>();
  /** Every socket still open, also one already cut from its pair that waits for the other end's FIN. */
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };
  let refusing = false;
  let refuseTimer: NodeJS.Timeout | undefined;
  let accepted = 0;
  let refused = 0;

  const cut = (pair: Pair, mode: 'reset' | 'end') => {
    pairs.delete(pair);
    for (const socket of [pair.client, pair.server]) {
      if (socket.destroyed) continue;
      if (mode === 'end') socket.end();
      else if (socket.connecting) socket.destroy();
      else socket.resetAndDestroy();
    }
  };

  const listener = net.createServer((client) => {
    // A socket error here is the fault under test, never the relay's own: swallow it, cut the pair.
    client.on('error', () => undefined);
    track(client);
    if (refusing) {
      refused += 1;
      client.resetAndDestroy();
      return;
    }
    accepted += 1;
    const server = net.connect({ host: options.targetHost, port: options.targetPort });
    server.on('error', () => undefined);
    track(server);
    const pair: Pair = { client, server };
    pairs.add(pair);
    // A reset on one side resets the other; a clean end is passed on as a clean end (pipe does
    // that), so a server's own termination message and FIN reach the client unchanged.
    client.on('error', () => cut(pair, 'reset'));
    server.on('error', () => cut(pair, 'reset'));
    client.on('close', () => {
      pairs.delete(pair);
      if (!server.destroyed) server.end();
    });
    server.on('close', () => {
      pairs.delete(pair);
      if (!client.destroyed) client.end();
    });
    client.pipe(server);
    server.pipe(client);
  });

  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (listener.address() as net.AddressInfo).port;

  const relay: Relay = {
    host: '127.0.0.1',
    port,
    url(databaseUrl) {
      const parsed = new URL(databaseUrl);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      return parsed.toString();
    },
    dropAll(mode = 'reset') {
      const open = [...pairs];
      for (const pair of open) cut(pair, mode);
      return open.length;
    },
    stall() {
      for (const { client, server } of pairs) {
        client.unpipe(server);
        server.unpipe(client);
        client.pause();
        server.pause();
      }
      return pairs.size;
    },
    refuse(ms) {
      refusing = true;
      clearTimeout(refuseTimer);
      if (ms !== undefined) refuseTimer = setTimeout(() => relay.accept(), ms);
    },
    accept() {
      clearTimeout(refuseTimer);
      refusing = false;
    },
    outage(ms, mode = 'reset') {
      relay.refuse();
      relay.dropAll(mode);
      return new Promise((resolve) => {
        refuseTimer = setTimeout(() => {
          relay.accept();
          resolve();
        }, ms);
      });
    },
    get connections() {
      return pairs.size;
    },
    get accepted() {
      return accepted;
    },
    get refused() {
      return refused;
    },
    async close() {
      clearTimeout(refuseTimer);
      relay.dropAll('reset');
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    },
  };
  return relay;
}

/** A relay in front of the server a PostgreSQL (or Redis) URL names; `relay.url(databaseUrl)` goes through it. */
export function startRelayFor(databaseUrl: string): Promise<Relay> {
  const parsed = new URL(databaseUrl);
  const defaultPort = parsed.protocol.startsWith('redis') ? 6379 : 5432;
  return startRelay({ targetHost: parsed.hostname || '127.0.0.1', targetPort: Number(parsed.port || defaultPort) });
}
