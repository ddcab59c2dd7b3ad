import { expect } from 'chai';
import type { UserRow } from '../../../queries/identity/user-directory';
import { createIdentityResolver } from '../../../commands/identity/resolver';
import type { SessionClaims } from '../../../commands/identity/session-tokens';

const row = (fields: Partial<UserRow> = {}): UserRow => ({
  id: 'u1',
  tenant_id: 't1',
  email: 'a@b.io',
  display_name: null,
  roles: ['operator'],
  status: 'active',
  kind: 'person',
  token_version: 0,
  password_ref: 'p',
  ...fields,
});
const claims: SessionClaims = {
  userId: 'u1',
  email: 'a@b.io',
  roles: ['admin'],
  tenantId: 't1',
  tokenVersion: 0,
  issuedAt: 0,
  expiresAt: 0,
};
const flush = () => new Promise((r) => setImmediate(r));

describe('identity resolver: per-user cache, stale-while-revalidate', () => {
  function setup() {
    let clock = 0;
    let current: UserRow | null = row();
    let loads = 0;
    let fail = false;
    const resolver = createIdentityResolver({
      now: () => clock,
      load: async () => {
        loads++;
        if (fail) throw new Error('database down');
        return current;
      },
    });
    return {
      resolver,
      advance: (ms: number) => (clock += ms),
      set: (next: UserRow | null) => (current = next),
      loads: () => loads,
      failing: (value: boolean) => (fail = value),
    };
  }

  it("answers current roles from the directory, not the token's claims", async () => {
    const { resolver } = setup();
    const result = await resolver.resolve(claims);
    expect(result).to.deep.include({ valid: true });
    expect(result.valid && result.identity.roles).to.deep.equal(['operator']);
    expect(result.valid && result.identity.permissions).to.deep.equal([
      'compliance.assess',
      'conversations.use',
      'dashboards.read',
      'filings.submit',
    ]);
  });

  it('reads the directory once per user within the fresh window', async () => {
    const s = setup();
    await Promise.all([s.resolver.resolve(claims), s.resolver.resolve(claims), s.resolver.resolve(claims)]);
    s.advance(4000);
    await s.resolver.resolve(claims);
    expect(s.loads()).to.equal(1);
  });

  it('a deactivation binds within the window: one stale answer while revalidating, then inactive', async () => {
    const s = setup();
    await s.resolver.resolve(claims);
    s.set(row({ status: 'disabled' }));
    s.advance(5001);
    expect((await s.resolver.resolve(claims)).valid).to.equal(true);
    await flush();
    expect(await s.resolver.resolve(claims)).to.deep.equal({ valid: false, reason: 'inactive' });
  });

  it('a token older than the token version is revoked; an unknown or cross-tenant user is unknown_user', async () => {
    const s = setup();
    s.set(row({ token_version: 1 }));
    expect(await s.resolver.resolve(claims)).to.deep.equal({ valid: false, reason: 'revoked' });
    s.resolver.invalidate('u1');
    s.set(row({ tenant_id: 'other' }));
    expect(await s.resolver.resolve(claims)).to.deep.equal({ valid: false, reason: 'unknown_user' });
    s.resolver.invalidate('u1');
    s.set(null);
    expect(await s.resolver.resolve(claims)).to.deep.equal({ valid: false, reason: 'unknown_user' });
    s.resolver.invalidate('u1');
    s.set(row({ kind: 'system' }));
    expect(await s.resolver.resolve(claims)).to.deep.equal({ valid: false, reason: 'unknown_user' });
  });

  it('invalidation on this instance binds at once', async () => {
    const s = setup();
    await s.resolver.resolve(claims);
    s.set(row({ token_version: 3 }));
    s.resolver.invalidate('u1');
    expect(await s.resolver.resolve(claims)).to.deep.equal({ valid: false, reason: 'revoked' });
  });

  it('a failing read with nothing usable cached is an error, never a pass', async () => {
    const s = setup();
    s.failing(true);
    let thrown: unknown;
    await s.resolver.resolve(claims).catch((e) => (thrown = e));
    expect(thrown).to.be.instanceOf(Error);
  });

  it('a failing background refresh keeps serving the entry only until it is too stale', async () => {
    const s = setup();
    await s.resolver.resolve(claims);
    s.failing(true);
    s.advance(6000);
    expect((await s.resolver.resolve(claims)).valid).to.equal(true);
    await flush();
    s.advance(10000);
    let thrown: unknown;
    await s.resolver.resolve(claims).catch((e) => (thrown = e));
    expect(thrown).to.be.instanceOf(Error);
  });
});
