import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { readTenantSettingsSnapshot, type TenantSettingsSnapshot } from '../../../queries/settings/tenant-settings';
import type { Cache } from '../../platform/infra/cache';

/** Settings reads are cached for 300 s under `settings:{tenant_id}`. */
export const SETTINGS_CACHE_TTL_SECONDS = 300;
export const settingsCacheKey = (tenantId: string) => `settings:${tenantId}`;

export interface SettingsReadDeps {
  knex: Knex;
  cache: Cache;
  logger: Logger;
}

/**
 * The tenant's settings and overrides, from the cache or the read models. A cache outage
 * only costs a database read: it is logged and never fails the request.
 */
export async function loadTenantSettings(deps: SettingsReadDeps, tenantId: string): Promise<TenantSettingsSnapshot> {
  const key = settingsCacheKey(tenantId);
  try {
    const cached = await deps.cache.get<TenantSettingsSnapshot>(key);
    if (cached) return cached;
  } catch (err) {
    deps.logger.warn({ err, key }, 'settings cache read failed; reading the database');
  }
  const snapshot = await readTenantSettingsSnapshot(deps.knex, tenantId);
  try {
    await deps.cache.set(key, snapshot, SETTINGS_CACHE_TTL_SECONDS);
  } catch (err) {
    deps.logger.warn({ err, key }, 'settings cache write failed');
  }
  return snapshot;
}

/**
 * Called after every settings write, once the read models hold it (the command handler
 * waits for projections), so the next read loads the new values. A reader that loaded
 * the old row just before the write and stores it just after could leave a stale entry
 * for at most the TTL; the window is a few milliseconds.
 */
export async function invalidateTenantSettings(
  deps: Pick<SettingsReadDeps, 'cache' | 'logger'>,
  tenantId: string,
): Promise<void> {
  const key = settingsCacheKey(tenantId);
  try {
    await deps.cache.delete(key);
  } catch (err) {
    deps.logger.error(
      { err, key },
      'settings cache invalidation failed; readers may see old settings until the entry expires',
    );
  }
}
