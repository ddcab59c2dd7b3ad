import type { Knex } from 'knex';
import { NAMESPACES_TABLE, TIERS_TABLE } from '../../projections/prompts/tables';
import { NotFound } from '../../src/platform/domain-errors';
import { namespaceView, tierView } from './views';

export async function listNamespaces(knex: Knex, tenantId: string) {
  const rows = await knex(NAMESPACES_TABLE).where({ tenant_id: tenantId }).orderBy('name');
  return rows.map(namespaceView);
}

/** Another tenant's namespace answers 404 exactly like a missing one. */
export async function findNamespace(knex: Knex, tenantId: string, namespaceId: string) {
  const row = await knex(NAMESPACES_TABLE).where({ tenant_id: tenantId, id: namespaceId }).first();
  return row ? namespaceView(row) : null;
}

export async function getNamespace(knex: Knex, tenantId: string, namespaceId: string) {
  const namespace = await findNamespace(knex, tenantId, namespaceId);
  if (!namespace) throw new NotFound('Prompt namespace not found');
  return { ...namespace, tiers: await listTiers(knex, tenantId, namespaceId) };
}

export async function listTiers(knex: Knex, tenantId: string, namespaceId: string) {
  const rows = await knex(TIERS_TABLE).where({ tenant_id: tenantId, namespace_id: namespaceId }).orderBy('max_tokens');
  return rows.map(tierView);
}

export async function findTier(knex: Knex, tenantId: string, tierId: string) {
  const row = await knex(TIERS_TABLE).where({ tenant_id: tenantId, id: tierId }).first();
  return row ? tierView(row) : null;
}
