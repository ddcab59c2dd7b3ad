import type { Server } from 'node:http';
import type { RequestHandler } from 'express';

/**
 * Idle keep-alive connections are closed by the client, never under it. A client
 * reuses a pooled connection it believes open (Node's fetch: up to the server's `Keep-Alive:
 * timeout` less 1 s); when the server's own idle timer fires at the same moment — on a busy
 * machine a timer runs late and a request's bytes wait behind it — the server closes the
 * socket as the request arrives, and the client writing an upload gets EPIPE or a reset
 * instead of any answer. So the server announces 5 s and waits 65 s: every client has given
 * the connection up long before the server does.
 */
export const ANNOUNCED_IDLE_S = 5;
export const SERVER_IDLE_MS = 65_000;

export function outlastClientIdle(server: Server): void {
  server.keepAliveTimeout = SERVER_IDLE_MS;
  // Node wants the header timer above the idle one, or a slow first request on a reused socket is cut.
  server.headersTimeout = SERVER_IDLE_MS + 1_000;
}

/** Setting the header ourselves stops Node from announcing its own (65 s) idle timeout. */
export const announceKeepAlive: RequestHandler = (_req, res, next) => {
  res.setHeader('Keep-Alive', `timeout=${ANNOUNCED_IDLE_S}`);
  next();
};
