import { Router } from 'express';
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
import { commandContext } from '../../platform/http/command-context';
import { type Identity, requireIdentity } from '../../platform/http/identity';
import { declareRoutes } from '../../platform/http/route';
import { parseBody } from '../../platform/http/validation';
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

/** The caller's own row: a token whose user is gone from the tenant is not authenticated. */
async function callerRow(deps: IdentityDeps, identity: Identity): Promise<UserRow> {
  const row = await findUserInTenant(deps.knex, identity.tenantId, identity.userId);
  if (!row) throw new Unauthenticated('Not authenticated');
  return row;
}

/**
 * A user of the caller's tenant as the admin routes show one. System accounts answer 404, as
 * they are absent from the directory; their deciders' 409 is the operator's answer.
 */
async function visibleUser(deps: IdentityDeps, tenantId: string, userId: string): Promise<UserRow> {
  const row = await findUserInTenant(deps.knex, tenantId, userId);
  if (!row || row.kind === 'system') throw new NotFound('User not found');
  return row;
}

/** Granting roles is checked once the body names some; always enforced (see ALWAYS_ENFORCED). */
function mayGrantRoles(identity: Identity): void {
  if (!identity.permissions.includes('roles.grant')) throw new Forbidden('Insufficient permissions');
}

function link(deps: IdentityDeps, page: string, token: string): string {
  return `${deps.config.http.publicBaseUrl.replace(/\/$/, '')}/${page}?token=${encodeURIComponent(token)}`;
}

