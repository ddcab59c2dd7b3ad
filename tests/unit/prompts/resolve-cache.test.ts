import { EventEmitter } from 'node:events';
import { expect } from 'chai';
import Redis from 'ioredis';
import pino from 'pino';
import sinon from 'sinon';
import {
  callerKey,
  INVALIDATION_CHANNEL,
  PromptResolveCache,
  type ServeableVersion,
  type TemplateResolution,
} from '../../../commands/prompts/resolve-cache';

const logger = pino({ level: 'silent' });
const version = (versionId: string, status: 'active' | 'pre_production'): ServeableVersion => ({
  versionId,
  versionNumber: 1,
  status,
  body: `body ${versionId}`,
  tokenEstimate: 3,
  variablesExpected: [],
});
const resolution: TemplateResolution = {
  templateId: 'tpl-1',
  active: version('v-active', 'active'),
  preProduction: { ...version('v-pre', 'pre_production'), targetUsers: new Set(['tester']), targetRoles: ['reviewer'] },
};

/** The slice of ioredis the cache uses, as a sinon-observable fake (subscribe mode delivers via 'message'). */
function fakeRedis() {
  const emitter = new EventEmitter();
  return Object.assign(emitter, {
    publish: sinon.stub().resolves(1),
    subscribe: sinon.stub().resolves(1),
    quit: sinon.stub().resolves('OK'),
  });
}

describe('prompt resolve cache', () => {
  it('serves pre-production to targeted users and roles, active to everyone else', () => {
    const cache = new PromptResolveCache(logger);
    cache.store('t1', 'agents:chat', resolution, cache.currentEpoch);
    expect(cache.lookup('t1', 'agents:chat', 'tester', [])?.versionId).to.equal('v-pre');
    expect(cache.lookup('t1', 'agents:chat', 'someone', ['operator', 'reviewer'])?.versionId).to.equal('v-pre');
    expect(cache.lookup('t1', 'agents:chat', 'someone', ['operator'])?.versionId).to.equal('v-active');
    expect(cache.lookup('t1', 'agents:chat', null, ['reviewer'])?.versionId).to.equal('v-active');
    expect(cache.lookup('t2', 'agents:chat', 'tester', [])).to.equal(undefined);
  });

  it('keys callers by their sorted roles', () => {
    expect(callerKey('u', ['reviewer', 'admin'])).to.equal(callerKey('u', ['admin', 'reviewer']));
    expect(callerKey('u', ['admin'])).not.to.equal(callerKey('v', ['admin']));
  });

  it('an invalidation by template id or by address drops the entry', () => {
    const cache = new PromptResolveCache(logger);
    cache.store('t1', 'agents:chat', resolution, cache.currentEpoch);
    cache.invalidateLocally({ tenantId: 't1', templateId: 'tpl-1' });
    expect(cache.lookup('t1', 'agents:chat', null, [])).to.equal(undefined);
    cache.store('t1', 'agents:chat', null, cache.currentEpoch);
    expect(cache.lookup('t1', 'agents:chat', null, [])).to.equal(null);
    cache.invalidateLocally({ tenantId: 't1', ref: 'agents:chat' });
    expect(cache.lookup('t1', 'agents:chat', null, [])).to.equal(undefined);
  });

  it('a load that began before an invalidation does not store its stale answer', () => {
    const cache = new PromptResolveCache(logger);
    const epoch = cache.currentEpoch;
    cache.invalidateLocally({ tenantId: 't1', templateId: 'tpl-1' });
    cache.store('t1', 'agents:chat', resolution, epoch);
    expect(cache.lookup('t1', 'agents:chat', null, [])).to.equal(undefined);
  });

  it('entries expire after their TTL', () => {
    let now = 1_000;
    const cache = new PromptResolveCache(logger, () => now);
    cache.store('t1', 'agents:chat', resolution, cache.currentEpoch);
    now += 29_000;
    expect(cache.lookup('t1', 'agents:chat', null, [])?.versionId).to.equal('v-active');
    now += 2_000;
    expect(cache.lookup('t1', 'agents:chat', null, [])).to.equal(undefined);
  });

  it('with Redis, an invalidation is published and one received from another instance clears this one', async () => {
    const publisher = fakeRedis();
    const subscriber = fakeRedis();
    const cache = new PromptResolveCache(logger);
    await cache.connect(publisher as unknown as Redis, subscriber as unknown as Redis);
    expect(subscriber.subscribe.calledOnceWith(INVALIDATION_CHANNEL)).to.equal(true);

    await cache.invalidate({ tenantId: 't1', templateId: 'tpl-1' });
    expect(
      publisher.publish.calledOnceWith(INVALIDATION_CHANNEL, JSON.stringify({ tenantId: 't1', templateId: 'tpl-1' })),
    ).to.equal(true);

    cache.store('t1', 'agents:chat', resolution, cache.currentEpoch);
    subscriber.emit('message', INVALIDATION_CHANNEL, JSON.stringify({ tenantId: 't1', templateId: 'tpl-1' }));
    expect(cache.lookup('t1', 'agents:chat', null, [])).to.equal(undefined);

    await cache.disconnect();
    expect(publisher.quit.calledOnce && subscriber.quit.calledOnce).to.equal(true);
  });

  it('a failed publish still clears locally and does not fail the command', async () => {
    const publisher = fakeRedis();
    publisher.publish.rejects(new Error('connection lost'));
    const cache = new PromptResolveCache(logger);
    await cache.connect(publisher as unknown as Redis, fakeRedis() as unknown as Redis);
    cache.store('t1', 'agents:chat', resolution, cache.currentEpoch);
    await cache.invalidate({ tenantId: 't1', templateId: 'tpl-1' });
    expect(cache.lookup('t1', 'agents:chat', null, [])).to.equal(undefined);
  });

  it('live Redis: an invalidation on one instance reaches another (REDIS_URL)', async function () {
    if (!process.env.REDIS_URL) this.skip();
    const url = process.env.REDIS_URL!;
    const a = new PromptResolveCache(logger);
    const b = new PromptResolveCache(logger);
    await a.connect(new Redis(url), new Redis(url));
    await b.connect(new Redis(url), new Redis(url));
    try {
      b.store('t1', 'agents:chat', resolution, b.currentEpoch);
      await a.invalidate({ tenantId: 't1', templateId: 'tpl-1' });
      for (let i = 0; i < 100 && b.lookup('t1', 'agents:chat', null, []) !== undefined; i++)
        await new Promise((r) => setTimeout(r, 10));
      expect(b.lookup('t1', 'agents:chat', null, [])).to.equal(undefined);
    } finally {
      await a.disconnect();
      await b.disconnect();
    }
  });
});
