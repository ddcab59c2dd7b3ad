import net from 'node:net';
import { expect } from 'chai';
import { type Relay, startRelay } from '../../support/tcp-relay';

/** Retries `check` (which throws until it holds) for up to two seconds. */
async function until(check: () => void): Promise<void> {
  const deadline = Date.now() + 2000;
  for (;;) {
    try {
      check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

/** A server that echoes what it receives, and remembers how each of its connections ended. */
async function startEcho() {
  const endings: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', (error: NodeJS.ErrnoException) => endings.push(error.code ?? 'error'));
    socket.on('end', () => endings.push('end'));
    socket.on('close', () => sockets.delete(socket));
    socket.on('data', (chunk) => socket.write(chunk));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    endings,
    sockets,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface Connection {
  socket: net.Socket;
  received: string;
  ended: 'open' | 'end' | string;
}

async function connect(relay: Relay): Promise<Connection> {
  const connection: Connection = {
    socket: net.connect({ host: relay.host, port: relay.port }),
    received: '',
    ended: 'open',
  };
  connection.socket.setEncoding('utf8');
  connection.socket.on('data', (chunk: string) => (connection.received += chunk));
  connection.socket.on('error', (error: NodeJS.ErrnoException) => (connection.ended = error.code ?? 'error'));
  connection.socket.on('end', () => (connection.ended = 'end'));
  connection.socket.on('close', () => {
    if (connection.ended === 'open') connection.ended = 'closed';
  });
  // A refused connection may fail before or after it connects; either way it is returned, ended.
  await new Promise<void>((resolve) => {
    connection.socket.once('connect', resolve);
    connection.socket.once('close', resolve);
  });
  return connection;
}

async function roundTrip(connection: Connection, text: string) {
  const before = connection.received.length;
  connection.socket.write(text);
  await until(() => expect(connection.received.slice(before)).to.equal(text));
}

describe('TCP relay (test support)', () => {
  let echo: Awaited<ReturnType<typeof startEcho>>;
  let relay: Relay;

  beforeEach(async () => {
    echo = await startEcho();
    relay = await startRelay({ targetHost: '127.0.0.1', targetPort: echo.port });
  });

  afterEach(async () => {
    await relay.close();
    await echo.close();
  });

  it('pipes bytes both ways and counts the open connections', async () => {
    const a = await connect(relay);
    const b = await connect(relay);
    await roundTrip(a, 'hello');
    await roundTrip(b, 'world');
    expect(relay.connections).to.equal(2);
    expect(relay.accepted).to.equal(2);
    a.socket.end();
    await until(() => expect(relay.connections).to.equal(1));
    await until(() => expect(echo.endings).to.include('end'));
  });

  it('rewrites a PostgreSQL URL to go through the relay, keeping credentials, database and options', () => {
    const url = relay.url('postgres://user:p%40ss@db.example:5433/platform?sslmode=disable');
    expect(url).to.equal(`postgres://user:p%40ss@127.0.0.1:${relay.port}/platform?sslmode=disable`);
  });

  it('dropAll() resets every open connection on both sides', async () => {
    const a = await connect(relay);
    const b = await connect(relay);
    await roundTrip(a, 'x');
    await roundTrip(b, 'y');
    expect(relay.dropAll()).to.equal(2);
    await until(() => {
      expect(a.ended).to.equal('ECONNRESET');
      expect(b.ended).to.equal('ECONNRESET');
    });
    await until(() => expect(echo.endings.filter((e) => e === 'ECONNRESET')).to.have.length(2));
    expect(relay.connections).to.equal(0);
    // The relay itself goes on: a new connection works.
    await roundTrip(await connect(relay), 'again');
  });

  it("dropAll('end') ends every connection cleanly, as a server's own termination would", async () => {
    const a = await connect(relay);
    await roundTrip(a, 'x');
    expect(relay.dropAll('end')).to.equal(1);
    await until(() => expect(a.ended).to.equal('end'));
    await until(() => expect(echo.endings).to.include('end'));
  });

  it("passes the server's own clean close through as a clean end, after its last bytes", async () => {
    const a = await connect(relay);
    await roundTrip(a, 'x');
    for (const socket of echo.sockets) socket.end('bye');
    await until(() => {
      expect(a.received).to.equal('xbye');
      expect(a.ended).to.equal('end');
    });
    await until(() => expect(relay.connections).to.equal(0));
  });

  it('refuse() closes new connections at once until accept(), leaving open ones alone', async () => {
    const open = await connect(relay);
    relay.refuse();
    const refused = await connect(relay);
    await until(() => expect(refused.ended).to.not.equal('open'));
    expect(relay.refused).to.equal(1);
    await roundTrip(open, 'still here');
    relay.accept();
    await roundTrip(await connect(relay), 'back');
  });

  it('refuse(ms) accepts again by itself after ms', async () => {
    relay.refuse(100);
    const refused = await connect(relay);
    await until(() => expect(refused.ended).to.not.equal('open'));
    await new Promise((resolve) => setTimeout(resolve, 150));
    await roundTrip(await connect(relay), 'later');
  });

  it('outage(ms) drops every connection, refuses for ms, then accepts again', async () => {
    const a = await connect(relay);
    const started = Date.now();
    const over = relay.outage(200);
    await until(() => expect(a.ended).to.equal('ECONNRESET'));
    const during = await connect(relay);
    await until(() => expect(during.ended).to.not.equal('open'));
    await over;
    expect(Date.now() - started).to.be.at.least(190);
    await roundTrip(await connect(relay), 'after');
  });

  it('close() stops listening and resets what is open', async () => {
    const a = await connect(relay);
    await relay.close();
    await until(() => expect(a.ended).to.equal('ECONNRESET'));
    const error = await new Promise<NodeJS.ErrnoException>((resolve) => {
      net.connect({ host: relay.host, port: relay.port }).once('error', resolve);
    });
    expect(error.code).to.equal('ECONNREFUSED');
    relay = await startRelay({ targetHost: '127.0.0.1', targetPort: echo.port });
  });
});
