import { expect } from 'chai';
import type { HttpResponse } from '../../support/http';
import type { TestPlatform } from '../../support/platform';
import type { Session } from '../../support/auth';

/** The `svc_token` value a response sets, and its attributes. */
export function sessionCookie(response: HttpResponse): { token: string; attributes: string[] } | null {
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith('svc_token='));
  if (!cookie) return null;
  const [pair, ...attributes] = cookie.split(';').map((p) => p.trim());
  return { token: pair.slice('svc_token='.length), attributes };
}

/** Invites a user as `admin`, redeems the invite with `password`, returns the new session. */
export async function inviteAndRedeem(
  t: TestPlatform,
  admin: Session,
  body: { email: string; roles?: string[]; display_name?: string },
  password: string,
) {
  const created = await t.api.post('/auth/admin/users', { roles: [], ...body }, admin.headers);
  expect(created.status, created.text).to.equal(201);
  const redeemed = await t.api.post('/auth/invites/redeem', { token: created.body.invite_token, password });
  expect(redeemed.status, redeemed.text).to.equal(200);
  const token = sessionCookie(redeemed)!.token;
  return { id: created.body.id as string, token, headers: { authorization: `Bearer ${token}` } };
}

export const uniqueEmail = (prefix = 'person') => `${prefix}-${Math.random().toString(36).slice(2, 10)}@Example.com`;
