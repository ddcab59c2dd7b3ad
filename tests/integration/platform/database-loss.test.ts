import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { settingsContext } from '../../../src/contexts/settings/module';
import { signIn } from '../../support/auth';
import { createTestDatabase } from '../../support/database';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

/**
 * A lost database: the platform reaches PostgreSQL through a TCP relay that the
 * test cuts — open connections are reset and new ones refused, as when the database host
 * goes away. The API contract reserves 503 for an unavailable dependency: never a 500.
 */
describe('a lost database', function () {
  this.timeout(60_000);
  let t: TestPlatform;
  let relay: net.Server;
  const sockets = new Set<net.Socket>();

  before(async () => {
    const { url } = await createTestDatabase();
    const target = new URL(url);
    relay = net.createServer((client) => {
      const upstream = net.connect(Number(target.port || 5432), target.hostname);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const relayed = new URL(url);
    relayed.hostname = '127.0.0.1';
    relayed.port = String((relay.address() as AddressInfo).port);
    t = await startTestPlatform({ contexts: [settingsContext], env: { DATABASE_URL: relayed.toString() } });
  });
  after(async () => {
    for (const s of sockets) s.destroy();
    await t.close().catch(() => undefined);
  });

  it('a command and a read-model query answer 503 {error} (not 500) once the connection is cut, for open and new connections alike', async () => {
    const admin = await signIn(t, { roles: ['admin'] });
    expect((await t.api.put('/settings', { max_tokens_per_day: 500_000 }, admin.headers)).status).to.equal(200);
    // The gateway's identity cache still holds the session, so the request reaches the command.
    await new Promise<void>((resolve) => relay.close(() => resolve()) && sockets.forEach((s) => s.resetAndDestroy()));
    for (let attempt = 0; attempt < 3; attempt++) {
      const response = await t.api.put('/settings', { max_tokens_per_day: 600_000 }, admin.headers);
      expect(response.status, JSON.stringify(response.body)).to.equal(503);
      expect(response.body).to.have.property('error').that.is.a('string');
      const read = await t.api.get('/settings/user-overrides', admin.headers);
      expect(read.status, JSON.stringify(read.body)).to.equal(503);
      expect(read.body).to.deep.equal({ error: 'service unavailable' });
    }
  });
});
