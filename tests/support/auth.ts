import { randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import type { ContextModule } from '../../src/context-module';
import { permissionsFor } from '../../streams/identity/permissions';
import { GatewayError } from '../../src/http/errors';
import { stampIdentity, stripIdentityHeaders } from '../../src/http/identity';
import type { TestPlatform } from './platform';
import { TEST_JWT_SECRET } from './secrets';

/**
 * TEMPORARY until the identity context lands (issue 3): sessions are JWTs checked by a
 * test-only gateway stage. The identity work replaces the body of `signIn` with a real
 * user and POST /auth/token, keeping this signature, so tests written against it stay.
 */
export type Role = 'admin' | 'operator' | 'reviewer' | 'power_user';

export const DEFAULT_TENANT = '00000000-0000-0000-0000-000000000001';

export interface Session {
  userId: string;
  tenantId: string;
  email: string;
  roles: Role[];
  token: string;
  /** `{authorization: 'Bearer …'}` for the public listener. */
  headers: Record<string, string>;
}

const key = new TextEncoder().encode(TEST_JWT_SECRET);

export async function signIn(_t: TestPlatform, options: { roles?: Role[]; tenantId?: string; email?: string } = {}): Promise<Session> {
  const userId = randomUUID();
  const roles = options.roles ?? ['operator'];
  const tenantId = options.tenantId ?? DEFAULT_TENANT;
  const email = options.email ?? `user-${userId.slice(0, 8)}@example.com`;
  const token = await new SignJWT({ user_id: userId, email, roles, tenant_id: tenantId, tv: 0 })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime('24h')
    .sign(key);
  return { userId, tenantId, email, roles, token, headers: { authorization: `Bearer ${token}` } };
}

const PUBLIC = [/^\/auth\/token$/, /^\/auth\/invites/, /^\/(entity-types|relationship-rules|relationship-types)(\/|$)/];

/** The test-only gateway stage behind `signIn` (see above). */
export function testGatewayContext(): ContextModule {
  return {
    name: 'test-gateway',
    gateway: () => ({
      authenticate: async (req, _res, next) => {
        stripIdentityHeaders(req);
        const header = req.get('authorization');
        if (!header?.startsWith('Bearer ')) {
          if (PUBLIC.some((p) => p.test(req.path))) return next();
          return next(new GatewayError(401, 'missing authentication'));
        }
        try {
          const { payload } = await jwtVerify(header.slice(7), key, { algorithms: ['HS256'] });
          const roles = (payload.roles as Role[]) ?? [];
          stampIdentity(req, { userId: String(payload.user_id), tenantId: String(payload.tenant_id), permissions: permissionsFor(roles) });
          next();
        } catch {
          next(new GatewayError(401, 'invalid token: signature'));
        }
      },
    }),
  };
}
