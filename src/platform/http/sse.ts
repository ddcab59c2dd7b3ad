import type { Request, Response } from 'express';
import type { PlatformMetrics } from '../observability/metrics';

/**
 * Server-sent events for browsers and proxies: named events, an `id` on every
 * frame so `Last-Event-ID` can resume, no buffering by intermediaries, a heartbeat comment
 * so idle streams are not timed out, and `closed` aborting as soon as the client goes away.
 */
export interface SseChannel {
  send(frame: { id?: string; event: string; data: unknown }): void;
  /** Aborts when the client disconnects or `end()` is called. */
  closed: AbortSignal;
  end(): void;
}

export const SSE_HEARTBEAT_MS = 15_000;

export function openSse(req: Request, res: Response, heartbeatMs = SSE_HEARTBEAT_MS): SseChannel {
  const controller = new AbortController();
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  res.setHeader('Connection', 'keep-alive');
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
  req.socket.setNoDelay(true);
  req.socket.setTimeout(0);
  const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), heartbeatMs);
  heartbeat.unref();
  const open = (req.app?.locals.metrics as PlatformMetrics | undefined)?.sseStreams;
  open?.inc();
  const finish = () => {
    if (controller.signal.aborted) return;
    open?.dec();
    clearInterval(heartbeat);
    controller.abort();
  };
  res.on('close', finish);
  return {
    closed: controller.signal,
    send({ id, event, data }) {
      if (controller.signal.aborted) return;
      // `data` is one JSON line: JSON.stringify never emits a raw newline.
      res.write(`${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    end() {
      finish();
      res.end();
    },
  };
}

/** The client's resume point: the `Last-Event-ID` header, or `last_event_id` in the query for clients that cannot set headers. */
export function lastEventIdOf(req: Request): string | undefined {
  const header = req.get('last-event-id');
  if (header) return header;
  const query = req.query.last_event_id;
  return typeof query === 'string' && query ? query : undefined;
}
