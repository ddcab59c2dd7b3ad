import { type Request, Router } from 'express';
import { inviteUser, InviteUserInput } from '../../../commands/identity/invite-user';
import { issuePasswordReset } from '../../../commands/identity/issue-password-reset';
import { logIn, LogInInput } from '../../../commands/identity/log-in';
import { logOutEverywhere } from '../../../commands/identity/log-out-everywhere';
import { redeemOneTimeToken, RedeemInput } from '../../../commands/identity/redeem-onetime-token';
import { updateUser, UpdateUserInput } from '../../../commands/identity/update-user';
import { findOpenToken } from '../../../queries/identity/onetime-tokens';
import {
  adminView,
  findUserInTenant,
  listTenantUsers,
  namesOf,
  type UserRow,
} from '../../../queries/identity/user-directory';
import { permissionsFor } from '../../../streams/identity/permissions';
import type { PlatformDeps } from '../../platform/context-module';
import { Forbidden, NotFound, Unauthenticated, Unavailable } from '../../platform/domain-errors';
import { requireIdentity } from '../../platform/http/identity';
import { parseBody, parseParams, parseQuery } from '../../platform/http/validation';
import { clearSessionCookie, presentedToken } from './cookies';
import { identityDeps, type IdentityDeps } from '../../../commands/identity/identity-deps';
import { hashOneTimeToken } from '../../../commands/identity/onetime-secrets';
import { requirePermission } from './require-permission';
import { REFRESH_AFTER_S } from '../../../commands/identity/session-tokens';
import { openSession } from './sessions';
import { InviteTokenParam, PeopleQuery, UserIdParam, ValidateQuery } from './schemas';

/** Identity endpoints; the decisions behind them: docs/identity.md. */

const subjectOf = (row: UserRow) => ({
  userId: row.id,
  tenantId: row.tenant_id,
  email: row.email,
  displayName: row.display_name,
  roles: row.roles,
  tokenVersion: row.token_version,
});

async function caller(deps: IdentityDeps, req: Request): Promise<UserRow> {
  const { userId, tenantId } = requireIdentity(req);
  const row = await findUserInTenant(deps.knex, tenantId, userId);
  if (!row) throw new Unauthenticated('Not authenticated');
  return row;
}

async function userInCallerTenant(deps: IdentityDeps, req: Request, userId: string): Promise<UserRow> {
  const row = await findUserInTenant(deps.knex, requireIdentity(req).tenantId, userId);
  if (!row || row.kind === 'system') throw new NotFound('User not found');
  return row;
}

function link(deps: IdentityDeps, page: string, token: string): string {
  return `${deps.config.http.publicBaseUrl.replace(/\/$/, '')}/${page}?token=${encodeURIComponent(token)}`;
}

