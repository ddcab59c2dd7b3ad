import { expect } from 'chai';
import { createTestDatabase } from '../../support/database';
import { opsEnv, runOps } from '../../support/ops-cli';
import { startTestPlatform } from '../../support/platform';

/**
 * The operator's command line on a database no platform has started on: `users create` first
 * (it creates the default tenant and the system accounts a start would), then `seed`, which
 * returns once its import is projected. Every command's last line is its result.
 */
describe('ops: the command line in any order on a fresh database', function () {
  this.timeout(300_000);
  let env: NodeJS.ProcessEnv;

  before(async () => {
    env = opsEnv((await createTestDatabase()).url);
  });

  async function ops(...args: string[]): Promise<{ lines: string[]; stderr: string; code: number; seconds: number }> {
    const { stdout, ...rest } = await runOps(env, ...args);
    return { lines: stdout.trimEnd().split('\n'), ...rest };
  }

  it('users create before any start, then seed, then tenants list: each exits 0 and ends with its one-line result', async () => {
    const user = await ops(
      'users',
      'create',
      '--email',
      'first@example.com',
      '--roles',
      'admin',
      '--password',
      'first-password-1',
    );
    expect(user.code, user.stderr).to.equal(0);
    expect(user.lines.at(-1)).to.match(
      /^created first@example\.com \([0-9a-f-]{36}\) with roles \[admin\] in tenant 00000000-0000-0000-0000-000000000001$/,
    );

    const seeded = await ops('seed', '--wells', '5');
    expect(seeded.code, seeded.stderr).to.equal(0);
    expect(seeded.lines.at(-1)).to.match(/^seeded .*: \d+ vertices and \d+ edges \(5 wells\)/);
    // Returns when its import is projected, not after the 600 s projection wait.
    expect(seeded.seconds).to.be.lessThan(120);

    const tenants = await ops('tenants', 'list');
    expect(tenants.code, tenants.stderr).to.equal(0);
    expect(tenants.lines.some((l) => l.startsWith('00000000-0000-0000-0000-000000000001  Default tenant'))).to.equal(
      true,
    );
    expect(tenants.lines.at(-1)).to.equal('1 tenant');

    // A refusal is one line on stderr and a non-zero exit.
    const again = await ops('users', 'create', '--email', 'first@example.com', '--password', 'first-password-1');
    expect(again.code).to.equal(1);
    expect(again.stderr.trim().split('\n')).to.have.length(1);
    expect(again.stderr).to.match(/^ops: /);
  });

  it('schedule status and retry on a database with nothing scheduled: none parked, nothing to retry (exit 2)', async () => {
    const status = await ops('schedule', 'status');
    expect(status.code, status.stderr).to.equal(0);
    expect(status.lines.at(-1)).to.equal('scheduled messages: none dead-lettered');

    const retry = await ops('schedule', 'retry', 'no-such-handler');
    expect(retry.code, retry.stderr).to.equal(2);
    expect(retry.lines.at(-1)).to.equal('scheduled messages: 0 of 0 dead-lettered made due again (no-such-handler)');
  });

  it('seed beside a running platform (which projects; the command follows its checkpoints) returns once the import is projected', async () => {
    const t = await startTestPlatform();
    try {
      env = opsEnv(t.platform.db.url);
      const seeded = await ops('seed', '--wells', '5', '--tenant', '7a0e0b5e-0000-4000-8000-0000000000aa');
      expect(seeded.code, seeded.stderr).to.equal(0);
      expect(seeded.lines.at(-1)).to.match(/^seeded .*\(5 wells\)/);
      expect(seeded.seconds).to.be.lessThan(120);
    } finally {
      await t.close();
    }
  });
});
