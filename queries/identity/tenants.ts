import type { Knex } from 'knex';
import { TENANTS_TABLE } from '../../projections/identity/tenants';

export interface TenantRow {
  id: string;
  name: string;
  created_at: Date;
}

export async function listTenants(knex: Knex): Promise<TenantRow[]> {
  return knex(TENANTS_TABLE).select('id', 'name', 'created_at').orderBy('created_at');
}

export async function findTenant(knex: Knex, tenantId: string): Promise<TenantRow | null> {
  return (await knex(TENANTS_TABLE).select('id', 'name', 'created_at').where({ id: tenantId }).first()) ?? null;
}
