import type { Request, Response } from 'express';
import { TOKEN_LIFETIME_S } from '../../../commands/identity/session-tokens';

/** The session cookie: HttpOnly, Secure, SameSite=Lax, Path=/, 24 h. */
export const SESSION_COOKIE = 'svc_token';

export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      try {
        return decodeURIComponent(value);
      } catch {
        return value;
      }
    }
  }
  return undefined;
}

/** The presented token and how it came: `Authorization: Bearer …` first, else the `svc_token` cookie. */
export function presentedCredential(req: Request): { token: string; via: 'bearer' | 'cookie' } | undefined {
  const authorization = req.headers.authorization;
  if (authorization) {
    const match = /^bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match) return { token: match[1], via: 'bearer' };
  }
  const cookie = readCookie(req, SESSION_COOKIE);
  return cookie ? { token: cookie, via: 'cookie' } : undefined;
}

export function presentedToken(req: Request): string | undefined {
  return presentedCredential(req)?.token;
}

export function setSessionCookie(res: Response, token: string): void {
  res.append(
    'Set-Cookie',
    `${SESSION_COOKIE}=${token}; Max-Age=${TOKEN_LIFETIME_S}; Path=/; HttpOnly; Secure; SameSite=Lax`,
  );
}

export function clearSessionCookie(res: Response): void {
  res.append(
    'Set-Cookie',
    `${SESSION_COOKIE}=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/; HttpOnly; Secure; SameSite=Lax`,
  );
}
