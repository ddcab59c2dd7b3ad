import { z, type ApiDescription } from '../../platform/openapi/describe';
import { InviteUserInput } from '../../../commands/identity/invite-user';
import { LogInInput } from '../../../commands/identity/log-in';
import { RedeemInput } from '../../../commands/identity/redeem-onetime-token';
import { UpdateUserInput } from '../../../commands/identity/update-user';

import { InviteTokenParam, PeopleQuery, UserIdParam, ValidateQuery } from './schemas';

/** Identity routes in the API contract; schemas are the router's own. */
const Session = z
  .object({
    expires_in: z.number().int(),
    user_id: z.string(),
    roles: z.array(z.string()),
    email: z.string(),
    display_name: z.string().nullable(),
  })
  .openapi('Session', { description: 'Login result; the token itself travels in the HttpOnly `svc_token` cookie.' });
const AdminUser = z
  .object({
    id: z.string(),
    email: z.string(),
    display_name: z.string().nullable(),
    roles: z.array(z.string()),
    is_active: z.boolean(),
    status: z.string(),
  })
  .openapi('AdminUser');
const Me = z
  .object({
    user_id: z.string(),
    email: z.string(),
    display_name: z.string().nullable(),
    tenant_id: z.string(),
    roles: z.array(z.string()),
    permissions: z.array(z.string()),
  })
  .openapi('Me');
const iso = z.union([z.string(), z.date()]);

export const identityApi: ApiDescription = {
  tag: 'identity',
  // Credentials, names, roles: a few hundred bytes; 64 KB is far past any of them.
  bodyLimit: 64 * 1024,
  public: () => [
    {
      method: 'post',
      path: '/auth/token',
      auth: 'public',
      summary: 'Log in with e-mail and password; sets the svc_token cookie',
      body: LogInInput,
      responses: { 200: Session },
      errors: [401],
    },
    { method: 'get', path: '/auth/me', summary: 'The caller: identity, roles and permissions', responses: { 200: Me } },
    {
      method: 'post',
      path: '/auth/refresh',
      summary: 'Re-issue the session token once it is old enough (204 while still fresh)',
      responses: { 200: Session.extend({ token: z.string() }), 204: null },
    },
    {
      method: 'post',
      path: '/auth/logout',
      auth: 'public',
      summary: 'Expire the session cookie',
      responses: { 204: null },
    },
    {
      method: 'post',
      path: '/auth/logout-all',
      summary: 'Revoke every session of the caller (bumps the token version)',
      responses: { 204: null },
    },
    {
      method: 'post',
      path: '/auth/admin/users',
      summary: 'Invite a user (users.manage; roles need roles.grant)',
      body: InviteUserInput,
      responses: {
        201: AdminUser.extend({ invite_token: z.string(), invite_url: z.string(), invite_expires_at: iso }),
      },
    },
    {
      method: 'get',
      path: '/auth/admin/users',
      summary: "Users of the caller's tenant (users.manage)",
      responses: { 200: z.array(AdminUser) },
    },
    {
      method: 'patch',
      path: '/auth/admin/users/:id',
      summary: "Change a user's name, roles or active flag",
      params: UserIdParam,
      body: UpdateUserInput,
      responses: { 200: AdminUser },
    },
    {
      method: 'post',
      path: '/auth/admin/users/:id/reset-password',
      summary: 'Issue a one-time password-reset link',
      params: UserIdParam,
      responses: {
        200: z.object({ user_id: z.string(), reset_url: z.string(), reset_token: z.string(), expires_at: iso }),
      },
    },
    {
      method: 'get',
      path: '/auth/invites/:token',
      auth: 'public',
      summary: 'Inspect an open invite or reset token',
      params: InviteTokenParam,
      responses: {
        200: z.object({
          email: z.string(),
          display_name: z.string().nullable(),
          purpose: z.string(),
          expires_at: z.string(),
        }),
      },
    },
    {
      method: 'post',
      path: '/auth/invites/redeem',
      auth: 'public',
      summary: 'Redeem an invite or reset token (sets the password, logs in)',
      body: RedeemInput,
      responses: { 200: Session },
    },
    {
      method: 'post',
      path: '/auth/validate',
      auth: 'public',
      summary: 'Legacy claims-only decode of `authorization` (query)',
      query: ValidateQuery,
      responses: { 200: z.object({ valid: z.boolean(), user_id: z.string().nullable(), roles: z.array(z.string()) }) },
    },
    {
      method: 'get',
      path: '/auth/people',
      summary: "Names of users of the caller's tenant by id (any signed-in user; unknown ids are left out)",
      query: PeopleQuery,
      responses: {
        200: z.object({
          people: z
            .array(
              z.object({ id: z.string(), display_name: z.string().nullable(), email: z.string(), kind: z.string() }),
            )
            .max(100),
        }),
      },
    },
    {
      method: 'get',
      path: '/auth/users',
      summary: 'Legacy user list (admin role)',
      responses: {
        200: z.array(
          z.object({
            id: z.string(),
            email: z.string(),
            display_name: z.string().nullable(),
            roles: z.array(z.string()),
            is_active: z.boolean(),
          }),
        ),
      },
    },
  ],
  internal: () => [
    {
      method: 'post',
      path: '/auth/resolve',
      summary: 'Resolve the presented token (bearer or cookie) to an identity',
      responses: {
        200: z.object({
          valid: z.boolean(),
          reason: z.string().optional(),
          user_id: z.string().optional(),
          email: z.string().optional(),
          display_name: z.string().nullable().optional(),
          tenant_id: z.string().optional(),
          roles: z.array(z.string()),
          permissions: z.array(z.string()),
        }),
      },
    },
  ],
};