export function publicRouter(platform: PlatformDeps): Router {
  const deps = identityDeps(platform);
  const router = Router();
  const route = declareRoutes(router, platform, requirePermission);
  // The public paths of docs/http-api.md: anyone may call them, a stamped identity or none.
  const anyone = declareRoutes(router, platform, requirePermission, { caller: () => null });

  // A custom body: logging in sets the session cookie on the answer.
  router.post('/auth/token', async (req, res) => {
    const user = await logIn(deps, parseBody(req, LogInInput));
    const { body } = await openSession(deps, res, subjectOf(user));
    res.json(body);
  });

  route.get('/auth/me', {
    // The row the gateway just resolved this caller with (same cache, same ~5 s window).
    read: async ({ identity }) => {
      const me = await deps.resolver.lookup(identity.userId);
      if (!me || me.tenant_id !== identity.tenantId) throw new Unauthenticated('Not authenticated');
      return me;
    },
    respond: (me) => ({
      user_id: me.id,
      email: me.email,
      display_name: me.display_name,
      tenant_id: me.tenant_id,
      roles: me.roles,
      permissions: permissionsFor(me.roles),
    }),
  });

  // A custom body: refreshing reads the presented token (header or cookie) and sets the cookie anew.
  router.post('/auth/refresh', async (req, res) => {
    const me = await callerRow(deps, requireIdentity(req));
    const verified = await deps.tokens.verify(presentedToken(req) ?? '', deps.clock());
    if (!verified.ok) throw new Unauthenticated('Not authenticated');
    if (deps.clock().getTime() / 1000 - verified.claims.issuedAt < REFRESH_AFTER_S) {
      res.status(204).end();
      return;
    }
    const { token, body } = await openSession(deps, res, subjectOf(me));
    res.json({ token, ...body });
  });

  // A custom body: logging out expires the session cookie on the answer.
  router.post('/auth/logout', (_req, res) => {
    clearSessionCookie(res);
    res.status(204).end();
  });

  // A custom body: the answer also expires this browser's session cookie.
  router.post('/auth/logout-all', async (req, res) => {
    await logOutEverywhere(deps, requireIdentity(req).userId, commandContext(req));
    clearSessionCookie(res);
    res.status(204).end();
  });

  route.post('/auth/admin/users', {
    permission: 'users.manage',
    body: InviteUserInput,
    status: 201,
    command: ({ identity, body, context }) => {
      if (body.roles.length) mayGrantRoles(identity);
      return inviteUser(deps, body, context);
    },
    respond: async ({ userId, token, expiresAt }, { identity }) => ({
      ...adminView(await visibleUser(deps, identity.tenantId, userId)),
      invite_token: token,
      invite_url: link(deps, 'invite', token),
      invite_expires_at: expiresAt,
    }),
  });

  route.get('/auth/admin/users', {
    permission: 'users.manage',
    read: ({ identity }) => listTenantUsers(deps.knex, identity.tenantId),
    respond: (rows) => rows.map(adminView),
  });

  route.patch('/auth/admin/users/:id', {
    permission: 'users.manage',
    params: UserIdParam,
    body: UpdateUserInput,
    command: async ({ identity, params, body, context }) => {
      if (body.roles !== undefined) mayGrantRoles(identity);
      await visibleUser(deps, identity.tenantId, params.id);
      return updateUser(
        deps,
        params.id,
        { displayName: body.display_name, roles: body.roles, isActive: body.is_active },
        context,
      );
    },
    respond: async (_, { identity, params }) => adminView(await visibleUser(deps, identity.tenantId, params.id)),
  });

  route.post('/auth/admin/users/:id/reset-password', {
    permission: 'users.manage',
    params: UserIdParam,
    command: async ({ identity, params, context }) => {
      await visibleUser(deps, identity.tenantId, params.id);
      return issuePasswordReset(deps, params.id, context);
    },
    respond: ({ token, expiresAt }, { params }) => ({
      user_id: params.id,
      reset_url: link(deps, 'reset-password', token),
      reset_token: token,
      expires_at: expiresAt,
    }),
  });

  anyone.get('/auth/invites/:token', {
    params: InviteTokenParam,
    read: ({ params }) => findOpenToken(deps.knex, hashOneTimeToken(params.token), deps.clock()),
    notFound: 'Invite not found, already used or expired',
    respond: (open) => ({
      email: open.email,
      display_name: open.display_name,
      purpose: open.purpose,
      expires_at: new Date(open.expires_at).toISOString(),
    }),
  });

  // A custom body: redeeming logs the user in, setting the session cookie on the answer.
  router.post('/auth/invites/redeem', async (req, res) => {
    const { tenantId, user } = await redeemOneTimeToken(deps, parseBody(req, RedeemInput));
    const { body } = await openSession(deps, res, { ...user, tenantId });
    res.json(body);
  });

  anyone.search('/auth/validate', {
    query: ValidateQuery,
    read: async ({ query }) => {
      const match = /^bearer\s+(\S+)$/i.exec((query.authorization ?? '').trim());
      const verified = match ? await deps.tokens.verify(match[1], deps.clock()) : null;
      return verified?.ok
        ? { valid: true, user_id: verified.claims.userId, roles: verified.claims.roles }
        : { valid: false, user_id: null, roles: [] };
    },
  });

  route.get('/auth/people', {
    query: PeopleQuery,
    read: async ({ identity, query }) => ({ people: await namesOf(deps.knex, identity.tenantId, query.ids) }),
  });

  route.get('/auth/users', {
    read: async ({ identity }) => {
      const me = await callerRow(deps, identity);
      if (!me.roles.includes('admin')) throw new Forbidden('admin role required');
      return listTenantUsers(deps.knex, me.tenant_id);
    },
    respond: (rows) =>
      rows.map((r) => ({
        id: r.id,
        email: r.email,
        display_name: r.display_name,
        roles: r.roles,
        is_active: r.status !== 'disabled',
      })),
  });

  return router;
}

/** The resolve step on the internal listener only (the public gateway answers 404). */
export function internalRouter(platform: PlatformDeps): Router {
  const deps = identityDeps(platform);
  const router = Router();
  // A custom body: the caller is the gateway presenting a token (header or cookie), not a
  // stamped identity, and a resolver failure is logged with its cause before the 503.
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
