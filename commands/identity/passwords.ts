import bcrypt from 'bcryptjs';

/**
 * bcrypt only reads the first 72 bytes of a password; longer ones are refused rather than
 * silently truncated (two passwords sharing a 72-byte prefix would otherwise both match).
 */
export const MAX_PASSWORD_BYTES = 72;
export const MIN_PASSWORD_LENGTH = 8;

export function passwordTooLong(password: string): boolean {
  return Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES;
}

export async function hashPassword(password: string, cost: number): Promise<string> {
  if (passwordTooLong(password)) throw new Error('password longer than 72 bytes');
  return bcrypt.hash(password, cost);
}

/**
 * Compares against a throwaway hash of the same cost when there is no stored one, so an
 * unknown e-mail, an invited account and a wrong password all take the same time.
 */
export function createPasswordVerifier(cost: number) {
  let decoy: Promise<string> | null = null;
  return async function verifyPassword(password: string, storedHash: string | null): Promise<boolean> {
    decoy ??= bcrypt.hash('decoy-password-never-matches', cost);
    if (passwordTooLong(password)) {
      await bcrypt.compare('x', await decoy);
      return false;
    }
    const matches = await bcrypt.compare(password, storedHash || (await decoy));
    return matches && Boolean(storedHash);
  };
}
