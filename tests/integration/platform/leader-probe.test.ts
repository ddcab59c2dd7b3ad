import { expect } from 'chai';
import { createAdvisoryLeaderLock, lockHolders } from '../../../src/platform/projection-runner/leader-lock';
import type { Database } from '../../../src/platform/infra/database';
import { connectTestDatabase } from '../../support/database';
import { type Relay, startRelayFor } from '../../support/tcp-relay';

/**
 * A half-open lock connection: the relay stops forwarding without closing anything, so the
 * leader's socket sees neither an error nor an end, and the server still holds the lock for a
 * session nobody can reach. Only the probe can tell; the lanes stop within its period.
 */
describe('leader lock probe on a half-open connection (through a TCP relay)', function () {
  this.timeout(30_000);
  let db: Database;
  let relay: Relay;
  const key = 9_999_101;

  before(async () => {
    db = await connectTestDatabase();
    relay = await startRelayFor(db.url);
  });
  after(async () => {
    await Promise.race([relay?.close(), new Promise((r) => setTimeout(r, 2000))]);
    await db?.close();
  });

  it('a leader whose lock connection stops answering (no error, no end) loses the lock within two probe periods', async () => {
    const probeMs = 200;
    const lock = createAdvisoryLeaderLock(relay.url(db.url), key, { probeMs });
    expect(await lock.tryAcquire()).to.equal(true);
    const lost = new Promise<string>((resolve) => lock.onLost!(resolve));
    // A few probes pass while the path is healthy.
    await new Promise((r) => setTimeout(r, probeMs * 3));
    expect(lock.isHeld()).to.equal(true);

    expect(relay.stall()).to.be.greaterThan(0);
    const reason = await Promise.race([lost, new Promise<string>((r) => setTimeout(() => r('never'), 5_000))]);
    expect(reason).to.match(/no answer in time/);
    expect(lock.isHeld()).to.equal(false);
    // The server still holds the lock for the unreachable session: without the probe this
    // instance would go on leading while another one could not tell it was gone.
    expect((await lockHolders(db.knex, [key])).has(key)).to.equal(true);
    await lock.release();
  });
});
