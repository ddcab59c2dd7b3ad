import { createHash, randomBytes } from 'node:crypto';

/**
 * Invite and reset tokens: 256 bits from the CSPRNG, shown once, stored only as SHA-256.
 * A plain hash suffices (no salt, no stretching) because the input is uniformly random.
 */
export function newOneTimeToken(): { token: string; tokenHash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, tokenHash: hashOneTimeToken(token) };
}

export function hashOneTimeToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
