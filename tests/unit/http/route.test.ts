import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import express, { Router } from 'express';
import sinon from 'sinon';
import { z } from 'zod';
import { requirePermission } from '../../../src/contexts/identity/require-permission';
import type { Position } from '../../../src/platform/eventstore/types';
import { Unauthenticated } from '../../../src/platform/domain-errors';
import { errorHandler } from '../../../src/platform/http/errors';
import { declareRoutes, type RouteDeps } from '../../../src/platform/http/route';

const POSITION: Position = { commit: 7n, prepare: 7n } as Position;
const WAIT_MS = 1234;

describe('declared routes (src/platform/http/route.ts)', () => {
  let server: Server;
  let base: string;
  const steps: string[] = [];
  const rename = sinon.spy(async (id: string, title: string) => {
    steps.push('command');
    return { id, title, position: id === 'unwritten' ? null : POSITION };
  });
  const waitFor = sinon.spy(async (_position: Position, _timeoutMs: number, _types: readonly string[]) => {
    steps.push('wait started');
    await new Promise((resolve) => setTimeout(resolve, 30));
    steps.push('wait over');
    return true;
  });
  const deps: RouteDeps = { config: { authMode: 'enforce', projectionWaitMs: WAIT_MS }, reactors: { waitFor } };

  before(async () => {
    const router = Router();
    const route = declareRoutes(router, deps, requirePermission);
    route.post('/notes/:id/rename', {
      permission: 'notes.write',
      params: z.object({ id: z.string().min(1).max(20) }),
      body: z.object({ title: z.string().min(1).max(50) }).strict(),
      command: ({ params, body }) => rename(params.id, body.title),
      awaits: ['NoteRenamed'],
      respond: (renamed, { identity }) => {
        steps.push('respond');
        return { note_id: renamed.id, title: renamed.title, renamed_by: identity.userId };
      },
    });
    route.post('/notes', {
      body: z.object({ title: z.string().min(1) }),
      status: 201,
      command: async ({ body, context }) => ({ note_id: 'n1', title: body.title, tenant_id: context.tenantId }),
    });
    route.delete('/notes/:id', {
      params: z.object({ id: z.string() }),
      status: 204,
      command: async () => ({ position: null }),
    });
    route.get('/notes/:id', {
      params: z.object({ id: z.string() }),
      query: z.object({ fields: z.enum(['title', 'all']).default('all') }),
      read: async ({ params, query }) =>
        params.id === 'n1' ? { note_id: 'n1', title: 'first', fields: query.fields } : null,
      notFound: 'Note not found',
    });
    route.get('/drafts', { permission: ['notes.write', 'notes.review'], read: () => ({ drafts: [] }) });
    route.post('/imports', {
      body: z.object({ key: z.string() }),
      command: async ({ body }) => ({ key: body.key, replayed: body.key === 'seen' }),
      status: (imported) => (imported.replayed ? 200 : 201),
    });
    // A header-less caller names itself in the query; a stamped identity wins.
    const named = declareRoutes(router, deps, requirePermission, {
      caller: (req) => {
        if (req.headers['x-user-id']) return { name: String(req.headers['x-user-id']) };
        if (typeof req.query.name !== 'string') throw new Unauthenticated('Not authenticated: no name');
        return { name: req.query.name };
      },
    });
    named.get('/greeting', { read: ({ caller }) => ({ hello: caller.name }) });
    named.get('/whoami', { read: ({ identity }) => ({ user: identity.userId }) });
    named.post('/signed', {
      permission: 'notes.write',
      command: async ({ caller }) => ({ signed_by: caller.name }),
    });
    const app = express();
    app.use(express.json());
    app.use(router);
    app.use(errorHandler);
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());
  beforeEach(() => {
    steps.length = 0;
    rename.resetHistory();
    waitFor.resetHistory();
  });

  const call = async (method: string, path: string, body?: unknown, permissions = 'notes.write') => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (permissions !== 'anonymous')
      Object.assign(headers, { 'x-user-id': 'u1', 'x-tenant-id': 't1', 'x-permissions': permissions });
    const response = await fetch(base + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };

  it('a caller without the permission gets 403 in the error shape and the command never runs', async () => {
    const response = await call('POST', '/notes/n1/rename', { title: 'second' }, 'notes.read');
    expect(response.status).to.equal(403);
    expect(response.body).to.deep.equal({ detail: 'Insufficient permissions' });
    expect(rename.called).to.equal(false);
  });

  it('a caller without an identity gets 401 before anything is parsed', async () => {
    const response = await call('POST', '/notes/n1/rename', { title: '' }, 'anonymous');
    expect(response.status).to.equal(401);
    expect(response.body).to.deep.equal({ detail: 'Not authenticated' });
    expect(rename.called).to.equal(false);
  });

  it('an invalid body answers 422 naming the field, and no command runs', async () => {
    const response = await call('POST', '/notes/n1/rename', { title: '', extra: 1 });
    expect(response.status).to.equal(422);
    expect(response.body.detail.map((issue: { loc: unknown[] }) => issue.loc)).to.deep.include.members([
      ['body', 'title'],
      ['body'],
    ]);
    expect(rename.called).to.equal(false);
    expect(waitFor.called).to.equal(false);
  });

  it('an invalid path parameter answers 422 under `path`', async () => {
    const response = await call('POST', `/notes/${'x'.repeat(21)}/rename`, { title: 'second' });
    expect(response.status).to.equal(422);
    expect(response.body.detail[0].loc).to.deep.equal(['path', 'id']);
    expect(rename.called).to.equal(false);
  });

  it('the declared wait runs after the command and is over before the mapper shapes the answer', async () => {
    const response = await call('POST', '/notes/n1/rename', { title: 'second' });
    expect(response.status).to.equal(200);
    expect(response.body).to.deep.equal({ note_id: 'n1', title: 'second', renamed_by: 'u1' });
    expect(steps).to.deep.equal(['command', 'wait started', 'wait over', 'respond']);
    expect(waitFor.calledOnceWithExactly(POSITION, WAIT_MS, ['NoteRenamed'])).to.equal(true);
  });

  it('a command that appended nothing (no position) answers without waiting', async () => {
    const response = await call('POST', '/notes/unwritten/rename', { title: 'second' });
    expect(response.status).to.equal(200);
    expect(steps).to.deep.equal(['command', 'respond']);
  });

  it('without a mapper the command result is the body; the declared status is used', async () => {
    expect(await call('POST', '/notes', { title: 'first' })).to.deep.equal({
      status: 201,
      body: { note_id: 'n1', title: 'first', tenant_id: 't1' },
    });
    expect(await call('DELETE', '/notes/n1')).to.deep.equal({ status: 204, body: undefined });
  });

  it('a list of permissions takes any one of them', async () => {
    expect((await call('GET', '/drafts', undefined, 'notes.review')).status).to.equal(200);
    expect((await call('GET', '/drafts', undefined, 'notes.write')).status).to.equal(200);
    expect(await call('GET', '/drafts', undefined, 'notes.read')).to.deep.equal({
      status: 403,
      body: { detail: 'Insufficient permissions' },
    });
  });

  it('a read parses its query, and answers 404 with the declared detail when it finds nothing', async () => {
    expect(await call('GET', '/notes/n1?fields=title')).to.deep.equal({
      status: 200,
      body: { note_id: 'n1', title: 'first', fields: 'title' },
    });
    expect(await call('GET', '/notes/n2')).to.deep.equal({ status: 404, body: { detail: 'Note not found' } });
    expect((await call('GET', '/notes/n1?fields=none')).body.detail[0].loc).to.deep.equal(['query', 'fields']);
  });

  it('a status declared as a function of the result answers by outcome (a create 201, its replay 200)', async () => {
    expect(await call('POST', '/imports', { key: 'new' })).to.deep.equal({
      status: 201,
      body: { key: 'new', replayed: false },
    });
    expect((await call('POST', '/imports', { key: 'seen' })).status).to.equal(200);
  });

  it('routes declared with their own caller reading take a header-less caller, and a stamped identity still wins', async () => {
    expect(await call('GET', '/greeting?name=ada', undefined, 'anonymous')).to.deep.equal({
      status: 200,
      body: { hello: 'ada' },
    });
    expect((await call('GET', '/greeting?name=ada')).body).to.deep.equal({ hello: 'u1' });
    expect(await call('GET', '/greeting', undefined, 'anonymous')).to.deep.equal({
      status: 401,
      body: { detail: 'Not authenticated: no name' },
    });
  });

  it('with a caller reading, the stamped identity and a declared permission still answer 401 without identity', async () => {
    expect(await call('GET', '/whoami?name=ada', undefined, 'anonymous')).to.deep.equal({
      status: 401,
      body: { detail: 'Not authenticated' },
    });
    expect((await call('GET', '/whoami?name=ada')).body).to.deep.equal({ user: 'u1' });
    expect((await call('POST', '/signed?name=ada', undefined, 'anonymous')).status).to.equal(401);
    expect((await call('POST', '/signed', undefined, 'notes.read')).status).to.equal(403);
    expect(await call('POST', '/signed')).to.deep.equal({ status: 200, body: { signed_by: 'u1' } });
  });
});
