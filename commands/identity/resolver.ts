import { LRUCache } from 'lru-cache';
import type { Knex } from 'knex';
import { findUserById, type UserRow } from '../../queries/identity/user-directory';
import { permissionsFor } from '../../streams/identity/permissions';
import type { SessionClaims } from './session-tokens';

/**
 * The resolve step: a verified token to the caller's current roles and
 * permissions. Rows are cached per user for about 5 s, stale-while-revalidate: after
 * FRESH_MS a request still gets the cached row while one refresh runs in the background,
 * so deactivation, role changes, logout-all and resets bind within ~5 s on every instance.
 * Past MAX_STALE_MS the row is re-read in line, and a failing read is an error (→ 503),
 * never a pass-through. Writes on this instance invalidate at once.
 */
export type InvalidReason = 'signature' | 'expired' | 'revoked' | 'inactive' | 'unknown_user';

export interface ResolvedIdentity {
  userId: string;
  tenantId: string;
  email: string;
  displayName: string | null;
  roles: string[];
  permissions: string[];
  tokenVersion: number;
}

export type Resolution = { valid: true; identity: ResolvedIdentity } | { valid: false; reason: InvalidReason };

export interface IdentityResolver {
  resolve(claims: SessionClaims): Promise<Resolution>;
  /** The user's directory row through the same cache (GET /auth/me answers from it). */
  lookup(userId: string): Promise<UserRow | null>;
  invalidate(userId: string): void;
}

interface Entry {
  row: UserRow | null;
  loadedAt: number;
  refreshing?: Promise<void>;
}

export const FRESH_MS = 5000;
const MAX_STALE_MS = 15000;
const MAX_ENTRIES = 50000;

export function judge(claims: SessionClaims, row: UserRow | null): Resolution {
  if (!row || row.tenant_id !== claims.tenantId || row.kind === 'system')
    return { valid: false, reason: 'unknown_user' };
  if (row.status !== 'active') return { valid: false, reason: 'inactive' };
  if (row.token_version > claims.tokenVersion) return { valid: false, reason: 'revoked' };
  return {
    valid: true,
    identity: {
      userId: row.id,
      tenantId: row.tenant_id,
      email: row.email,
      displayName: row.display_name,
      roles: row.roles,
      permissions: permissionsFor(row.roles),
      tokenVersion: row.token_version,
    },
  };
}

export function createIdentityResolver(options: {
  load: (userId: string) => Promise<UserRow | null>;
  now?: () => number;
  freshMs?: number;
  maxStaleMs?: number;
}): IdentityResolver {
  const now = options.now ?? Date.now;
  const freshMs = options.freshMs ?? FRESH_MS;
  const maxStaleMs = options.maxStaleMs ?? MAX_STALE_MS;
  // Bounded by count and by age (lru-cache): past maxStaleMs an entry is never served anyway.
  const entries = new LRUCache<string, Entry>({ max: MAX_ENTRIES, ttl: maxStaleMs * 2, perf: { now } });
  const inFlight = new Map<string, Promise<Entry>>();

  function load(userId: string): Promise<Entry> {
    const existing = inFlight.get(userId);
    if (existing) return existing;
    const pending: Promise<Entry> = options
      .load(userId)
      .then((row) => {
        const entry = { row, loadedAt: now() };
        // A read that began before an invalidation must not put the old row back.
        if (inFlight.get(userId) !== pending) return entry;
        entries.set(userId, entry);
        return entry;
      })
      .finally(() => {
        if (inFlight.get(userId) === pending) inFlight.delete(userId);
      });
    inFlight.set(userId, pending);
    return pending;
  }

  async function lookup(userId: string): Promise<UserRow | null> {
    let entry = entries.get(userId);
    const age = entry ? now() - entry.loadedAt : Infinity;
    if (!entry || age > maxStaleMs) entry = await load(userId);
    else if (age > freshMs && !entry.refreshing) {
      const stale = entry;
      // The failure surfaces on the next in-line read once the entry is too old to serve.
      stale.refreshing = load(userId).then(
        () => undefined,
        () => void (stale.refreshing = undefined),
      );
    }
    return entry.row;
  }

  return {
    async resolve(claims) {
      return judge(claims, await lookup(claims.userId));
    },
    lookup,
    invalidate(userId) {
      entries.delete(userId);
      inFlight.delete(userId);
    },
  };
}

export function directoryLoader(knex: Knex) {
  return (userId: string) => findUserById(knex, userId);
}
