import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import express from 'express';
import { consoleRouter, isApiLookingPath } from '../../../src/platform/http/console';
import http from 'node:http';

describe('console static serving and SPA fallback', () => {
  let dir: string;
  let server: Server;
  let base: string;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'console-'));
    mkdirSync(path.join(dir, 'assets'));
    writeFileSync(path.join(dir, 'assets', 'app-123.js'), 'console.log(1)');
    const app = express();
    app.get('/health', (_req, res) => res.json({ status: 'ok' }));
    app.use('/api/v1', (_req, res, next) => next());
    app.use(consoleRouter(dir));
    app.use((req, res) => res.status(404).json({ detail: `No route for ${req.method} ${req.path}` }));
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 with a readable message while index.html is not built, and 200 once it is', async () => {
    const before = await fetch(`${base}/approvals`);
    expect(before.status).to.equal(503);
    expect(await before.text()).to.include('not built');
    writeFileSync(path.join(dir, 'index.html'), '<div id="root"></div>');
    const after = await fetch(`${base}/approvals/abc`);
    expect(after.status).to.equal(200);
    expect(after.headers.get('cache-control')).to.equal('no-cache');
    expect(await after.text()).to.include('id="root"');
  });

  it('serves hashed assets with a long cache lifetime', async () => {
    const res = await fetch(`${base}/assets/app-123.js`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('cache-control')).to.include('immutable');
  });

  it('never shadows /api, /health or /metrics: an unknown API path keeps its JSON 404, and POSTs are not answered with the page', async () => {
    writeFileSync(path.join(dir, 'index.html'), '<div id="root"></div>');
    const api = await fetch(`${base}/api/v1/nothing-here`);
    expect(api.status).to.equal(404);
    expect(await api.json()).to.deep.equal({ detail: 'No route for GET /api/v1/nothing-here' });
    const apiRoot = await fetch(`${base}/api`);
    expect(apiRoot.status).to.equal(404);
    expect((await fetch(`${base}/health`)).headers.get('content-type')).to.include('application/json');
    // /metrics is the operators' (internal listener, or the public one with its token): never the page.
    expect((await fetch(`${base}/metrics`)).status).to.equal(404);
    const post = await fetch(`${base}/approvals`, { method: 'POST' });
    expect(post.status).to.equal(404);
  });

  it('never answers an API-looking path with the page: doubled slashes, letter case, encoded slashes and backslashes keep the JSON 404', async () => {
    writeFileSync(path.join(dir, 'index.html'), '<div id="root"></div>');
    const raw = (target: string) =>
      new Promise<{ status: number; type: string }>((resolve, reject) => {
        http
          .get(`${base}${target}`, (res) => {
            res.resume();
            resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']) });
          })
          .on('error', reject);
      });
    for (const target of [
      '//api/v1/auth//resolve',
      '//api',
      '/api//v1/auth/resolve',
      '///api/v1',
      '/API/v1/x',
      '/%2Fapi/v1/x',
      '/%2fapi',
      '/api%2Fv1%2Fauth',
      '/%252Fapi/v1',
      '/%5Capi/v1',
      '//health',
    ]) {
      const answer = await raw(target);
      expect(answer, target).to.deep.equal({ status: 404, type: 'application/json; charset=utf-8' });
    }
    expect((await raw('/approvals//abc')).status).to.equal(200);
    expect((await raw('/apiary')).status).to.equal(200);
  });

  it('reads a path as the API after decoding, collapsing slashes and ignoring case', () => {
    expect(['/api', '//api/', '/api//x', '/%2Fapi', '/%252fapi', '/ApI/v1', '\\api', '/health']).to.satisfy(
      (all: string[]) => all.every(isApiLookingPath),
    );
    expect(['/', '/approvals', '/apiary', '/healthy', '/docs/api'].filter(isApiLookingPath)).to.deep.equal([]);
    // A path that cannot be decoded is no page of the console either.
    expect(isApiLookingPath('/%E0%A4%A')).to.equal(true);
  });
});