export function publicRouter(platform: PlatformDeps): Router {
  const deps = identityDeps(platform);
  const router = Router();
  const commandContext = (req: Request) => {
    const { userId, tenantId } = requireIdentity(req);
    return { tenantId, actorId: userId, correlationId: req.id };
  };

  router.post('/auth/token', async (req, res) => {
    const user = await logIn(deps, parseBody(req, LogInInput));
    const { body } = await openSession(deps, res, subjectOf(user));
    res.json(body);
  });

  router.get('/auth/me', async (req, res) => {
    // The row the gateway just resolved this caller with (same cache, same ~5 s window).
    const { userId, tenantId } = requireIdentity(req);
    const me = await deps.resolver.lookup(userId);
    if (!me || me.tenant_id !== tenantId) throw new Unauthenticated('Not authenticated');
    res.json({
      user_id: me.id,
      email: me.email,
      display_name: me.display_name,
      tenant_id: me.tenant_id,
      roles: me.roles,
      permissions: permissionsFor(me.roles),
    });
  });

  router.post('/auth/refresh', async (req, res) => {
    const me = await caller(deps, req);
    const verified = await deps.tokens.verify(presentedToken(req) ?? '', deps.clock());
    if (!verified.ok) throw new Unauthenticated('Not authenticated');
    if (deps.clock().getTime() / 1000 - verified.claims.issuedAt < REFRESH_AFTER_S) {
      res.status(204).end();
      return;
    }
    const { token, body } = await openSession(deps, res, subjectOf(me));
    res.json({ token, ...body });
  });

  router.post('/auth/logout', (_req, res) => {
    clearSessionCookie(res);
    res.status(204).end();
  });

  router.post('/auth/logout-all', async (req, res) => {
    const { userId } = requireIdentity(req);
    await logOutEverywhere(deps, userId, commandContext(req));
    clearSessionCookie(res);
    res.status(204).end();
  });

  router.post('/auth/admin/users', async (req, res) => {
    requirePermission(req, 'users.manage', deps);
    const body = parseBody(req, InviteUserInput);
    if (body.roles.length) requirePermission(req, 'roles.grant', deps);
    const { userId, token, expiresAt } = await inviteUser(deps, body, commandContext(req));
    const user = await userInCallerTenant(deps, req, userId);
    res.status(201).json({
      ...adminView(user),
      invite_token: token,
      invite_url: link(deps, 'invite', token),
      invite_expires_at: expiresAt,
    });
  });

  router.get('/auth/admin/users', async (req, res) => {
    requirePermission(req, 'users.manage', deps);
    const rows = await listTenantUsers(deps.knex, requireIdentity(req).tenantId);
    res.json(rows.map(adminView));
  });

  router.patch('/auth/admin/users/:id', async (req, res) => {
    requirePermission(req, 'users.manage', deps);
    const { id } = parseParams(req, UserIdParam);
    const body = parseBody(req, UpdateUserInput);
    if (body.roles !== undefined) requirePermission(req, 'roles.grant', deps);
    await userInCallerTenant(deps, req, id);
    await updateUser(
      deps,
      id,
      { displayName: body.display_name, roles: body.roles, isActive: body.is_active },
      commandContext(req),
    );
    res.json(adminView(await userInCallerTenant(deps, req, id)));
  });

  router.post('/auth/admin/users/:id/reset-password', async (req, res) => {
    requirePermission(req, 'users.manage', deps);
    const { id } = parseParams(req, UserIdParam);
    await userInCallerTenant(deps, req, id);
    const { token, expiresAt } = await issuePasswordReset(deps, id, commandContext(req));
    res.json({
      user_id: id,
      reset_url: link(deps, 'reset-password', token),
      reset_token: token,
      expires_at: expiresAt,
    });
  });

  router.get('/auth/invites/:token', async (req, res) => {
    const { token } = parseParams(req, InviteTokenParam);
    const open = await findOpenToken(deps.knex, hashOneTimeToken(token), deps.clock());
    if (!open) throw new NotFound('Invite not found, already used or expired');
    res.json({
      email: open.email,
      display_name: open.display_name,
      purpose: open.purpose,
      expires_at: new Date(open.expires_at).toISOString(),
    });
  });

  router.post('/auth/invites/redeem', async (req, res) => {
    const { tenantId, user } = await redeemOneTimeToken(deps, parseBody(req, RedeemInput));
    const { body } = await openSession(deps, res, { ...user, tenantId });
    res.json(body);
  });

  router.post('/auth/validate', async (req, res) => {
    const { authorization } = parseQuery(req, ValidateQuery);
    const match = /^bearer\s+(\S+)$/i.exec((authorization ?? '').trim());
    const verified = match ? await deps.tokens.verify(match[1], deps.clock()) : null;
    if (!verified?.ok) {
      res.json({ valid: false, user_id: null, roles: [] });
      return;
    }
    res.json({ valid: true, user_id: verified.claims.userId, roles: verified.claims.roles });
  });

  router.get('/auth/people', async (req, res) => {
    const { tenantId } = requireIdentity(req);
    res.json({ people: await namesOf(deps.knex, tenantId, parseQuery(req, PeopleQuery).ids) });
  });

  router.get('/auth/users', async (req, res) => {
    const me = await caller(deps, req);
    if (!me.roles.includes('admin')) throw new Forbidden('admin role required');
    const rows = await listTenantUsers(deps.knex, me.tenant_id);
    res.json(
      rows.map((r) => ({
        id: r.id,
        email: r.email,
        display_name: r.display_name,
        roles: r.roles,
        is_active: r.status !== 'disabled',
      })),
    );
  });

  return router;
}

/** The resolve step on the internal listener only (the public gateway answers 404). */
export function internalRouter(platform: PlatformDeps): Router {
  const deps = identityDeps(platform);
  const router = Router();
  router.post('/auth/resolve', async (req, res) => {
    const invalid = (reason: string) => res.json({ valid: false, reason, roles: [], permissions: [] });
    const verified = await deps.tokens.verify(presentedToken(req) ?? '', deps.clock());
    if (!verified.ok) return void invalid(verified.reason);
    let resolution;
    try {
      resolution = await deps.resolver.resolve(verified.claims);
    } catch (err) {
      req.log.error({ err }, 'identity resolution failed');
      throw new Unavailable('authorization service unavailable');
    }
    if (!resolution.valid) return void invalid(resolution.reason);
    const i = resolution.identity;
    res.json({
      valid: true,
      user_id: i.userId,
      email: i.email,
      display_name: i.displayName,
      tenant_id: i.tenantId,
      roles: i.roles,
      permissions: i.permissions,
    });
  });
  return router;
}
