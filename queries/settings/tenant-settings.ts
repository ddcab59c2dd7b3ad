import type { Knex } from 'knex';
import { TENANT_SETTINGS_TABLE } from '../../projections/settings/tenant-settings';
import { USER_OVERRIDES_TABLE } from '../../projections/settings/user-budget-overrides';
import { INHERIT_ALL, SETTING_NAMES, type TenantSettingsValues, WIRE_NAMES } from '../../streams/settings/fields';

/** A tenant's stored settings (null values inherit) and who last wrote them. */
export interface StoredTenantSettings {
  values: TenantSettingsValues;
  updatedBy: string | null;
  updatedAt: string | null;
}

export interface StoredUserOverride {
  userId: string;
  maxTokensPerDay: number | null;
  maxCostUsdPerDay: number | null;
  updatedBy: string;
  updatedAt: string;
}

/** Everything settings-related of one tenant: what `settings:{tenant_id}` caches. */
export interface TenantSettingsSnapshot {
  tenantId: string;
  stored: StoredTenantSettings;
  overrides: Record<string, StoredUserOverride>;
}

// bigint columns come back from pg as text.
const numberOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));
const iso = (value: unknown): string =>
  value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString();

const NUMERIC = new Set(['maxTokensPerExecution', 'maxCostUsdPerExecution', 'maxTokensPerDay', 'maxCostUsdPerDay']);

export function overrideFromRow(row: Record<string, unknown>): StoredUserOverride {
  return {
    userId: String(row.user_id),
    maxTokensPerDay: numberOrNull(row.max_tokens_per_day),
    maxCostUsdPerDay: numberOrNull(row.max_cost_usd_per_day),
    updatedBy: String(row.updated_by),
    updatedAt: iso(row.updated_at),
  };
}

export async function readTenantSettingsSnapshot(knex: Knex, tenantId: string): Promise<TenantSettingsSnapshot> {
  const [row, overrideRows] = await Promise.all([
    knex(TENANT_SETTINGS_TABLE).where({ tenant_id: tenantId }).first(),
    knex(USER_OVERRIDES_TABLE).where({ tenant_id: tenantId }),
  ]);
  let stored: StoredTenantSettings = { values: { ...INHERIT_ALL }, updatedBy: null, updatedAt: null };
  if (row) {
    const values: Record<string, unknown> = {};
    for (const name of SETTING_NAMES) {
      const raw = row[WIRE_NAMES[name]];
      values[name] = NUMERIC.has(name) ? numberOrNull(raw) : (raw ?? null);
    }
    stored = {
      values: values as unknown as TenantSettingsValues,
      updatedBy: row.updated_by,
      updatedAt: iso(row.updated_at),
    };
  }
  const overrides: Record<string, StoredUserOverride> = {};
  for (const r of overrideRows) overrides[r.user_id] = overrideFromRow(r);
  return { tenantId, stored, overrides };
}
