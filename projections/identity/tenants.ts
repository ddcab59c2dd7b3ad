import type { Projector } from '../../src/platform/projection-runner/projector';
import { TENANT_EVENT_TYPES, type TenantEvent } from '../../streams/identity/tenant';

export const TENANTS_TABLE = 'identity_tenants';

export const tenantsProjector: Projector = {
  name: 'identity_tenants',
  consistency: 'inline',
  version: 1,
  tables: [TENANTS_TABLE],
  eventTypes: TENANT_EVENT_TYPES,
  async createTables(knex) {
    await knex.schema.createTable(TENANTS_TABLE, (t) => {
      t.text('id').primary();
      t.text('name').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
    });
  },
  async apply(trx, recorded) {
    const event = { type: recorded.type, data: recorded.data } as TenantEvent;
    await trx(TENANTS_TABLE)
      .insert({ id: event.data.tenantId, name: event.data.name, created_at: recorded.recordedAt })
      .onConflict('id')
      .ignore();
  },
};
