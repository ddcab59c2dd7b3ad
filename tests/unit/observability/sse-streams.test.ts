import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { expect } from 'chai';
import express from 'express';
import { openSse } from '../../../src/platform/http/sse';
import { createPlatformMetrics } from '../../../src/platform/observability/metrics';
import { eventually } from '../../support/eventually';

/** `sse_streams_open` follows the streams the app holds open: up when one opens, down once when it closes. */
describe('open SSE streams gauge', () => {
  const metrics = createPlatformMetrics({ defaultMetrics: false });
  let server: http.Server;
  let base = '';
  before(async () => {
    const app = express();
    app.locals.metrics = metrics;
    app.get('/stream', (req, res) => {
      const sse = openSse(req, res);
      sse.send({ event: 'hello', data: {} });
      if (req.query.end) sse.end();
    });
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const open = async () => (await metrics.sseStreams.get()).values[0]?.value ?? 0;

  it('counts a stream while the client holds it and forgets it when the client goes away', async () => {
    const client = new AbortController();
    const response = await fetch(`${base}/stream`, { signal: client.signal });
    const reader = response.body!.getReader();
    await reader.read();
    expect(await open()).to.equal(1);
    client.abort();
    await eventually(async () => (await open()) === 0, 5000);
  });

  it('a stream the server ends counts down once, not again when its socket closes', async () => {
    const response = await fetch(`${base}/stream?end=1`);
    await response.text();
    await new Promise((r) => setTimeout(r, 100));
    expect(await open()).to.equal(0);
  });
});
