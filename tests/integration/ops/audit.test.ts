import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { verifyAuditTrail } from '../../../src/eventstore/audit-trail';
import type { AuditSigner } from '../../../src/eventstore/audit-signature';
import type { EventStore } from '../../../src/eventstore/types';
import type { Database } from '../../../src/infra/database';
import { createTestEventStore, TEST_SIGNING_KEY } from '../../support/event-store';

const run = promisify(execFile);
const tsx = path.resolve('node_modules/.bin/tsx');

async function ops(db: Database, ...args: string[]): Promise<{ code: number; stdout: string }> {
  const env = { ...process.env, DATABASE_URL: db.url, AUDIT_SIGNING_KEY: TEST_SIGNING_KEY, NODE_ENV: 'test', LOG_LEVEL: 'silent' };
  try {
    const { stdout } = await run(tsx, ['ops/cli.ts', ...args], { env });
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, stdout: failed.stdout };
  }
}

describe('signed audit trail: ops audit verify / replay', () => {
  let db: Database;
  let store: EventStore;
  let signer: AuditSigner;
  let cleanup: () => Promise<void>;
  const stream = `identity.user-t1-${randomUUID()}`;
  const metadata = { tenantId: 't1', actorId: 'admin-1', correlationId: 'c', causationId: 'c' };

  before(async () => {
    ({ db, store, signer, cleanup } = await createTestEventStore());
    await store.append(stream, [{ type: 'UserInvited', data: { email: 'ann@example.com', roles: ['operator'] }, metadata }]);
    await store.append(stream, [{ type: 'UserRolesChanged', data: { roles: ['operator', 'reviewer'] }, metadata }]);
    await store.append(`identity.user-t1-${randomUUID()}`, [{ type: 'UserInvited', data: { email: 'bo@example.com', roles: [] }, metadata }]);
  });
  after(() => cleanup());

  it('an untouched log verifies completely', async () => {
    const report = await verifyAuditTrail(store, signer);
    expect(report).to.include({ total: 3, verified: 3, streams: 2 });
    expect(report.tampered).to.deep.equal([]);
    const cli = await ops(db, 'audit', 'verify');
    expect(cli.code).to.equal(0);
    expect(cli.stdout).to.contain('3 events in 2 streams: 3 verified, 0 tampered');
  });

  it('replay prints the stream as a readable, signed timeline', async () => {
    const cli = await ops(db, 'audit', 'replay', stream);
    expect(cli.code).to.equal(0);
    const lines = cli.stdout.trim().split('\n');
    expect(lines[0]).to.equal(`${stream}: 2 events`);
    expect(lines[1]).to.match(/#\s+0\s+\S+Z\s+UserInvited\s+by admin-1\s+signed\s+\{"email":"ann@example.com"/);
    expect(lines[2]).to.match(/#\s+1 .*UserRolesChanged .*signed/);
  });

  it('a row altered behind the store\'s back is reported as tampered (exit code 2)', async () => {
    // Simulates someone with database access: the append-only trigger has to be disabled first.
    await db.knex.raw('ALTER TABLE events DISABLE TRIGGER events_no_update_delete');
    await db.knex.raw(`UPDATE events SET data = jsonb_set(data, '{roles}', '["admin"]') WHERE stream_id = ? AND revision = 1`, [stream]);
    await db.knex.raw('ALTER TABLE events ENABLE TRIGGER events_no_update_delete');

    const report = await verifyAuditTrail(store, signer);
    expect(report.tampered).to.have.length(1);
    expect(report.tampered[0]).to.include({ stream, revision: '1', type: 'UserRolesChanged', reason: 'signature_mismatch' });

    const cli = await ops(db, 'audit', 'verify');
    expect(cli.code).to.equal(2);
    expect(cli.stdout).to.contain('1 tampered');
    expect(cli.stdout).to.contain(`TAMPERED ${stream} #1 UserRolesChanged`);
    const replay = await ops(db, 'audit', 'replay', stream);
    expect(replay.stdout).to.match(/#\s+1 .*UserRolesChanged .*TAMPERED/);
  });
});
