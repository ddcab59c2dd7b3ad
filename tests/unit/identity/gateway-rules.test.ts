import { expect } from 'chai';
import type { Request } from 'express';
import { Forbidden } from '../../../src/platform/domain-errors';
import { createPasswordVerifier, hashPassword, passwordTooLong } from '../../../commands/identity/passwords';
import { isInternalOnlyPath, isPublicPath } from '../../../src/contexts/identity/public-paths';
import { requirePermission } from '../../../src/contexts/identity/require-permission';
import { roleGateFor } from '../../../src/contexts/identity/role-gates';
import { createSessionTokens } from '../../../commands/identity/session-tokens';

const request = (permissions: string) =>
  ({
    headers: { 'x-user-id': 'u', 'x-tenant-id': 't', 'x-permissions': permissions },
    log: { warn: () => undefined },
  }) as unknown as Request;

describe('identity gateway rules', () => {
  it("public paths: exactly the spec's list, method-aware, in any letter case", () => {
    expect(isPublicPath('POST', '/auth/token')).to.equal(true);
    expect(isPublicPath('GET', '/auth/token')).to.equal(false);
    expect(isPublicPath('GET', '/auth/invites/abc')).to.equal(true);
    expect(isPublicPath('POST', '/auth/invites/redeem')).to.equal(true);
    expect(isPublicPath('POST', '/auth/logout')).to.equal(true);
    expect(isPublicPath('POST', '/auth/logout-all')).to.equal(false);
    expect(isPublicPath('GET', '/Entity-Types/x')).to.equal(true);
    expect(isPublicPath('POST', '/entity-types')).to.equal(false);
    expect(isPublicPath('GET', '/entity-typesX')).to.equal(false);
    expect(isPublicPath('GET', '/auth/me')).to.equal(false);
  });

  it('internal-only paths', () => {
    for (const p of [
      '/auth/resolve',
      '/auth/resolve/',
      '/connectors/status',
      '/connectors/k/bindings',
      '/connectors/k/execute',
      '/extract',
      '/duplication-rules/reset',
      '/auth/%72esolve',
    ])
      expect(isInternalOnlyPath(p), p).to.equal(true);
    for (const p of ['/connectors', '/connectors/k', '/connectors/k/exposures/e', '/auth/me', '/extractions'])
      expect(isInternalOnlyPath(p), p).to.equal(false);
  });

  it('role gates', () => {
    expect(roleGateFor('GET', '/admin/x')?.message).to.equal('admin role required');
    expect(roleGateFor('GET', '//Admin')?.message).to.equal('admin role required');
    expect(roleGateFor('GET', '/entity-types')).to.equal(null);
    expect(roleGateFor('DELETE', '/event-types/1')?.roles).to.deep.equal(['power_user', 'admin']);
    expect(roleGateFor('POST', '/approvals/1/decide')?.roles).to.deep.equal(['reviewer', 'admin']);
    expect(roleGateFor('GET', '/approvals/1/decide')).to.equal(null);
    expect(roleGateFor('GET', '/auth/admin/users')).to.equal(null);
  });

  it('requirePermission: enforce mode refuses with Insufficient permissions', () => {
    expect(() =>
      requirePermission(request('dashboards.read'), 'filings.submit', { config: { authMode: 'enforce' } }),
    ).to.throw(Forbidden, 'Insufficient permissions');
    expect(() =>
      requirePermission(request('dashboards.read,filings.submit'), 'filings.submit', {
        config: { authMode: 'enforce' },
      }),
    ).not.to.throw();
  });

  it('requirePermission: log mode lets ordinary misses through but never connector or user-admin ones', () => {
    expect(() => requirePermission(request(''), 'filings.submit', { config: { authMode: 'log' } })).not.to.throw();
    for (const p of ['connectors.manage', 'exposures.propose', 'exposures.approve', 'users.manage', 'roles.grant']) {
      expect(() => requirePermission(request(''), p, { config: { authMode: 'log' } }), p).to.throw(Forbidden);
    }
  });

  it('passwords over 72 bytes are refused (multi-byte characters counted in bytes)', async () => {
    expect(passwordTooLong('a'.repeat(72))).to.equal(false);
    expect(passwordTooLong('é'.repeat(37))).to.equal(true);
    let thrown: unknown;
    await hashPassword('a'.repeat(73), 10).catch((e) => (thrown = e));
    expect(thrown).to.be.instanceOf(Error);
  });

  it('bcrypt hashes at the configured cost and never matches an empty hash', async () => {
    const hash = await hashPassword('correct horse', 10);
    expect(hash).to.match(/^\$2[aby]\$10\$/);
    const verify = createPasswordVerifier(10);
    expect(await verify('correct horse', hash)).to.equal(true);
    expect(await verify('wrong horse', hash)).to.equal(false);
    expect(await verify('', '')).to.equal(false);
    expect(await verify('a'.repeat(72) + 'b', await hashPassword('a'.repeat(72), 10))).to.equal(false);
  });

  it("session tokens round-trip and carry the spec's claims", async () => {
    const tokens = createSessionTokens('unit-test-secret-0123456789abcdef0123');
    const now = new Date('2026-01-15T12:00:00Z');
    const { token } = await tokens.issue(
      {
        userId: '11111111-1111-4111-8111-111111111111',
        email: 'a@b.io',
        roles: ['admin'],
        tenantId: 't',
        tokenVersion: 2,
      },
      now,
    );
    const payload = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
    expect(payload).to.have.keys('user_id', 'email', 'roles', 'tenant_id', 'tv', 'iss', 'iat', 'exp');
    expect(payload.exp - payload.iat).to.equal(86400);
    const verified = await tokens.verify(token, now);
    expect(verified.ok && verified.claims.tokenVersion).to.equal(2);
    expect(await tokens.verify(token, new Date('2026-01-16T12:00:01Z'))).to.deep.equal({
      ok: false,
      reason: 'expired',
    });
    expect(await tokens.verify('', now)).to.deep.equal({ ok: false, reason: 'signature' });
  });
});
