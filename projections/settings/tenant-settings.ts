import type { Projector } from '../../src/platform/projection-runner/projector';
import { SETTING_NAMES, WIRE_NAMES } from '../../streams/settings/fields';
import { readTenantSettingsEvent } from '../../streams/settings/tenant-settings';

/** One row per tenant that ever changed a setting: the stored values (null = inherit). */
export const TENANT_SETTINGS_TABLE = 'settings_tenant_settings';

export const tenantSettingsProjector: Projector = {
  name: 'settings_tenant_settings',
  consistency: 'inline',
  version: 1,
  tables: [TENANT_SETTINGS_TABLE],
  eventTypes: ['TenantSettingsUpdated'],
  async createTables(knex) {
    await knex.schema.createTable(TENANT_SETTINGS_TABLE, (t) => {
      t.text('tenant_id').primary();
      t.text('default_model');
      t.text('fallback_model');
      t.bigInteger('max_tokens_per_execution');
      t.double('max_cost_usd_per_execution');
      t.bigInteger('max_tokens_per_day');
      t.double('max_cost_usd_per_day');
      t.text('max_thinking_mode');
      t.text('updated_by').notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
    });
  },
  async apply(trx, event) {
    const { data } = readTenantSettingsEvent(event);
    const columns: Record<string, unknown> = {};
    for (const name of SETTING_NAMES) {
      const change = data.changes[name];
      if (change) columns[WIRE_NAMES[name]] = change.to;
    }
    const row = {
      tenant_id: event.metadata.tenantId,
      ...columns,
      updated_by: data.updatedBy,
      updated_at: data.updatedAt,
    };
    await trx(TENANT_SETTINGS_TABLE)
      .insert(row)
      .onConflict('tenant_id')
      .merge(Object.keys(row).filter((c) => c !== 'tenant_id'));
  },
};
