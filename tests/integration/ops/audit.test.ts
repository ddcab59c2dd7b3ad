import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { verifyAuditTrail } from '../../../src/platform/eventstore/audit-trail';
import { createStreamHeads } from '../../../src/platform/eventstore/postgres/stream-heads';
import type { AuditSigner } from '../../../src/platform/eventstore/audit-signature';
import type { EventStore } from '../../../src/platform/eventstore/types';
import type { Database } from '../../../src/platform/infra/database';
import { createTestEventStore, TEST_SIGNING_KEY } from '../../support/event-store';

const run = promisify(execFile);
const tsx = path.resolve('node_modules/.bin/tsx');

async function ops(db: Database, ...args: string[]): Promise<{ code: number; stdout: string }> {
  const env = {
    ...process.env,
    DATABASE_URL: db.url,
    AUDIT_SIGNING_KEY: TEST_SIGNING_KEY,
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
  };
  try {
    const { stdout } = await run(tsx, ['ops/cli.ts', ...args], { env });
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, stdout: failed.stdout };
  }
}

describe('signed audit trail: ops audit verify / anchor / replay', function () {
  this.timeout(120_000); // several tsx child processes per test: slow to start on a loaded machine
  let db: Database;
  let store: EventStore;
  let signer: AuditSigner;
  let cleanup: () => Promise<void>;
  const stream = `identity.user-t1-${randomUUID()}`;
  const metadata = { tenantId: 't1', actorId: 'admin-1', correlationId: 'c', causationId: 'c' };

  before(async () => {
    ({ db, store, signer, cleanup } = await createTestEventStore());
    await store.append(stream, [
      { type: 'UserInvited', data: { email: 'ann@example.com', roles: ['operator'] }, metadata },
    ]);
    await store.append(stream, [{ type: 'UserRolesChanged', data: { roles: ['operator', 'reviewer'] }, metadata }]);
    await store.append(`identity.user-t1-${randomUUID()}`, [
      { type: 'UserInvited', data: { email: 'bo@example.com', roles: [] }, metadata },
    ]);
  });
  after(() => cleanup());

  it('an untouched log verifies completely', async () => {
    const report = await verifyAuditTrail(store, signer, { heads: createStreamHeads(db.pool) });
    expect(report).to.include({ total: 3, verified: 3, streams: 2 });
    expect(report.tampered).to.deep.equal([]);
    const cli = await ops(db, 'audit', 'verify');
    expect(cli.code).to.equal(0);
    expect(cli.stdout).to.contain('3 events in 2 streams: 3 verified, 0 tampered');
  });

  it('replay --correlation prints what one request caused as a readable, signed timeline', async () => {
    const cli = await ops(db, 'audit', 'replay', '--correlation', 'c', '--tenant', 't1');
    expect(cli.code).to.equal(0);
    const lines = cli.stdout.trim().split('\n');
    expect(lines[0]).to.match(/^\S+Z\s+admin-1\s+user \S+\s+user invited .*\[req c\]\s+verified$/);
    expect(lines.some((l) => /user roles changed .*verified$/.test(l))).to.equal(true);
    expect(lines[lines.length - 1]).to.match(/^3 events; all 3 entries verified/);
  });

  it("a row altered behind the store's back is reported as tampered (exit code 2)", async () => {
    // Simulates someone with database access: the append-only trigger has to be disabled first.
    await db.knex.raw('ALTER TABLE events DISABLE TRIGGER events_no_update_delete');
    await db.knex.raw(
      `UPDATE events SET data = jsonb_set(data, '{roles}', '["admin"]') WHERE stream_id = ? AND revision = 1`,
      [stream],
    );
    await db.knex.raw('ALTER TABLE events ENABLE TRIGGER events_no_update_delete');

    const report = await verifyAuditTrail(store, signer, { heads: createStreamHeads(db.pool) });
    expect(report.tampered).to.have.length(1);
    expect(report.tampered[0]).to.include({
      stream,
      revision: '1',
      type: 'UserRolesChanged',
      reason: 'signature_mismatch',
    });

    const cli = await ops(db, 'audit', 'verify');
    expect(cli.code).to.equal(2);
    expect(cli.stdout).to.contain('1 tampered');
    expect(cli.stdout).to.contain(`TAMPERED ${stream} #1 UserRolesChanged`);
    const replay = await ops(db, 'audit', 'replay', '--correlation', 'c', '--tenant', 't1');
    expect(replay.code).to.equal(2);
    expect(replay.stdout).to.match(/user roles changed .*TAMPERED/);
  });

  it("deleting a stream's last event in the database is caught: the log no longer ends at the recorded head", async () => {
    const victim = `identity.user-t1-${randomUUID()}`;
    await store.append(victim, [{ type: 'UserInvited', data: { email: 'cy@example.com', roles: [] }, metadata }]);
    await store.append(victim, [{ type: 'UserDeactivated', data: {}, metadata }]);
    await db.knex.raw('ALTER TABLE events DISABLE TRIGGER events_no_update_delete');
    await db.knex.raw('DELETE FROM events WHERE stream_id = ? AND revision = 1', [victim]);
    await db.knex.raw('ALTER TABLE events ENABLE TRIGGER events_no_update_delete');
    const cli = await ops(db, 'audit', 'verify');
    expect(cli.code).to.equal(2);
    expect(cli.stdout).to.contain(`TAMPERED ${victim} #1 UserInvited`);
    expect(cli.stdout).to.contain('head_mismatch');
  });

  it('an anchor kept outside the database proves later that history up to its heads was not rewritten', async () => {
    const anchored = `identity.user-t1-${randomUUID()}`;
    await store.append(anchored, [{ type: 'UserInvited', data: { email: 'di@example.com', roles: [] }, metadata }]);
    const file = path.join(os.tmpdir(), `anchor-${randomUUID()}.json`);
    const written = await ops(db, 'audit', 'anchor', '--out', file);
    expect(written.code).to.equal(0);
    expect(written.stdout).to.match(/anchor of \d+ stream heads written/);
    // Appending after the anchor is fine: the anchored heads are still there.
    await store.append(anchored, [{ type: 'UserDeactivated', data: {}, metadata }]);
    const fine = await ops(db, 'audit', 'verify', '--anchor', file, '--stream-prefix', anchored);
    expect(fine.code).to.equal(0);
    expect(fine.stdout).to.contain('its digest and signature are intact');

    // Someone rewrites the anchored event and re-signs the whole chain with a stolen key:
    // the chain verifies again, but the head the anchor recorded is gone.
    const events = await store.readStream(anchored);
    await db.knex.raw('ALTER TABLE events DISABLE TRIGGER events_no_update_delete');
    let previous: string | null = null;
    for (const event of events) {
      const data = event.revision === 0n ? { email: 'mallory@example.com', roles: ['admin'] } : event.data;
      const { signature: _old, ...meta } = event.metadata;
      const signature = signer.sign({ ...event, data, metadata: meta }, previous);
      previous = signature;
      await db.knex.raw('UPDATE events SET data = ?::jsonb, metadata = ?::jsonb WHERE event_id = ?', [
        JSON.stringify(data),
        JSON.stringify({ ...meta, signature }),
        event.id,
      ]);
    }
    await db.knex.raw('UPDATE streams SET last_signature = ? WHERE stream_id = ?', [previous, anchored]);
    await db.knex.raw('ALTER TABLE events ENABLE TRIGGER events_no_update_delete');
    const chainOnly = await ops(db, 'audit', 'verify', '--stream-prefix', anchored);
    expect(chainOnly.code).to.equal(0);
    const withAnchor = await ops(db, 'audit', 'verify', '--anchor', file, '--stream-prefix', anchored);
    expect(withAnchor.code).to.equal(2);
    expect(withAnchor.stdout).to.contain(`TAMPERED ${anchored} #0 UserInvited`);
    expect(withAnchor.stdout).to.contain('anchor_mismatch');
  });
});
