import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local fake of Langfuse's public ingestion endpoint (`POST /api/public/ingestion`): it
 * checks Basic auth like Langfuse does and answers 207 with per-item successes, or whatever
 * `mode` says (a 500, or a 207 whose items are all in `errors`).
 */
export interface FakeLangfuse {
  host: string;
  requests: Array<{ path: string; authorization: string | undefined; body: any }>;
  mode: 'ok' | 'server_error' | 'item_errors';
  close(): Promise<void>;
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => resolve(text));
  });

export async function startFakeLangfuse(publicKey: string, secretKey: string): Promise<FakeLangfuse> {
  const fake: Omit<FakeLangfuse, 'host' | 'close'> = { requests: [], mode: 'ok' };
  const expected = `Basic ${Buffer.from(`${publicKey}:${secretKey}`).toString('base64')}`;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = JSON.parse((await readBody(req)) || '{}');
      fake.requests.push({ path: req.url ?? '', authorization: req.headers.authorization, body });
      const json = (status: number, payload: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      };
      if (req.method !== 'POST' || req.url !== '/api/public/ingestion') return json(404, { message: 'not found' });
      if (req.headers.authorization !== expected) return json(401, { message: 'Invalid credentials' });
      if (fake.mode === 'server_error') return json(500, { message: 'internal error' });
      const ids = (body.batch ?? []).map((item: { id: string }) => item.id);
      if (fake.mode === 'item_errors')
        return json(207, {
          successes: [],
          errors: ids.map((id: string) => ({ id, status: 400, message: 'Invalid request data' })),
        });
      json(207, { successes: ids.map((id: string) => ({ id, status: 201 })), errors: [] });
    })().catch((error: Error) => res.destroy(error));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake as FakeLangfuse, {
    host: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
