import { LRUCache } from 'lru-cache';
import { decodeProtectedHeader, errors, jwtVerify, SignJWT } from 'jose';
import { z } from 'zod';

/**
 * Session tokens: HS256 JWTs with the claims user_id, email, roles, tenant_id,
 * tv, iss, iat, exp. Verification accepts exactly what `issue` produces: HS256 only, a
 * numeric exp and iat, our issuer, and no key-selection headers (kid, jku, jwk, x5u, x5c)
 * a forger could use to point at a key of their choosing.
 */
export const TOKEN_ISSUER = 'compliance-platform/auth';
export const TOKEN_LIFETIME_S = 86400;
export const REFRESH_AFTER_S = 3600;

export interface SessionClaims {
  userId: string;
  email: string;
  roles: string[];
  tenantId: string;
  tokenVersion: number;
  issuedAt: number;
  expiresAt: number;
}

export type Verified = { ok: true; claims: SessionClaims } | { ok: false; reason: 'signature' | 'expired' };

const FORBIDDEN_HEADERS = ['kid', 'jku', 'jwk', 'x5u', 'x5c', 'x5t', 'x5t#S256', 'crit'];

const Payload = z.object({
  user_id: z.string().uuid(),
  email: z.string(),
  roles: z.array(z.string()),
  tenant_id: z.string().min(1),
  // Absent in a token means 0.
  tv: z.number().int().min(0).optional(),
  iss: z.literal(TOKEN_ISSUER),
  iat: z.number(),
  exp: z.number(),
});

export interface SessionTokens {
  issue(
    claims: Omit<SessionClaims, 'issuedAt' | 'expiresAt'>,
    now: Date,
  ): Promise<{ token: string; expiresIn: number; claims: SessionClaims }>;
  verify(token: string, now?: Date): Promise<Verified>;
}

// A token string that verified once verifies again until it expires, so the HMAC runs
// once per token instead of once per request; expiry is still checked on every use.
const VERIFIED_CACHE_SIZE = 10000;
const VERIFIED_CACHE_TTL_MS = 15 * 60 * 1000;

export function createSessionTokens(secret: string): SessionTokens {
  const key = new TextEncoder().encode(secret);
  // Bounded by count and age (lru-cache); expiry is still checked against the claims.
  const verified = new LRUCache<string, SessionClaims>({ max: VERIFIED_CACHE_SIZE, ttl: VERIFIED_CACHE_TTL_MS });
  const remember = (token: string, claims: SessionClaims) => void verified.set(token, claims);
  return {
    async issue(input, now) {
      const issuedAt = Math.floor(now.getTime() / 1000);
      const expiresAt = issuedAt + TOKEN_LIFETIME_S;
      const token = await new SignJWT({
        user_id: input.userId,
        email: input.email,
        roles: input.roles,
        tenant_id: input.tenantId,
        tv: input.tokenVersion,
      })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuer(TOKEN_ISSUER)
        .setIssuedAt(issuedAt)
        .setExpirationTime(expiresAt)
        .sign(key);
      return { token, expiresIn: TOKEN_LIFETIME_S, claims: { ...input, issuedAt, expiresAt } };
    },
    async verify(token, now) {
      if (!token || token.length > 8192) return { ok: false, reason: 'signature' };
      const known = verified.get(token);
      if (known) {
        const seconds = (now ?? new Date()).getTime() / 1000;
        return seconds < known.expiresAt ? { ok: true, claims: known } : { ok: false, reason: 'expired' };
      }
      try {
        const header = decodeProtectedHeader(token);
        if (header.alg !== 'HS256' || FORBIDDEN_HEADERS.some((name) => name in header))
          return { ok: false, reason: 'signature' };
        const { payload } = await jwtVerify(token, key, {
          algorithms: ['HS256'],
          issuer: TOKEN_ISSUER,
          requiredClaims: ['exp', 'iat'],
          currentDate: now,
          clockTolerance: 0,
        });
        const parsed = Payload.safeParse(payload);
        if (!parsed.success) return { ok: false, reason: 'signature' };
        const p = parsed.data;
        const claims = {
          userId: p.user_id,
          email: p.email,
          roles: p.roles,
          tenantId: p.tenant_id,
          tokenVersion: p.tv ?? 0,
          issuedAt: p.iat,
          expiresAt: p.exp,
        };
        remember(token, claims);
        return { ok: true, claims };
      } catch (error) {
        if (error instanceof errors.JWTExpired) return { ok: false, reason: 'expired' };
        return { ok: false, reason: 'signature' };
      }
    },
  };
}
