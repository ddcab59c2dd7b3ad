import { expect } from 'chai';
import { adminRosterEvolution, adminRosterStream } from '../../../streams/identity/admin-roster';
import { startTestPlatform, type TestPlatform } from '../../support/platform';
import { opsEnv, runOps } from '../../support/ops-cli';
import { sessionCookie, uniqueEmail } from './helpers';

describe('identity: the operator command line (npm run ops -- users|tenants)', function () {
  this.timeout(600_000);
  let t: TestPlatform;
  let ops: (...args: string[]) => Promise<{ stdout: string; stderr: string; code: number }>;

  before(async () => {
    t = await startTestPlatform();
    const env = opsEnv(t.platform.db.url);
    ops = (...args) => runOps(env, ...args);
  });
  after(() => t.close());

  it('tenants create and list, users create, rotate-password, deactivate and reactivate, against a running platform', async () => {
    const created = await ops('tenants', 'create', '--name', 'Permian Operating LLC');
    expect(created.code, created.stderr).to.equal(0);
    const tenantId = /created tenant ([0-9a-f-]{36})/.exec(created.stdout)![1];
    expect((await ops('tenants', 'list')).stdout).to.contain(`${tenantId}  Permian Operating LLC`);

    const email = uniqueEmail('ops');
    const user = await ops(
      'users',
      'create',
      '--email',
      email,
      '--roles',
      'admin,reviewer',
      '--tenant',
      tenantId,
      '--password',
      'cli-password-1',
    );
    expect(user.code, user.stderr).to.equal(0);
    const login = await t.api.post('/auth/token', { email, password: 'cli-password-1' });
    expect(login.status).to.equal(200);
    expect(login.body.roles).to.deep.equal(['admin', 'reviewer']);
    const session = { cookie: `svc_token=${sessionCookie(login)!.token}` };
    expect((await t.api.get('/auth/me', session)).body.tenant_id).to.equal(tenantId);

    const rotated = await ops('users', 'rotate-password', email, '--password', 'cli-password-2');
    expect(rotated.code, rotated.stderr).to.equal(0);
    expect((await t.api.post('/auth/token', { email, password: 'cli-password-1' })).status).to.equal(401);
    expect((await t.api.post('/auth/token', { email, password: 'cli-password-2' })).status).to.equal(200);
    // Another instance's write binds through the resolve cache within about 5 s.
    await new Promise((r) => setTimeout(r, 5200));
    await t.api.get('/auth/me', session);
    await new Promise((r) => setTimeout(r, 100));
    expect((await t.api.get('/auth/me', session)).body).to.deep.equal({ error: 'invalid token: revoked' });

    const lastAdmin = await ops('users', 'deactivate', email);
    expect(lastAdmin.code).to.not.equal(0);
    expect(lastAdmin.stderr).to.match(/last active admin/);
    const roster = (await t.deps.store.readStream(adminRosterStream(tenantId)))
      .map(adminRosterEvolution.read)
      .reduce(adminRosterEvolution.evolve, adminRosterEvolution.initialState);
    expect(roster).to.deep.equal({ status: 'open', seats: [login.body.user_id] });

    const other = uniqueEmail('ops');
    expect(
      (await ops('users', 'create', '--email', other, '--roles', 'operator', '--tenant', tenantId)).stdout,
    ).to.match(/generated password \(shown once\): \S{24}/);
    expect((await ops('users', 'deactivate', other)).code).to.equal(0);
    expect((await t.api.get('/auth/admin/users', session)).status).to.equal(401);
    const admin = await t.api.post('/auth/token', { email, password: 'cli-password-2' });
    const adminSession = { cookie: `svc_token=${sessionCookie(admin)!.token}` };
    const listed = await t.api.get('/auth/admin/users', adminSession);
    expect(listed.body.find((u: { email: string }) => u.email === other.toLowerCase())).to.include({
      status: 'disabled',
    });
    expect((await ops('users', 'reactivate', other)).code).to.equal(0);
    const relisted = await t.api.get('/auth/admin/users', adminSession);
    expect(relisted.body.find((u: { email: string }) => u.email === other.toLowerCase())).to.include({
      status: 'active',
    });
  });

  it('refuses unknown roles, unknown tenants and passwords over 72 bytes', async () => {
    expect((await ops('users', 'create', '--email', uniqueEmail(), '--roles', 'root')).stderr).to.match(/unknown role/);
    expect(
      (
        await ops(
          'users',
          'create',
          '--email',
          uniqueEmail(),
          '--tenant',
          '7a0e0b5e-0000-4000-8000-000000000000',
          '--password',
          'long-enough',
        )
      ).stderr,
    ).to.match(/no tenant/);
    expect((await ops('users', 'create', '--email', uniqueEmail(), '--password', 'x'.repeat(73))).stderr).to.match(
      /72 bytes/,
    );
  });
});
